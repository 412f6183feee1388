#!/usr/bin/env bash
# Builds the wheel and the sdist, then installs each into a clean virtual environment and imports it there.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
venv="$here/.venv"
[ -x "$venv/bin/python" ] || { echo "run python/scripts/test.sh first (it makes $venv)" >&2; exit 1; }
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$venv/bin/python" -m build --outdir "$out/dist" "$here" >/dev/null
for artifact in "$out"/dist/*.whl "$out"/dist/*.tar.gz; do
  python3 -m venv "$out/clean"
  "$out/clean/bin/python" -m pip install --quiet --disable-pip-version-check "$artifact"
  (cd "$out" && "$out/clean/bin/python" -c '
import brain_client, importlib.resources as r
assert r.files("brain_client").joinpath("py.typed").is_file(), "py.typed is missing"
brain_client.Brain(api_key="svc_ws_" + "a" * 32).close()
print("installed and imported", brain_client.__version__)')
  echo "  from $(basename "$artifact")"
  rm -rf "$out/clean"
done
