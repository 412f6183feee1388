#!/usr/bin/env bash
# Installs both packages the way a user does and drives them (issues 20, 29): `npm pack` the adapter package (brain-mcp,
# prepack builds and checks it) and the service package (brain-mcp-service, staged by scripts/package/service.js),
# serve both tarballs from a registry (.ci/tiny-registry.mjs; every other package comes from the npm registry, the
# machine reaches nothing else) and install them BY NAME as the README says: the adapter into an empty project, the
# service with `npm install -g` (into a prefix of this check's own). Then: the adapter alone against the global
# `brain-mcp-service serve` (initialize, tools/list, remember, recall over stdio), `brain-mcp-service --embedded` end
# to end, and `brain-mcp serve` once the adapter is installed globally beside it. Prints both installed sizes and
# install times; fails beyond the size goals (adapter 15 MB, service 200 MB).
# The native model runtime (issue 27): this platform's @brain-mcp/onnxruntime-<target> is built from the official
# onnxruntime-node tarball (scripts/onnxruntime/) and packed too, as it cannot be published from here, and served by
# the same registry, so npm picks it as the service's optional dependency as it would for a user; serve's log must say
# the native runtime runs (on Linux x64), and the genuineness test passes on the runtime installed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/brain-install.XXXXXX")"
serve_pid="" registry_pid=""
cleanup() {
  [ -z "$serve_pid" ] || kill "$serve_pid" 2>/dev/null || true
  [ -z "$registry_pid" ] || kill "$registry_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
say() { echo "install-like-a-user: $*"; }
fail() { say "FAIL: $*" >&2; exit 1; }
ADAPTER_MAX_MB=15 ADAPTER_GOAL_S=15 SERVICE_MAX_MB=200

# Nothing from this machine's config or data folders leaks in, and nothing is written there; the npm cache stays warm,
# and better-sqlite3 (compiled where no prebuilt binary can be fetched) keeps finding Node's headers where npm's config
# says they are (a Debian node: nodedir=/usr).
export npm_config_cache="${npm_config_cache:-$(npm config get cache)}"
nodedir="$(npm config get nodedir 2>/dev/null || true)"
[ -z "$nodedir" ] || [ "$nodedir" = undefined ] || export npm_config_nodedir="$nodedir"
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share"
export NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false NPM_CONFIG_UPDATE_NOTIFIER=false
mkdir -p "$HOME"
unset BRAIN_API_KEY BRAIN_BASE_URL BRAIN_CONFIG BRAIN_DB BRAIN_DATABASE_URL

cd "$root"
adapter_tgz="$work/$(npm pack --silent --pack-destination "$work" | tail -n 1)"
service_tgz="$(node scripts/package/service.js --pack "$work" | tail -n 1)"
say "packed $(basename "$adapter_tgz") ($(( $(stat -c %s "$adapter_tgz") / 1024 )) KiB) and $(basename "$service_tgz") ($(( $(stat -c %s "$service_tgz") / 1024 / 1024 )) MiB)"
# The host's native runtime package, when there is one for it (checked against scripts/onnxruntime/checksums.json).
native_tgz=() expect_runtime=wasm
case "$(uname -s)-$(uname -m)" in Linux-x86_64) expect_runtime=native ;; esac
if packed="$(node scripts/onnxruntime/build-platform-packages.js --target host --pack "$work" 2>"$work/native.err")"; then
  native_tgz=("$(tail -n 1 <<<"$packed" | cut -d' ' -f1)")
  say "packed $(basename "${native_tgz[0]}") ($(( $(stat -c %s "${native_tgz[0]}") / 1024 / 1024 )) MiB), $(tail -n 1 <<<"$packed" | cut -d' ' -f2-)"
  tar -xzOf "${native_tgz[0]}" package/package.json | node -e '
    const m = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
    if (m.scripts && Object.keys(m.scripts).length) throw new Error("the native package has scripts: " + JSON.stringify(m.scripts));' \
    || fail "the native runtime package must have no install script"
elif [ "$expect_runtime" = native ]; then
  fail "no native runtime package for this machine: $(cat "$work/native.err")"
else
  say "no native runtime package for this machine: $(cat "$work/native.err")"
fi

upstream="$(npm config get registry)"
node "$root/.ci/tiny-registry.mjs" "$upstream" "$adapter_tgz" "$service_tgz" "${native_tgz[@]}" >"$work/registry.url" 2>"$work/registry.log" &
registry_pid=$!
for _ in $(seq 1 100); do [ -s "$work/registry.url" ] && break; sleep 0.1; done
registry="$(cat "$work/registry.url")"
[ -n "$registry" ] || fail "the registry did not start: $(cat "$work/registry.log")"
export npm_config_registry="$registry"
say "the packed tarballs served by name from $registry (everything else from $upstream)"

# timed <folder to measure> <npm install arguments...>: prints seconds and MB.
timed() {
  local measured="$1"; shift
  local started; started=$(date +%s%3N)
  npm install --no-audit --no-fund --prefer-offline --loglevel=error "$@" </dev/null >/dev/null
  millis=$(( $(date +%s%3N) - started ))
  seconds="$(( millis / 1000 )).$(( millis % 1000 / 100 ))"
  megabytes=$(( $(du -sk "$measured" | cut -f1) / 1024 ))
}
# install <dir> <package...>: an empty project, the packages installed by name.
install() {
  local dir="$1"; shift
  mkdir -p "$dir" && cd "$dir"
  echo '{ "name": "install-check", "version": "1.0.0", "private": true, "type": "module" }' > package.json
  timed node_modules "$@"
}

install "$work/adapter" brain-mcp
adapter_line="adapter package: ${megabytes} MB installed in ${seconds} s (goal ≤ ${ADAPTER_MAX_MB} MB, ≤ ${ADAPTER_GOAL_S} s from a warm cache)"
say "$adapter_line; packages: $(ls node_modules | tr '\n' ' ')"
[ "$megabytes" -le "$ADAPTER_MAX_MB" ] || fail "$adapter_line"
[ "$millis" -le $(( ADAPTER_GOAL_S * 1000 )) ] || say "WARNING: over the install time goal (load average $(cut -d' ' -f1-3 /proc/loadavg))"
[ -z "$(find node_modules -name '*.node' -print -quit)" ] || fail "the adapter package installed a native module"
node --input-type=module -e '
  const { Brain } = await import("brain-mcp");
  const brain = new Brain({ apiKey: "svc_ws_" + "a".repeat(32) });
  if (typeof brain.memory?.store !== "function") throw new Error("brain.memory.store is missing");
  await brain.close?.();
' || fail "the client library does not load"
set +e
out="$(timeout 60 node_modules/.bin/brain-mcp serve --port 0 </dev/null 2>&1)"; status=$?
set -e
[ "$status" -ne 0 ] && [ "$status" -ne 124 ] || fail "brain-mcp serve without the service package did not fail cleanly ($status)"
grep -q "npm install -g brain-mcp-service" <<<"$out" || fail "brain-mcp serve without the service package did not say what to install: $out"
say "adapter alone: brain-mcp serve -> $out"

# The README's line: `npm install -g brain-mcp-service`, here into a prefix of this check's own.
global="$work/global"
mkdir -p "$global" && cd "$work"
timed "$global/lib/node_modules" -g --prefix "$global" brain-mcp-service
service_line="service package: ${megabytes} MB installed globally in ${seconds} s with the adapter (goal ≤ ${SERVICE_MAX_MB} MB)"
say "$service_line"
[ "$megabytes" -le "$SERVICE_MAX_MB" ] || fail "$service_line"
[ -x "$global/bin/brain-mcp-service" ] || fail "npm install -g brain-mcp-service linked no brain-mcp-service command"
say "npm install -g brain-mcp-service linked: $(ls "$global/bin" | tr '\n' ' ')"
"$global/bin/brain-mcp-service" --help | grep -q "brain-mcp serve" || fail "brain-mcp-service --help did not print the usage"
say "native runtime packages installed: $(ls "$global/lib/node_modules/brain-mcp-service/node_modules/@brain-mcp" "$global/lib/node_modules/@brain-mcp" 2>/dev/null | tr '\n' ' ')"
[ -z "$(find "$global/lib/node_modules" -name 'onnxruntime-node' -print -quit)" ] || fail "onnxruntime-node (with its install script) was installed"
(cd "$global/lib" && node "$root/.ci/genuine-installed.mjs" "$root/test/fixtures/minilm/reference.json" --expect "$expect_runtime") \
  || fail "the installed model runtime is not the expected one, or not genuine"

# `serve` from the service package's own command, on a free port, in this check's own data folder.
"$global/bin/brain-mcp-service" serve --port 0 </dev/null >"$work/serve.log" 2>&1 &
serve_pid=$!
for _ in $(seq 1 240); do
  grep -q "listening on" "$work/serve.log" && break
  kill -0 "$serve_pid" 2>/dev/null || fail "serve exited: $(cat "$work/serve.log")"
  sleep 0.5
done
url="$(grep -o 'listening on http://[0-9.:]*' "$work/serve.log" | cut -d' ' -f3)"
key="$(grep -o 'svc_ws_[A-Za-z0-9]*' "$work/serve.log" | head -n 1)"
[ -n "$url" ] && [ -n "$key" ] || fail "serve did not print its address and a key: $(cat "$work/serve.log")"
runtime_line="$(grep '"model runtime"' "$work/serve.log" || true)"
say "serve: $runtime_line"
grep -q "\"runtime\":\"$expect_runtime\"" <<<"$runtime_line" || fail "serve's model runtime is not $expect_runtime: $runtime_line"

cd "$work/adapter"
BRAIN_API_KEY="$key" BRAIN_BASE_URL="$url" node "$root/.ci/mcp-smoke.mjs" --calls node_modules/.bin/brain-mcp \
  || fail "the adapter package alone did not work against serve"
kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true; serve_pid=""

cd "$work"
node "$root/.ci/mcp-smoke.mjs" --calls "$global/bin/brain-mcp-service" --embedded || fail "brain-mcp-service --embedded did not work"

# Both installed globally: the adapter's own `brain-mcp serve` finds the service beside it.
timed "$global/lib/node_modules" -g --prefix "$global" brain-mcp
set +e
out="$(timeout 120 "$global/bin/brain-mcp" serve --port 0 --help </dev/null 2>&1)"; status=$?
set -e
[ "$status" -eq 0 ] && grep -qi "serve" <<<"$out" || fail "brain-mcp serve did not find the globally installed service ($status): $out"
say "npm install -g brain-mcp beside it: brain-mcp serve --help answers from the service package"
say "$adapter_line"
say "$service_line"
say "ok"
