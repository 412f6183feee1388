#!/usr/bin/env bash
# Builds the service's container image (Dockerfile beside this script) from this repository: packs the adapter and the
# service package (as npm would publish them) and the native model runtime's package for the image's Linux (glibc)
# architecture, this machine's (scripts/onnxruntime/; it cannot be published from here), into a build context, then
# builds with podman (or docker).
# Usage: bash scripts/container/build.sh [TAG]   (default brain-mcp-service:VERSION)
# Env: CONTAINER_ENGINE (podman or docker; default whichever is installed), BASE (a Debian 13 image; default Debian's
# trixie-slim), CONTAINER_BUILD_FLAGS (more flags for the build, e.g. --network host). Prints the tag on its last line.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
engine="${CONTAINER_ENGINE:-$(command -v podman >/dev/null && echo podman || echo docker)}"
version="$(node -p 'require(process.argv[1]).version' "$root/package.json")"
tag="${1:-brain-mcp-service:$version}"
context="$(mktemp -d "${TMPDIR:-/tmp}/brain-image.XXXXXX")"
trap 'rm -rf "$context"' EXIT

cd "$root"
npm pack --silent --pack-destination "$context" </dev/null >/dev/null
node scripts/package/service.js --pack "$context" </dev/null >/dev/null
case "$(uname -m)" in
  x86_64 | amd64) native_target=linux-x64-gnu ;;
  aarch64 | arm64) native_target=linux-arm64-gnu ;;
  *) native_target="" ;;
esac
# the image is Debian (glibc) on this machine's architecture; elsewhere the image runs the model on WebAssembly
[ -z "$native_target" ] || node scripts/onnxruntime/build-platform-packages.js --target "$native_target" --pack "$context" </dev/null >/dev/null
cp scripts/container/Dockerfile scripts/container/healthcheck.mjs "$context/"
# The certificate authorities this machine adds for npm's registry (a TLS-inspecting network), for the build stage only.
if [ -r "${NODE_EXTRA_CA_CERTS:-}" ]; then cp "$NODE_EXTRA_CA_CERTS" "$context/extra-ca.pem"; else : >"$context/extra-ca.pem"; fi
# --format docker: the OCI image format has no HEALTHCHECK, and podman drops it there.
format=(); [ "$engine" = podman ] && format=(--format docker)
# shellcheck disable=SC2086 # CONTAINER_BUILD_FLAGS is a list of flags
"$engine" build "${format[@]}" ${BASE:+--build-arg "BASE=$BASE"} ${CONTAINER_BUILD_FLAGS:-} -t "$tag" "$context" >&2
echo "$tag"
