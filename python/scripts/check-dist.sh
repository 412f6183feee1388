#!/usr/bin/env bash
# Builds the wheel and the sdist, then installs each into a clean virtual environment and imports it there.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
venv="$here/.venv"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
# python/scripts/test.sh's environment has `build`; without it (CI runs the tests in a copy of the clone), one of its own.
if [ -x "$venv/bin/python" ]; then
  py="$venv/bin/python"
else
  python3 -m venv "$out/build-env"
  "$out/build-env/bin/python" -m pip install --quiet --disable-pip-version-check "build==1.6.1"  # as pyproject.toml's test extras pin it
  py="$out/build-env/bin/python"
fi
"$py" -m build --outdir "$out/dist" "$here" >/dev/null
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
