"""How long ``salience eval`` takes on a store of N memories (the goal: seconds at 10k).

The store is built as a user's grows: N memories of generated text with the bundled
embedder (one in 200 with a title), 50 of them superseded, 50 decisions with topics, and 50
recalls whose first hit was then used (the record and its feedback, written by the engine's
own verbs). Then it times ``salience eval`` as a user runs it, in a new process (start, open,
model, probes), alone and with an alternative profile (twice the searches), the median of
``--runs``. Prints a table and writes JSON (default bench/results/eval_speed.json).

    python bench/eval_speed.py [--size 10000] [--runs 3] [--embedder minilm|none] [--entities]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from bench_store import TextMaker
from common import machine, print_table, write_results
from salience import Config, Memory
from salience.evaluation import probes as drawn


def build(memory: Memory, size: int, maker: TextMaker) -> None:
    lines = [
        json.dumps(
            {"content": maker.sentence(), "type": "fact"}
            | ({"title": maker.sentence(3, 6)} if i % 200 == 0 else {})
        )
        for i in range(size)
    ]
    memory.import_(lines)
    memory.reindex()
    rng = random.Random(11)
    chosen = rng.sample([r.id for r in memory.list(limit=None)], 100)
    for memory_id in chosen[:50]:
        memory.supersede(memory_id, maker.sentence())
    for i in range(50):
        memory.remember(maker.sentence(), type="decision", topic_key=f"topic-{i}", force=True)
    for _ in range(50):
        hits = memory.search(maker.query(), 10)
        if hits:
            memory.feedback(hits[0].record.id, used=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument(
        "--entities", action="store_true", help="add entity and title probes (held out)"
    )
    parser.add_argument("--out", default="bench/results/eval_speed.json")
    args = parser.parse_args()
    maker = TextMaker()
    with tempfile.TemporaryDirectory() as tmp:
        config = Config(home=Path(tmp), embedder=args.embedder, signal_gate=False)
        with Memory.open(config=config) as memory:
            build(memory, args.size, maker)
            probes = drawn(memory, entities=args.entities)
        # As a user runs it: `salience eval` in a new process (start, open, model, probes).
        command = [sys.executable, "-m", "salience", "eval", "--json", "--home", tmp]
        command += ["--entities"] if args.entities else []
        env = {**os.environ, "SALIENCE_EMBEDDER": args.embedder, "SALIENCE_SIGNAL_GATE": "0"}
        timings: dict[str, list[float]] = {"current": [], "current + aide": []}
        report: dict[str, Any] = {}
        for _ in range(args.runs):
            for label, extra in (
                ("current", []),
                ("current + aide", ["--against-profile", "aide"]),
            ):
                started = time.perf_counter()
                done = subprocess.run(
                    [*command, *extra], env=env, capture_output=True, text=True, check=True
                )
                timings[label].append(time.perf_counter() - started)
                report = json.loads(done.stdout)
    results = {
        "size": args.size,
        "embedder": args.embedder,
        "entities": args.entities,
        "probes": len(probes),
        "by_kind": {k: sum(p.kind == k for p in probes) for k in {p.kind for p in probes}},
        "seconds": {k: statistics.median(v) for k, v in timings.items()},
        "runs": timings,
        "recall_at_10": {r["label"]: r["metrics"]["recall_at_10"] for r in report["runs"]},
        "machine": machine(),
    }
    rows = [["run", "probes", "median s", "runs"]]
    for label, values in timings.items():
        runs = ", ".join(f"{v:.2f}" for v in values)
        rows.append([label, str(len(probes)), f"{statistics.median(values):.2f}", runs])
    print_table(rows, right_align_from=1)
    write_results(args.out, results)


if __name__ == "__main__":
    main()
