#!/usr/bin/env bash
# Property-based fuzzing of the real `brain-mcp serve` from its OpenAPI document (src/contract/openapi.json) with
# schemathesis (pinned, from PyPI, in its own virtual environment under node_modules/.cache). Every check: no 5xx,
# every answer conforms to the document (status, headers, body), negative data is rejected, valid data accepted.
# One exception, stated: store's Idempotency-Key. The fuzzer reuses one key for different bodies, which the API
# answers 422 idempotency_key_reused by design (a stateful rule no schema can express), so "valid data accepted"
# runs on the other operations and the rest of the checks on all four.
#   scripts/fuzz-api.sh [EXAMPLES] [SEED]     (defaults: 100 examples per operation, seed 1; SQLite; or set
#                                              BRAIN_DATABASE_URL to fuzz a PostgreSQL store)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
examples="${1:-100}"
seed="${2:-1}"
venv="$root/node_modules/.cache/schemathesis-venv"
[ -f "$root/dist/index.js" ] || { echo "fuzz-api: run npm run build first" >&2; exit 2; }
if [ ! -x "$venv/bin/schemathesis" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check schemathesis==4.32.5
fi
work="$(mktemp -d)"
export HOME="$work" XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config"
export BRAIN_RATE_LIMIT_RPS=100000 BRAIN_RATE_LIMIT_BURST=100000 BRAIN_LOG=error
node "$root/bin/brain-mcp.js" serve --port 0 --db "$work/brain.db" >"$work/serve.out" 2>"$work/serve.err" &
serve=$!
trap 'kill $serve 2>/dev/null; wait $serve 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 120); do grep -q "listening on" "$work/serve.out" && break; sleep 0.5; done
url="$(grep -o 'listening on http[^ ]*' "$work/serve.out" | cut -d' ' -f3)"
key="$(node "$root/bin/brain-mcp.js" admin workspace create --name fuzz --db "$work/brain.db" --json | node -e 'process.stdin.on("data",d=>process.stdout.write(JSON.parse(d).api_key))')"
before="$(curl -s -H "Authorization: Bearer $key" "$url/v1/optimize/health" | node -e 'process.stdin.on("data",d=>process.stdout.write(String(JSON.parse(d).signals.total_memories)))')"
# A body over 64 KiB is a documented 413 (payload_too_large): a rejection like 422, not a failure.
cat >"$work/schemathesis.toml" <<'TOML'
[checks.negative_data_rejection]
expected-statuses = [400, 401, 403, 404, 405, 406, 409, 413, 415, 422, 428, 429]
TOML
st() { (cd "$work" && "$venv/bin/schemathesis" --config-file "$work/schemathesis.toml" run "$root/src/contract/openapi.json" --url "$url" -H "Authorization: Bearer $key" \
  --max-examples "$examples" --seed "$seed" "$@"); }
st --checks all --exclude-checks positive_data_acceptance
st --checks positive_data_acceptance --exclude-path /v1/memory/store
after="$(curl -s -H "Authorization: Bearer $key" "$url/v1/optimize/health" | node -e 'process.stdin.on("data",d=>process.stdout.write(String(JSON.parse(d).signals.total_memories)))')"
echo "fuzz-api: workspace memories before $before, after $after (only accepted stores write)"
