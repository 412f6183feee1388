#!/usr/bin/env bash
# The container image (issue 20, scripts/container/): built with Debian's podman from a Debian base image that
# debootstrap makes from Debian's mirror (no image registry is reachable from CI), then run twice, each time bounded:
# on SQLite in its volume and over a throwaway PostgreSQL. Each run: the image's own HEALTHCHECK turns healthy, the
# service runs as the unprivileged user, a key from `admin workspace create --json` (exec'd in the container) gets
# status, and a memory remembered through the repository's CLI comes back from recall. Over PostgreSQL the health check
# must turn unhealthy once the database is gone. The image runs the sentence model on the native CPU runtime (issue 27):
# the SQLite run's log must say so. Prints the image's size and the build time.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/brain-container-ci.XXXXXX")"
tag="localhost/brain-mcp-service:ci-$$"
containers=() pg_pid=""
cleanup() {
  for name in "${containers[@]}"; do podman rm -f -t 2 "$name" >/dev/null 2>&1 || true; done
  [ -z "$pg_pid" ] || kill "$pg_pid" 2>/dev/null || true
  podman rmi -f "$tag" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM  # .ci/run bounds this script with timeout: clean up then too
say() { echo "container: $*"; }
fail() { say "FAIL: $*" >&2; exit 1; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo -n "$@"; fi; }

missing=()
# iptables: podman's bridge network publishes ports with it (Debian's podman only suggests it).
for tool in podman runc debootstrap iptables; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [ "${#missing[@]}" -gt 0 ]; then
  as_root apt-get update -qq
  as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null >/dev/null
fi

# What these machines need (each was an exact error with podman's defaults): runc, as crun refuses the hybrid cgroup
# layout ("cgroups in hybrid mode not supported, drop all controllers from cgroupv2"); limits no higher than the
# machine's, as the sandbox lacks CAP_SYS_RESOURCE ("setrlimit `RLIMIT_NOFILE`: Operation not permitted"). The build
# and the PostgreSQL run use the host's network (apt in the build; the throwaway PostgreSQL listens on 127.0.0.1 only).
machine=(--runtime runc --ulimit "nofile=$(ulimit -Sn):$(ulimit -Hn)" --ulimit nproc=4096:4096)
# Without systemd podman cannot schedule the health check (it says so on every run and exec); drive() runs it instead.
quiet() { "$@" 2> >(grep -v "unable to get systemd connection" >&2); }

cd "$root"
started=$(date +%s)
base="$(bash scripts/container/debian-base.sh | tail -n 1)"
built_at=$(date +%s)
BASE="$base" CONTAINER_BUILD_FLAGS="${machine[*]} --network host" bash scripts/container/build.sh "$tag" >"$work/build.log" 2>&1 \
  || { tail -n 40 "$work/build.log" >&2; fail "the image did not build"; }
say "built $tag in $(( $(date +%s) - built_at )) s: $(podman image inspect --format '{{.Size}}' "$tag" | awk '{printf "%d MB", $1/1e6}') (base $base ready in $(( built_at - started )) s)"
[ "$(podman image inspect --format '{{.Config.User}}' "$tag")" = brain ] || fail "the image does not run as user brain"
podman image inspect --format '{{json .Config.Healthcheck}}' "$tag" | grep -q healthcheck.mjs || fail "the image has no HEALTHCHECK"

free_port() { node -e 'const s=require("node:net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

# drive NAME PORT: waits for the image's health check, then status, remember and recall through the repository's CLI.
drive() {
  local name="$1" port="$2" healthy=""
  for _ in $(seq 1 90); do
    if podman healthcheck run "$name" >/dev/null 2>&1; then healthy=1; break; fi
    [ "$(podman inspect --format '{{.State.Running}}' "$name")" = true ] || { podman logs "$name" >&2; fail "$name exited"; }
    sleep 2
  done
  [ -n "$healthy" ] || { podman logs "$name" >&2; fail "$name never turned healthy"; }
  [ "$(quiet podman exec "$name" id -u)" = 10001 ] || fail "$name's service does not run as uid 10001"
  local key
  key="$(quiet podman exec "$name" brain-mcp-service admin workspace create --name container-check --json \
    | node -e 'process.stdout.write(JSON.parse(require("node:fs").readFileSync(0, "utf8")).api_key)')"
  [ -n "$key" ] || fail "admin workspace create --json gave no api_key in $name"
  export BRAIN_API_KEY="$key" BRAIN_BASE_URL="http://127.0.0.1:$port"
  timeout 60 node bin/brain-mcp.js status --json >"$work/status.json" || fail "status against $name failed: $(cat "$work/status.json")"
  grep -q '"workspace_status": *"active"' "$work/status.json" || fail "status against $name: $(cat "$work/status.json")"
  local marker="quay$(date +%s%N | tail -c 7)"
  timeout 60 node bin/brain-mcp.js remember "The container runbook is the ${marker} page, kept by Tomas." >/dev/null || fail "remember against $name failed"
  timeout 60 node bin/brain-mcp.js recall "Where is the container runbook (${marker})?" --json | grep -q "$marker" \
    || fail "recall against $name did not return the memory"
  unset BRAIN_API_KEY BRAIN_BASE_URL
  say "$name: healthy, uid 10001, status active, remember then recall returned the memory"
}

export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config"
mkdir -p "$HOME"
unset BRAIN_CONFIG BRAIN_DB BRAIN_DATABASE_URL

# SQLite in the image's volume, the image's own command, published on the host's loopback as the README shows; then
# `podman stop` (SIGTERM to serve, which is PID 1) must end it cleanly well within the grace period.
port="$(free_port)" name="brain-ci-sqlite-$$"
containers+=("$name")
quiet podman run -d --name "$name" "${machine[@]}" -p "127.0.0.1:$port:8787" "$tag" >/dev/null
drive "$name" "$port"
# the image runs the sentence model on the native CPU runtime (its log says which, once at start)
runtime_line="$(podman logs "$name" 2>&1 | grep '"model runtime"' || true)"
say "$name: $runtime_line"
grep -q '"runtime":"native"' <<<"$runtime_line" || fail "$name does not run the native model runtime: $runtime_line"
stopping=$(date +%s)
quiet podman stop -t 30 "$name" >/dev/null
[ "$(podman inspect --format '{{.State.ExitCode}}' "$name")" = 0 ] || { podman logs "$name" >&2; fail "$name did not exit 0 on SIGTERM"; }
say "$name: stopped by SIGTERM in $(( $(date +%s) - stopping )) s, exit 0"

# PostgreSQL: a throwaway cluster on the host's loopback; once it is gone the health check must fail.
node scripts/throwaway-postgres.js $$ >"$work/pg.url" 2>"$work/pg.log" &
pg_pid=$!
for _ in $(seq 1 120); do [ -s "$work/pg.url" ] && break; kill -0 "$pg_pid" 2>/dev/null || fail "PostgreSQL did not start: $(cat "$work/pg.log")"; sleep 0.5; done
port="$(free_port)" name="brain-ci-postgres-$$"
containers+=("$name")
quiet podman run -d --name "$name" "${machine[@]}" --network host -e BRAIN_HEALTHCHECK_PORT="$port" -e BRAIN_DATABASE_URL="$(head -n 1 "$work/pg.url")" "$tag" \
  serve --host 127.0.0.1 --port "$port" >/dev/null
drive "$name" "$port"
kill "$pg_pid"; wait "$pg_pid" 2>/dev/null || true; pg_pid=""
! podman healthcheck run "$name" >/dev/null 2>&1 || fail "$name stayed healthy with its database gone"
say "$name: unhealthy once PostgreSQL stopped, as it should be"
say "ok in $(( $(date +%s) - started )) s"
