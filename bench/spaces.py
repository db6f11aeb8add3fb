"""Recall for a user who reads 20 spaces, beside a single user's store of the same size.

Two SQLite stores of ``--size`` memories each, filled the same way (bulk import, synthetic
MiniLM-like vectors, as bench/scale.py does):

- ``single``: every memory is alice's own;
- ``team``: alice owns 1/21 of them, and 20 spaces hold the rest, 1/21 each, every one of
  which she may read: her recall searches her memories and the 20 spaces' together.

The queries are embedded once beforehand (the timing is the search beyond the query
embedding). Both stores are open in one process and searched in turn, ``--rounds`` times
alternating; each cell is the median of the rounds' medians (p95 beside it). The issue's goal:
``team`` within 1.2x of ``single``.

    python bench/spaces.py [--size 100000] [--queries 200] [--rounds 5]
                           [--out bench/results/spaces.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import numpy as np

HERE = Path(__file__).parent
SPACES = 20


def fill(memory: Any, size: int, owners: list[str], pool: Any, seed: int) -> None:
    """Import ``size`` rows spread over ``owners`` in turn, then synthetic vectors (near the
    ``pool``'s MiniLM vectors)."""
    from bench_store import TextMaker
    from salience import ALL_USERS
    from salience.embeddings.minilm import MiniLMEmbedder
    from salience.search.vectors import DIMENSIONS_KEY, IDENTITY_KEY
    from scale import BATCH_ROWS, NOISE

    maker = TextMaker(seed=seed)
    rng = np.random.default_rng(seed)
    embedder = MiniLMEmbedder()
    store = memory.store
    for start in range(0, size, BATCH_ROWS):
        count = min(BATCH_ROWS, size - start)
        lines = [
            json.dumps(
                {
                    "content": maker.sentence(),
                    "user": owners[(start + i) % len(owners)],
                    "session_id": f"s{(start + i) // 20}",
                }
            )
            for i in range(count)
        ]
        memory.import_(lines, user=ALL_USERS)
    ids = [r.id for r in store.without_vectors(size)]
    with store.transaction():
        store.set_meta(IDENTITY_KEY, embedder.identity)
        store.set_meta(DIMENSIONS_KEY, str(pool.shape[1]))
    for start in range(0, len(ids), BATCH_ROWS):
        chunk = ids[start : start + BATCH_ROWS]
        base = pool[rng.integers(0, len(pool), len(chunk))]
        noisy = base + NOISE * rng.standard_normal(base.shape).astype(np.float32) / 20
        noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
        store.set_vectors([(i, v.tobytes()) for i, v in zip(chunk, noisy, strict=True)])


def timed(memory: Any, texts: list[str]) -> list[float]:
    """Seconds per recall of alice's, one query after another."""
    out = []
    for text in texts:
        started = time.perf_counter()
        memory.search(text, user="alice", touch=False)
        out.append(time.perf_counter() - started)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "spaces.json")
    args = parser.parse_args()

    from bench_store import TextMaker, percentile
    from common import machine, print_table, write_results
    from salience import Config, Memory
    from salience.embeddings.minilm import MiniLMEmbedder
    from salience.engine.record import QUERY_VECTORS
    from salience.models.spaces import space_owner
    from scale import POOL

    maker = TextMaker(seed=11)
    texts = [maker.query() for _ in range(args.queries + 20)]
    embedder = MiniLMEmbedder()
    vectors = dict(zip(texts, embedder.embed(texts), strict=True))
    pool = embedder.embed([maker.sentence() for _ in range(POOL)])
    names = [f"team{i:02d}" for i in range(SPACES)]
    layouts = {"single": ["alice"], "team": ["alice", *(space_owner(n) for n in names)]}
    runs: dict[str, list[list[float]]] = {name: [] for name in layouts}
    with tempfile.TemporaryDirectory() as tmp:
        memories = {}
        for name, owners in layouts.items():
            config = Config(home=Path(tmp) / name, signal_gate=False)
            memory = Memory.open(config=config, embedder=MiniLMEmbedder())
            started = time.perf_counter()
            fill(memory, args.size, owners, pool, seed=3)
            for space in names if name == "team" else ():
                memory.create_space(space, user="admin")
                memory.grant(space, "alice", "read", user="admin")
            print(f"{name}: filled {args.size:,} in {time.perf_counter() - started:.0f} s")
            memories[name] = memory
        token = QUERY_VECTORS.set(vectors)
        try:
            for memory in memories.values():  # (warm: vectors loaded, caches filled)
                timed(memory, texts[:20])
            for _ in range(args.rounds):
                for name, memory in memories.items():
                    runs[name].append(timed(memory, texts[20:]))
            found = {
                n: len(m.search(texts[20], user="alice", touch=False)) for n, m in memories.items()
            }
        finally:
            QUERY_VECTORS.reset(token)
            for memory in memories.values():
                memory.close()
    summary = {
        name: {
            "median_ms": statistics.median(statistics.median(r) for r in rounds) * 1000,
            "p95_ms": statistics.median(percentile(r, 95) for r in rounds) * 1000,
        }
        for name, rounds in runs.items()
    }
    ratio = summary["team"]["median_ms"] / summary["single"]["median_ms"]
    table = [["store", "alice reads", "median ms", "p95 ms"]]
    reads = {"single": "her own memories", "team": f"her own + {SPACES} spaces"}
    for name, cell in summary.items():
        table.append([name, reads[name], f"{cell['median_ms']:.3f}", f"{cell['p95_ms']:.3f}"])
    table.append(["team / single", "", f"{ratio:.3f}", ""])
    print(
        f"recall, {args.size:,} memories in each store, {args.queries} queries x "
        f"{args.rounds} rounds (hits per recall: {found})"
    )
    print_table(table, right_align_from=2)
    results = {
        "machine": machine(),
        "size": args.size,
        "spaces": SPACES,
        "queries": args.queries,
        "rounds": args.rounds,
        "summary": summary,
        "team_over_single": ratio,
    }
    write_results(args.out, results)


if __name__ == "__main__":
    main()
