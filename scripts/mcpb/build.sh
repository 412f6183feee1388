#!/usr/bin/env bash
# Builds the MCP Bundle (.mcpb) that Claude Desktop installs with a click (issue 20): the adapter package as a user
# gets it (`npm pack`, whose prepack builds and checks it), installed with production dependencies only into a staging
# folder, beside manifest.json (this folder's, with package.json's version); validated and packed by the mcpb CLI.
# Usage: bash scripts/mcpb/build.sh [OUT_DIR] [ADAPTER_TARBALL]   (default dist/mcpb; packs the adapter when no tarball)
# Prints the bundle's path on its last line.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="$(mkdir -p "${1:-$root/dist/mcpb}" && cd "${1:-$root/dist/mcpb}" && pwd)"
tarball="${2:-}"
mcpb="$root/node_modules/.bin/mcpb"
[ -x "$mcpb" ] || { echo "mcpb build: $mcpb is missing: run npm ci" >&2; exit 1; }
work="$(mktemp -d "${TMPDIR:-/tmp}/brain-mcpb.XXXXXX")"
trap 'rm -rf "$work"' EXIT
export NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false NPM_CONFIG_UPDATE_NOTIFIER=false

cd "$root"
version="$(node -p 'require("./package.json").version')"
if [ -z "$tarball" ]; then
  tarball="$work/$(npm pack --silent --pack-destination "$work" </dev/null | tail -n 1)"
fi

stage="$work/stage"
mkdir -p "$stage"
# The adapter has no native module and needs no install script; the lock file is left out of the bundle.
echo '{ "name": "brain-mcp-bundle", "version": "0.0.0", "private": true, "type": "module" }' > "$stage/package.json"
(cd "$stage" && npm install --omit=dev --ignore-scripts --no-package-lock --loglevel=error "$tarball" </dev/null >/dev/null)
node -e '
  const fs = require("node:fs");
  const [from, to, version] = process.argv.slice(1);
  const manifest = JSON.parse(fs.readFileSync(from, "utf8"));
  manifest.version = version;
  fs.writeFileSync(to, JSON.stringify(manifest, null, 2) + "\n");
' "$root/scripts/mcpb/manifest.json" "$stage/manifest.json" "$version"
cp "$root/LICENSE" "$stage/LICENSE"
rm "$stage/package.json"

"$mcpb" validate "$stage/manifest.json" </dev/null >&2
bundle="$out/brain-mcp-$version.mcpb"
rm -f "$bundle"
"$mcpb" pack "$stage" "$bundle" </dev/null >&2
echo "mcpb build: $(basename "$bundle"): $(( $(stat -c %s "$bundle") / 1024 )) KiB packed, $(( $(du -sk "$stage" | cut -f1) / 1024 )) MB unpacked" >&2
echo "$bundle"
