"""Recall latency of this checkout beside another (``--before SRC``), on one store, in turn.

For a change to the recall path that adds work to every search (such as the check that the
store's indexes hold every memory, which a recall reports as ``degraded`` when they do not):
one store of ``--size`` memories is filled once by the code before (bulk import, synthetic
MiniLM-like vectors, as bench/scale.py does), the queries are embedded once beforehand (so
the timing is the search beyond the query embedding, where such a change shows), then each
tree's code runs in a process of its own, ``--rounds`` times alternating, and times:

- ``read``: ``--queries`` recalls in a row (the store unchanged between them);
- ``after write``: a memory written (not timed), then one recall, ``--queries`` times: each
  recall sees a changed store, so whatever a recall re-checks after a change runs each time.

- ``embedding``: each query embedded by recall itself, less the same query's embedding alone
  just before it: what a user waits for beyond the model, with the full-text search beside
  the embedding as recall runs it.

``--locomo PATH --conversation conv-41`` fills the store with that LoCoMo conversation's
turns instead (MiniLM vectors) and asks its questions (categories 1-4).

Each cell is the median over the rounds of each round's median (p95 beside it).

    python bench/recall_overhead.py --before /tmp/before/src [--size 100000] [--queries 200]
                                    [--rounds 5] [--out bench/results/recall_overhead.json]
                                    [--locomo PATH [--conversation conv-41]]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import numpy as np

HERE = Path(__file__).parent
SRC = HERE.parent / "src"
KINDS = ("read", "after write", "embedding")


def child(home: Path, queries: Path, count: int) -> dict[str, Any]:
    """In the tree under test: open the store, time recalls (see the module's text)."""
    from bench_store import TextMaker, percentile
    from salience import Config, Memory
    from salience.embeddings.minilm import MiniLMEmbedder
    from salience.engine.record import QUERY_VECTORS

    given = json.loads(queries.read_text(encoding="utf-8"))
    texts = list(given)
    vectors = {t: np.array(v, dtype=np.float32) for t, v in given.items()}
    config = Config(home=home, signal_gate=False)
    maker = TextMaker(seed=os.getpid())
    out: dict[str, Any] = {}
    token = QUERY_VECTORS.set(vectors)
    try:
        with Memory.open(config=config, embedder=(model := MiniLMEmbedder())) as memory:
            for text in texts[:20]:  # (warm: vectors loaded, caches filled)
                memory.search(text, touch=False)
            read = []
            for text in texts[:count]:
                started = time.perf_counter()
                memory.search(text, touch=False)
                read.append(time.perf_counter() - started)
            QUERY_VECTORS.reset(token)
            alone, embedding = [], []
            for text in texts[:count]:
                started = time.perf_counter()
                model.embed([text])
                alone.append(time.perf_counter() - started)
                started = time.perf_counter()
                memory.search(text, touch=False)
                embedding.append(time.perf_counter() - started)
            token = QUERY_VECTORS.set(vectors)
            written = []
            for text in texts[:count]:
                memory.remember(maker.sentence(), force=True)
                started = time.perf_counter()
                memory.search(text, touch=False)
                written.append(time.perf_counter() - started)
    finally:
        QUERY_VECTORS.reset(token)
    for name, values in (("read", read), ("after write", written)):
        out[name] = {
            "median_ms": statistics.median(values) * 1000,
            "p95_ms": percentile(values, 95) * 1000,
        }
    beyond = [b - a for a, b in zip(alone, embedding, strict=True)]
    out["embedding"] = {
        "median_ms": statistics.median(beyond) * 1000,
        "p95_ms": percentile(beyond, 95) * 1000,
    }
    return out


def fill_store(
    home: Path, size: int, queries: int, out: Path, conversation: tuple[Path, str] | None
) -> None:
    from bench_store import TextMaker
    from salience import Config, Memory
    from salience.embeddings.minilm import MiniLMEmbedder
    from scale import POOL, fill

    if conversation is not None:
        fill_conversation(home, out, *conversation)
        return
    maker = TextMaker(seed=11)
    embedder = MiniLMEmbedder()
    pool = embedder.embed([maker.sentence() for _ in range(POOL)])
    texts = [maker.query() for _ in range(queries + 20)]
    asked = embedder.embed(texts)
    out.write_text(json.dumps({t: v.tolist() for t, v in zip(texts, asked, strict=True)}))
    with Memory.open(config=Config(home=home, signal_gate=False), embedder=None) as memory:
        fill(memory, size, maker, pool, seed=3)


def fill_conversation(home: Path, out: Path, path: Path, sample_id: str) -> None:
    """The store of one LoCoMo conversation's turns, and its questions' vectors in ``out``."""
    from locomo import load_store, turns
    from salience import Config, Memory
    from salience.embeddings.minilm import MiniLMEmbedder

    data = json.loads(path.read_text(encoding="utf-8"))
    found = [s for s in data if s["sample_id"] == sample_id]
    if not found:
        raise SystemExit(f"{path} has no conversation {sample_id!r}")
    sample = found[0]
    texts = [qa["question"] for qa in sample["qa"] if qa.get("category") in (1, 2, 3, 4)]
    embedder = MiniLMEmbedder()
    asked = embedder.embed(texts)
    out.write_text(json.dumps({t: v.tolist() for t, v in zip(texts, asked, strict=True)}))
    with Memory.open(config=Config(home=home, signal_gate=False), embedder=embedder) as memory:
        load_store(memory, sample_id, turns(sample["conversation"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="another checkout's src")
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "recall_overhead.json")
    parser.add_argument("--locomo", type=Path, help="a LoCoMo file: one conversation's store")
    parser.add_argument("--conversation", default="conv-41", help="with --locomo")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--fill", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.fill:
        conversation = (args.locomo, args.conversation) if args.locomo else None
        fill_store(Path(args.fill[0]), args.size, args.queries, Path(args.fill[1]), conversation)
        return
    if args.child:
        home, queries, count = args.child
        print(json.dumps(child(Path(home), Path(queries), int(count))))
        return
    from common import machine, print_table, write_results

    trees = {"before": args.before.resolve(), "this": SRC.resolve()}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory() as tmp:
        base, queries = Path(tmp) / "base", Path(tmp) / "queries.json"
        # Filled by the code before (a store made by newer code may not open in older code;
        # the newer code migrates its copy as it opens, before any timing).
        env = {**os.environ, "PYTHONPATH": f"{trees['before']}{os.pathsep}{HERE}"}
        command = [sys.executable, __file__, "--before", str(trees["before"])]
        command += ["--size", str(args.size), "--queries", str(args.queries)]
        if args.locomo:
            command += ["--locomo", str(args.locomo.resolve()), "--conversation", args.conversation]
        subprocess.run([*command, "--fill", str(base), str(queries)], check=True, env=env)
        for _ in range(args.rounds):
            for name, src in trees.items():
                home = Path(tmp) / name  # (a copy each round: the writes do not pile up)
                subprocess.run(["rm", "-rf", str(home)], check=True)
                subprocess.run(["cp", "-r", str(base), str(home)], check=True)
                env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{HERE}"}
                command = [sys.executable, __file__, "--before", str(src)]
                command += ["--child", str(home), str(queries), str(args.queries)]
                done = subprocess.run(command, check=True, capture_output=True, text=True, env=env)
                runs[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
    table: list[list[str]] = [["tree", "recall", "median ms", "p95 ms"]]
    summary: dict[str, Any] = {}
    for name in trees:
        for kind in KINDS:
            medians = [r[kind]["median_ms"] for r in runs[name]]
            p95s = [r[kind]["p95_ms"] for r in runs[name]]
            summary.setdefault(name, {})[kind] = {
                "median_ms": statistics.median(medians),
                "p95_ms": statistics.median(p95s),
            }
            table.append(
                [name, kind, f"{statistics.median(medians):.3f}", f"{statistics.median(p95s):.3f}"]
            )
    for kind in KINDS:
        ratio = summary["this"][kind]["median_ms"] / summary["before"][kind]["median_ms"]
        table.append(["this / before", kind, f"{ratio:.3f}", ""])
    store = f"LoCoMo {args.conversation}" if args.locomo else f"{args.size:,} memories"
    print(f"recall latency beyond the query embedding, {store}, {args.rounds} rounds")
    print_table(table, right_align_from=2)
    results = {
        "machine": machine(),
        "size": args.size,
        "store": store,
        "queries": args.queries,
        "rounds": args.rounds,
        "before": str(args.before),
        "summary": summary,
        "runs": runs,
    }
    write_results(args.out, results)


if __name__ == "__main__":
    main()
