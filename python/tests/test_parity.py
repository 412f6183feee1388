"""The wire is one: the TypeScript client (dist/, run by node) and this client send the same method, path, JSON
body and headers for the same calls (the user agents name their own runtimes; idempotency keys are fresh per call)."""

from __future__ import annotations

import json
import re
import subprocess
from typing import Any, Dict, List, Tuple

import pytest
from conftest import BIN, KEY, ROOT, Received, Reply, ScriptedServer, wire_fixtures

import brain_client as bc

FIXTURE = {f["operation"]: f for f in wire_fixtures("minimal") if f["operation"]}
CALLS: List[Tuple[str, List[Any]]] = [
    ("store", ["The deploy runs on Fridays.", {"source": "parity", "n": [1, 2]}]),
    ("retrieve", ["when is the deploy?", 3, 0.25]),
    ("retrieve", ["no options"]),
    ("health", []),
    ("status", []),
]

TS_SCRIPT = """
const { Brain } = await import(process.argv[1]);
const [baseURL, key, calls] = [process.argv[2], process.argv[3], JSON.parse(process.argv[4])];
const brain = new Brain({ apiKey: key, baseURL, maxRetries: 0 });
for (const [op, args] of calls) {
  if (op === "store") await brain.memory.store(args[0], args[1]);
  else if (op === "retrieve") await brain.memory.retrieve(args[0], { topK: args[1], minScore: args[2] });
  else if (op === "health") await brain.optimize.health();
  else await brain.status();
}
await brain.close();
"""


def shape(req: Received) -> Dict[str, Any]:
    h = req.headers
    return {
        "method": req.method,
        "path": req.path,
        "body": json.loads(req.body) if req.body else None,
        "authorization": h.get("authorization"),
        "accept": h.get("accept"),
        "content-type": h.get("content-type"),
        "idempotency-key": bool(h.get("idempotency-key")),
    }


def answer(req: Received, _n: int) -> Reply:
    op = {"/v1/memory/store": "store", "/v1/memory/retrieve": "retrieve", "/v1/optimize/health": "health"}.get(
        req.path, "status"
    )
    f = FIXTURE[op]
    return Reply(f["status"], dict(f["headers"]), f["body"])


def test_both_clients_send_the_same_requests(server: ScriptedServer) -> None:
    if not (ROOT / "dist" / "index.js").exists():
        pytest.fail("dist/ is not built: run `npm run build` first", pytrace=False)
    server.script = answer
    with bc.Brain(api_key=KEY, base_url=server.url, max_retries=0) as brain:
        for op, args in CALLS:
            if op == "store":
                brain.memory.store(args[0], args[1])
            elif op == "retrieve":
                brain.memory.retrieve(*args)
            elif op == "health":
                brain.optimize.health()
            else:
                brain.status()
    python: List[Received] = list(server.received)
    server.received.clear()
    run = subprocess.run(
        [
            "node",
            "--input-type=module",
            "-e",
            TS_SCRIPT,
            str(ROOT / "dist" / "index.js"),
            server.url,
            KEY,
            json.dumps(CALLS),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    node = list(server.received)
    assert [shape(r) for r in node] == [shape(r) for r in python]
    assert all(re.fullmatch(r"brain-client/\S+ python/\S+", r.headers["user-agent"]) for r in python)
    assert all(re.fullmatch(r"brain-mcp/\S+ node/\S+", r.headers["user-agent"]) for r in node)
    assert BIN.exists()
