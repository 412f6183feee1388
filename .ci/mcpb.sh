#!/usr/bin/env bash
# The MCP Bundle (issue 20): builds it (scripts/mcpb/build.sh, from the packed adapter), validates the manifest it
# carries with `mcpb validate`, unpacks it as the zip it is into an empty folder, and runs the adapter from there over
# stdio exactly as the manifest's server.mcp_config says (scripts/mcpb/host-check.mjs, as client `claude-ai`) against
# a real `brain-mcp serve` on 127.0.0.1 with a key from `admin workspace create --json`. Prints the bundle's size.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/brain-mcpb-ci.XXXXXX")"
serve_pid=""
cleanup() { [ -z "$serve_pid" ] || kill "$serve_pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
say() { echo "mcpb: $*"; }
fail() { say "FAIL: $*" >&2; exit 1; }

# Nothing from this machine's config or data folders reaches the service or the adapter.
export npm_config_cache="${npm_config_cache:-$(npm config get cache)}"
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share"
mkdir -p "$HOME"
unset BRAIN_API_KEY BRAIN_BASE_URL BRAIN_CONFIG BRAIN_DATABASE_URL BRAIN_TOOL_NAMES
export BRAIN_DB="$work/brain.db"

cd "$root"
bundle="$(bash scripts/mcpb/build.sh "$work/out" | tail -n 1)"
[ -f "$bundle" ] || fail "scripts/mcpb/build.sh made no bundle"
unpacked="$work/unpacked"
python3 -m zipfile -e "$bundle" "$unpacked"
node_modules/.bin/mcpb validate "$unpacked/manifest.json" </dev/null || fail "the bundle's manifest does not validate"

# The key first (admin on the same SQLite file), then serve on a free port, ready once status answers with that key.
key="$(node bin/brain-mcp.js admin workspace create --name mcpb-check --json </dev/null | node -e 'process.stdout.write(JSON.parse(require("node:fs").readFileSync(0, "utf8")).api_key)')"
[ -n "$key" ] || fail "admin workspace create --json gave no api_key"
url="http://127.0.0.1:$(node -e 'const s=require("node:net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
node bin/brain-mcp.js serve --port "${url##*:}" </dev/null >"$work/serve.log" 2>&1 &
serve_pid=$!
until BRAIN_API_KEY="$key" BRAIN_BASE_URL="$url" node bin/brain-mcp.js status </dev/null >/dev/null 2>&1; do
  kill -0 "$serve_pid" 2>/dev/null || fail "serve exited: $(cat "$work/serve.log")"
  [ "$SECONDS" -lt 600 ] || fail "serve did not answer within 600 s"
  sleep 1
done

CHECK_API_KEY="$key" CHECK_BASE_URL="$url" timeout 300 node scripts/mcpb/host-check.mjs "$unpacked" \
  || fail "the adapter run from the unpacked bundle did not work against serve"
say "$(basename "$bundle"): $(( $(stat -c %s "$bundle") / 1024 )) KiB, $(( $(du -sk "$unpacked" | cut -f1) / 1024 )) MB unpacked"
say "ok"
