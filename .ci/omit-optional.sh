#!/usr/bin/env bash
# Proves DESIGN.md's promise: `npm install --omit=optional` gives a working adapter and client, and a service
# command without its optional packages says exactly what to install. Packs this checkout (dist must be built),
# installs the tarball into a throwaway project without optional dependencies, and drives it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/brain-omit-optional.XXXXXX")"
trap 'rm -rf "$work"' EXIT
fail() { echo "omit-optional: FAIL: $*" >&2; exit 1; }

# Nothing from this machine's config or data folders leaks in, and nothing is written there.
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share"
export npm_config_cache="${npm_config_cache:-$(npm config get cache)}"
mkdir -p "$HOME"

[ -f "$root/dist/index.js" ] || fail "dist/ is not built (run npm run build first)"
tarball="$(cd "$root" && npm pack --silent --pack-destination "$work" | tail -n 1)"

mkdir "$work/app"
cd "$work/app"
echo '{ "name": "omit-optional-check", "version": "1.0.0", "private": true, "type": "module" }' > package.json
npm install --omit=optional --no-audit --no-fund --prefer-offline --loglevel=error "$work/$tarball" >/dev/null

# (hono comes anyway: the MCP SDK depends on it.)
for pkg in better-sqlite3 pg onnxruntime-node @huggingface/tokenizers; do
  [ ! -e "node_modules/$pkg" ] || fail "optional package $pkg was installed"
done

# The client library imports and constructs.
node -e '
  const { Brain } = await import("brain-mcp");
  if (typeof Brain !== "function") throw new Error("brain-mcp exports no Brain class");
  const brain = new Brain({ apiKey: "svc_ws_" + "a".repeat(32) });
  if (typeof brain.memory?.store !== "function") throw new Error("brain.memory.store is missing");
  await brain.close?.();
' --input-type=module || fail "the client library does not load"

version="$(npx --no-install brain-mcp --version)" || fail "brain-mcp --version failed"
echo "omit-optional: brain-mcp --version -> $version"

# The adapter answers MCP initialize and tools/list over stdio with its four tools.
BRAIN_API_KEY="svc_ws_$(printf 'b%.0s' $(seq 32))" node "$root/.ci/mcp-smoke.mjs" "$work/app/node_modules/.bin/brain-mcp" \
  || fail "the MCP adapter did not list its tools"

# A service command without its packages exits non-zero and names what to install.
set +e
out="$(timeout 60 npx --no-install brain-mcp serve --port 0 </dev/null 2>&1)"
status=$?
set -e
[ "$status" -ne 0 ] || fail "brain-mcp serve succeeded without its optional packages"
[ "$status" -ne 124 ] || fail "brain-mcp serve hung without its optional packages"
grep -q "npm install" <<<"$out" || fail "brain-mcp serve did not say what to install: $out"
echo "omit-optional: brain-mcp serve without optional packages -> $(grep -m1 'npm install' <<<"$out")"
# So does the dashboard.
set +e
out="$(timeout 60 npx --no-install brain-mcp ui --port 0 </dev/null 2>&1)"
status=$?
set -e
[ "$status" -ne 0 ] && [ "$status" -ne 124 ] || fail "brain-mcp ui did not fail cleanly without its optional packages ($status)"
grep -q "npm install" <<<"$out" || fail "brain-mcp ui did not say what to install: $out"
echo "omit-optional: brain-mcp ui without optional packages -> $(grep -m1 'npm install' <<<"$out")"
echo "omit-optional: ok"
