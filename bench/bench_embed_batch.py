"""How much faster the bundled embedder could go in batches: the ceiling, measured.

    python bench/bench_embed_batch.py [--texts 1000] [--rounds 5] [--locomo PATH] [--out FILE]

The shipped embedder (`MiniLMEmbedder.embed`) runs each text alone, one single-thread
onnxruntime session per core, because the int8 graph quantizes activations with one scale
per input tensor: a batched run would make a text's vector depend on its batch mates. This
benchmark runs the *same* int8 graph on padded batches (texts sorted by length so padding is
least, one session with one thread per core) beside the shipped path, round by round in turn
in one process, on the same texts. The batched run does no extra work to keep vectors equal,
so its speed is an upper bound for any batch path that does; the table also shows how far its
vectors move from the shipped ones (``1 - cosine``, largest over the texts).

Texts are LoCoMo turns with ``--locomo PATH`` (real chat: ~20 words), else synthetic
sentences of 8-40 words. Prints a table (median texts/s per path, ratio to shipped) and writes
JSON (default bench/results/embed_batch.json).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from bench_store import TextMaker
from common import machine, print_table, write_results
from salience.embeddings.arrays import normalise
from salience.embeddings.minilm import MiniLMEmbedder

BATCH_SIZES = (8, 32, 128)


def locomo_texts(path: Path, count: int) -> list[str]:
    """The first ``count`` turns of a LoCoMo file, as bench/locomo.py writes them."""
    out = []
    for sample in json.loads(path.read_text(encoding="utf-8")):
        for key, value in sample["conversation"].items():
            if key.startswith("session_") and isinstance(value, list):
                out += [f"{turn['speaker']}: {turn['text']}" for turn in value]
    return out[:count]


def padded_batches(
    encoded: Sequence[Any], size: int
) -> list[tuple[list[int], np.ndarray, np.ndarray]]:
    """Rows in batches of ``size`` by token count: (rows, input ids, attention mask), each
    batch padded with zeros to its longest text."""
    order = sorted(range(len(encoded)), key=lambda row: (len(encoded[row].ids), row))
    batches = []
    for start in range(0, len(order), size):
        rows = order[start : start + size]
        width = max(len(encoded[row].ids) for row in rows)
        ids = np.zeros((len(rows), width), dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=np.int64)
        for i, row in enumerate(rows):
            tokens = encoded[row].ids
            ids[i, : len(tokens)] = tokens
            mask[i, : len(tokens)] = 1
        batches.append((rows, ids, mask))
    return batches


def batched_embed(session: Any, tokenizer: Any, texts: Sequence[str], size: int) -> np.ndarray:
    """The int8 graph over padded batches of ``size``; rows back in the texts' order."""
    out = np.zeros((len(texts), 384), dtype=np.float32)
    for rows, ids, mask in padded_batches(tokenizer.encode_batch(list(texts)), size):
        (pooled,) = session.run(None, {"input_ids": ids, "attention_mask": mask})
        out[rows] = pooled
    return normalise(out)


def batch_session(model: MiniLMEmbedder) -> Any:
    """One session on the shipped graph with one thread per core (the shipped path uses
    one session per core instead)."""
    import onnxruntime as ort

    model.embed(["load the model"])
    options = ort.SessionOptions()
    options.intra_op_num_threads = os.cpu_count() or 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    return ort.InferenceSession(model._model, options, providers=["CPUExecutionProvider"])


def max_cosine_distance(a: np.ndarray, b: np.ndarray) -> float:
    """The largest ``1 - cosine`` between rows of ``a`` and ``b`` (in float64: 0 for equal rows)."""
    x, y = a.astype(np.float64), b.astype(np.float64)
    cosine = np.sum(x * y, axis=1) / (np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1))
    return float(np.max(1.0 - cosine))


def rate(run: Callable[[], np.ndarray], count: int) -> tuple[float, np.ndarray]:
    started = time.perf_counter()
    vectors = run()
    return count / (time.perf_counter() - started), vectors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--texts", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--locomo", type=Path, default=None, help="a LoCoMo JSON file")
    parser.add_argument("--out", default="bench/results/embed_batch.json")
    args = parser.parse_args()

    if args.locomo is not None:
        texts = locomo_texts(args.locomo, args.texts)
    else:
        maker = TextMaker()
        texts = [maker.sentence() for _ in range(args.texts)]
    model = MiniLMEmbedder()
    session = batch_session(model)
    tokenizer = model._tokenizer
    paths: dict[str, Callable[[], np.ndarray]] = {
        "shipped (one text per run)": lambda: model.embed(texts)
    }
    for size in BATCH_SIZES:
        paths[f"batch {size}"] = lambda size=size: batched_embed(session, tokenizer, texts, size)
    rates: dict[str, list[float]] = {name: [] for name in paths}
    vectors: dict[str, np.ndarray] = {}
    for _ in range(args.rounds):
        for name, run in paths.items():
            per_s, vectors[name] = rate(run, len(texts))
            rates[name].append(per_s)
    shipped = vectors["shipped (one text per run)"]
    base = statistics.median(rates["shipped (one text per run)"])
    rows = [["path", "texts/s (median)", "x shipped", "max 1 - cosine to shipped"]]
    results: dict[str, object] = {
        "machine": machine(),
        "texts": len(texts),
        "source": "locomo" if args.locomo else "synthetic",
        "rounds": args.rounds,
        "paths": {},
    }
    for name, per_s in rates.items():
        drift = max_cosine_distance(vectors[name], shipped)
        median = statistics.median(per_s)
        shown = "0" if drift < 1e-12 else f"{drift:.1e}"
        rows.append([name, f"{median:.0f}", f"{median / base:.2f}", shown])
        results["paths"][name] = {"texts_per_s": per_s, "median": median, "max_drift": drift}  # type: ignore[index]
    print_table(rows, right_align_from=1)
    print(f"{len(texts)} texts ({results['source']}), {args.rounds} rounds, in turn")
    print("target (#22): a batch path at >= 2x shipped with vectors equal to shipped")
    write_results(args.out, results)


if __name__ == "__main__":
    main()
