#!/usr/bin/env bash
# Property-based fuzzing of the real `brain-mcp serve` from its OpenAPI document (src/contract/openapi.json) with
# schemathesis (pinned, from PyPI, in its own virtual environment under node_modules/.cache). Every check: no 5xx,
# every answer conforms to the document (status, headers, body), negative data is rejected, valid data accepted,
# and a rejected store writes nothing (scripts/fuzz-hooks.py: health's total_memories is unchanged by any 4xx store).
# One exception, stated: store's Idempotency-Key. The fuzzer reuses one key for different bodies, which the API
# answers 422 idempotency_key_reused by design (a stateful rule no schema can express), so "valid data accepted"
# runs on the other operations and the rest of the checks on all four.
#   scripts/fuzz-api.sh [--store sqlite|postgres] [EXAMPLES] [SEED]
#     defaults: SQLite, 100 examples per operation, seed 1. postgres starts a throwaway cluster
#     (scripts/throwaway-postgres.js) unless BRAIN_DATABASE_URL names a database to fuzz.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
store=sqlite
if [ "${1:-}" = "--store" ]; then store="${2:?--store needs sqlite or postgres}"; shift 2; fi
case "$store" in sqlite|postgres) ;; *) echo "fuzz-api: --store is sqlite or postgres" >&2; exit 2 ;; esac
examples="${1:-100}"
seed="${2:-1}"
venv="$root/node_modules/.cache/schemathesis-venv"
[ -f "$root/dist/index.js" ] || { echo "fuzz-api: run npm run build first" >&2; exit 2; }
if [ ! -x "$venv/bin/schemathesis" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check schemathesis==4.32.5
fi
work="$(mktemp -d)"
serve="" pg=""
cleanup() {
  [ -n "$serve" ] && { kill "$serve" 2>/dev/null; wait "$serve" 2>/dev/null; }
  [ -n "$pg" ] && { kill "$pg" 2>/dev/null; wait "$pg" 2>/dev/null; }
  rm -rf "$work"
}
trap cleanup EXIT
export HOME="$work" XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config"
export BRAIN_RATE_LIMIT_RPS=100000 BRAIN_RATE_LIMIT_BURST=100000 BRAIN_LOG=error
if [ "$store" = postgres ]; then
  if [ -z "${BRAIN_DATABASE_URL:-}" ]; then
    node "$root/scripts/throwaway-postgres.js" $$ >"$work/pg.out" &
    pg=$!
    for _ in $(seq 1 120); do [ -s "$work/pg.out" ] && break; sleep 0.5; done
    BRAIN_DATABASE_URL="$(head -n1 "$work/pg.out")"
    [ -n "$BRAIN_DATABASE_URL" ] || { echo "fuzz-api: the throwaway PostgreSQL did not start" >&2; exit 1; }
  fi
  export BRAIN_DATABASE_URL
  store_args=()
else
  unset BRAIN_DATABASE_URL
  store_args=(--db "$work/brain.db")
fi
node "$root/bin/brain-mcp.js" serve --port 0 "${store_args[@]}" >"$work/serve.out" 2>"$work/serve.err" &
serve=$!
for _ in $(seq 1 120); do grep -q "listening on" "$work/serve.out" && break; sleep 0.5; done
url="$(grep -o 'listening on http[^ ]*' "$work/serve.out" | cut -d' ' -f3)"
[ -n "$url" ] || { echo "fuzz-api: serve did not start:" >&2; cat "$work/serve.err" >&2; exit 1; }
key="$(node "$root/bin/brain-mcp.js" admin workspace create --name fuzz "${store_args[@]}" --json | node -e 'process.stdin.on("data",d=>process.stdout.write(JSON.parse(d).api_key))')"
export BRAIN_FUZZ_URL="$url" BRAIN_FUZZ_KEY="$key" SCHEMATHESIS_HOOKS="$root/scripts/fuzz-hooks.py"
total_memories() { curl -s -H "Authorization: Bearer $key" "$url/v1/optimize/health" | node -e 'process.stdin.on("data",d=>process.stdout.write(String(JSON.parse(d).signals.total_memories)))'; }
before="$(total_memories)"
# A body over 64 KiB is a documented 413 (payload_too_large): a rejection like 422, not a failure.
cat >"$work/schemathesis.toml" <<'TOML'
[checks.negative_data_rejection]
expected-statuses = [400, 401, 403, 404, 405, 406, 409, 413, 415, 422, 428, 429]
TOML
st() { (cd "$work" && "$venv/bin/schemathesis" --config-file "$work/schemathesis.toml" run "$root/src/contract/openapi.json" --url "$url" -H "Authorization: Bearer $key" \
  --max-examples "$examples" --seed "$seed" --workers 1 "$@"); }
echo "fuzz-api: $store, $examples examples per operation, seed $seed"
st --checks all --exclude-checks positive_data_acceptance
st --checks positive_data_acceptance,rejected_store_writes_nothing --exclude-path /v1/memory/store
echo "fuzz-api: $store: workspace memories before $before, after $(total_memories) (only accepted stores write)"
