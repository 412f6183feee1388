#!/usr/bin/env bash
# The Python client's checks, from nothing: a virtual environment in python/.venv (made when missing), the package
# with its pinned test extras, then ruff, mypy --strict and pytest. The real-service tests need the repository's
# `npm run build` (dist/) first; `npm test` runs this after building.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
venv="$here/.venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip >/dev/null
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$here[test]"
cd "$here"
"$venv/bin/ruff" check src tests
"$venv/bin/ruff" format --check src tests
"$venv/bin/mypy"
"$venv/bin/pytest" -q -p no:cacheprovider "$@"
