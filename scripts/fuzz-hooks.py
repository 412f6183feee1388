# Schemathesis hooks for scripts/fuzz-api.sh (loaded through SCHEMATHESIS_HOOKS): the check "a rejected store
# writes nothing". Before every store request the workspace's total_memories is read from health; after a 4xx
# answer it must be the same. Requests run one at a time (one worker), and only a store can add a memory.
import json
import os
import urllib.request

import schemathesis

STORE_PATH = "/v1/memory/store"
_count_before_store: dict[str, int] = {}


def _total_memories() -> int:
    request = urllib.request.Request(
        os.environ["BRAIN_FUZZ_URL"] + "/v1/optimize/health",
        headers={"Authorization": "Bearer " + os.environ["BRAIN_FUZZ_KEY"]},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return int(json.load(answer)["signals"]["total_memories"])


def _is_store(case) -> bool:
    return case.method.upper() == "POST" and case.operation.path == STORE_PATH


@schemathesis.hook
def before_call(ctx, case, kwargs):
    if _is_store(case):
        _count_before_store["count"] = _total_memories()


@schemathesis.check
def rejected_store_writes_nothing(ctx, response, case):
    """A store answered 4xx leaves health's total_memories unchanged."""
    if not _is_store(case):
        return None
    # Taken, not read: a later check without its own before_call reading is skipped rather than compared stale.
    before = _count_before_store.pop("count", None)
    if before is None or not 400 <= response.status_code < 500:
        return None
    after = _total_memories()
    if after != before:
        raise AssertionError(
            f"store answered {response.status_code} but total_memories went from {before} to {after}"
        )
    return None
