#!/usr/bin/env bash
# server.json, the entry for the official MCP Registry, checked without the network (issue 29): skillsaw (PyPI) carries
# the registry's released server.json schemas and checks the schema, the enums, package.json's mcpName against
# server.json's name, and semantic versions. test/build/server-json.test.ts checks that it names this package and
# version and the settings the adapter reads.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
SKILLSAW_VERSION=0.22.0
venv="$(mktemp -d "${TMPDIR:-/tmp}/skillsaw.XXXXXX")"
trap 'rm -rf "$venv"' EXIT
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "skillsaw==$SKILLSAW_VERSION"
cd "$root"
"$venv/bin/skillsaw" lint --no-plugins --no-custom-rules --no-progress --strict \
  --rule mcp-registry-server-json-valid --rule mcp-registry-npm-name-match --rule mcp-registry-version-semver .
