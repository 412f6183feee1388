"""Would int8 arithmetic keep the sentence model genuine? A trial run by hand, never in CI (docs/decisions.md, "int8
arithmetic and a reader model, measured and not adopted").

    python3 -m venv /tmp/qv && /tmp/qv/bin/pip install onnxruntime==1.23.2 onnx numpy
    /tmp/qv/bin/python scripts/model/int8-trial.py /tmp/int8-trial

Folds the shipped model (int8-stored weights, fp32 arithmetic) into a plain fp32 graph, builds ONNX Runtime's int8
variants of it, and prints for each the min and mean cosine to the original package's vectors over the 50 sentences of
test/fixtures/minilm/reference.json (the genuineness test asks >= 0.99 for every one) and the CPU time per text of
20-28 tokens on one thread, alternated over three rounds.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnxruntime.quantization import QuantType, quantize_dynamic
from onnxruntime.quantization import matmul_nbits_quantizer as nbits

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "src/service/models/embed/data/minilm/model.onnx"
REFERENCE = json.loads((ROOT / "test/fixtures/minilm/reference.json").read_text())["sentences"]
OUT = Path(sys.argv[1]).resolve()
OUT.mkdir(parents=True, exist_ok=True)


def session(path: Path, level=ort.GraphOptimizationLevel.ORT_ENABLE_ALL, save: Path | None = None):
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.graph_optimization_level = level
    if save:
        options.optimized_model_filepath = str(save)
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def embed(s, ids: list[int]) -> np.ndarray:
    x = np.array([ids], dtype=np.int64)
    hidden = s.run(None, {"input_ids": x, "attention_mask": np.ones_like(x), "token_type_ids": np.zeros_like(x)})[0][0]
    v = hidden.mean(0)
    return v / np.linalg.norm(v)


def build() -> dict[str, Path]:
    fp32 = OUT / "fp32.onnx"
    session(SHIPPED, ort.GraphOptimizationLevel.ORT_ENABLE_BASIC, fp32)  # constant-folds Cast(int8) * scale
    names = [n.name for n in onnx.load(fp32).graph.node if n.op_type == "MatMul"]
    scores = [n for n in names if n.endswith(("self/MatMul", "self/MatMul_1"))]  # activation x activation
    sensitive = [f"/bert/encoder/layer.{k}/output/dense/MatMul" for k in (0, 1, 2)]
    sensitive.append("/bert/encoder/layer.4/intermediate/dense/MatMul")
    variants = {"shipped (fp32 arithmetic)": SHIPPED}
    dynamic = OUT / "dynamic.onnx"
    quantize_dynamic(fp32, dynamic, per_channel=True, weight_type=QuantType.QInt8, op_types_to_quantize=["MatMul"],
                     nodes_to_exclude=scores)
    variants["dynamic int8, per-channel weights"] = dynamic
    partial = OUT / "dynamic-partial.onnx"
    quantize_dynamic(fp32, partial, per_channel=True, weight_type=QuantType.QInt8, op_types_to_quantize=["MatMul"],
                     nodes_to_exclude=scores + sensitive)
    variants["dynamic int8, 4 most sensitive MatMuls fp32"] = partial
    for block in (128, 32):
        model = onnx.load(fp32)
        config = nbits.DefaultWeightOnlyQuantConfig(block_size=block, is_symmetric=True, accuracy_level=4, bits=8)
        q = nbits.MatMulNBitsQuantizer(model, block_size=block, is_symmetric=True, accuracy_level=4,
                                       algo_config=config)
        q.process()
        path = OUT / f"nbits8-{block}.onnx"
        q.model.save_model_to_file(str(path), use_external_data_format=False)
        variants[f"MatMulNBits 8-bit, block {block}, int8 compute"] = path
    return variants


def main() -> None:
    variants = build()
    sessions = {name: session(path) for name, path in variants.items()}
    for name, s in sessions.items():
        cosines = np.array([float(embed(s, r["ids"]) @ (np.array(r["vector"]) / np.linalg.norm(r["vector"])))
                            for r in REFERENCE])
        worst = REFERENCE[int(cosines.argmin())]["text"][:30]
        print(f"{name:48s} min {cosines.min():.4f} mean {cosines.mean():.5f} under 0.99: {(cosines < 0.99).sum()} "
              f"(worst {worst!r})")
    queries = [r["ids"] for r in REFERENCE if 20 <= len(r["ids"]) <= 28]
    for round_ in range(3):
        for name, s in sessions.items():
            times = []
            for _ in range(40):
                for ids in queries:
                    t0 = time.process_time()
                    embed(s, ids)
                    times.append(time.process_time() - t0)
            print(f"round {round_} {name:48s} CPU per text p50 {1e3 * np.median(times):.2f} ms")


if __name__ == "__main__":
    main()
