"""Store benchmark: write throughput, full-text search latency, CLI start-up.

    python bench/bench_store.py [--sizes 10000,100000] [--queries 300] [--out FILE]

Prints a table and writes JSON (default bench/results/store.json). Texts are synthetic but
shaped like notes: a Zipf-distributed vocabulary, 8-40 words each, fixed seed. Start-up is
timed with salience's bytecode written first, as an installed copy has it.
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

sys.path.insert(0, str(Path(__file__).parent))

from common import machine, print_table, write_results
from salience import Config, Memory

VOCABULARY_SIZE = 20000


def make_vocabulary(rng: random.Random) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words: set[str] = set()
    while len(words) < VOCABULARY_SIZE:
        words.add("".join(rng.choice(letters) for _ in range(rng.randint(3, 10))))
    return sorted(words)


class TextMaker:
    def __init__(self, seed: int = 7) -> None:
        self.rng = random.Random(seed)
        self.words = make_vocabulary(self.rng)
        total, self.cumulative = 0.0, []
        for rank in range(len(self.words)):
            total += 1 / (rank + 1)
            self.cumulative.append(total)

    def sentence(self, low: int = 8, high: int = 40) -> str:
        count = self.rng.randint(low, high)
        words = self.rng.choices(self.words, cum_weights=self.cumulative, k=count)
        return " ".join(words).capitalize() + "."

    def query(self) -> str:
        # Mid-frequency words, as a person would type: neither "the" nor a hapax.
        return " ".join(self.rng.choice(self.words[50:3000]) for _ in range(self.rng.randint(2, 4)))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def bench_remember(memory: Memory, maker: TextMaker, count: int) -> float:
    texts = [maker.sentence() for _ in range(count)]
    start = time.perf_counter()
    for i, text in enumerate(texts):
        memory.remember(text, tags=[f"project:p{i % 7}"], user=f"u{i % 3}")
    return count / (time.perf_counter() - start)


def bulk_fill(memory: Memory, maker: TextMaker, count: int) -> float:
    """Fill through import_ (one transaction): the way a large store is loaded."""
    now = memory.now()
    lines = [
        json.dumps(
            {
                "content": maker.sentence(),
                "tags": [f"project:p{i % 7}"],
                "created_at": now.isoformat(),
            }
        )
        for i in range(count)
    ]
    start = time.perf_counter()
    memory.import_(lines)
    return count / (time.perf_counter() - start)


def bench_search(memory: Memory, maker: TextMaker, queries: int) -> dict[str, float]:
    texts = [maker.query() for _ in range(queries)]
    for text in texts[:20]:  # warm the page cache
        memory.search(text, 10)
    timings = []
    for text in texts:
        start = time.perf_counter()
        memory.search(text, 10)
        timings.append((time.perf_counter() - start) * 1000)
    return {
        "p50_ms": statistics.median(timings),
        "p95_ms": percentile(timings, 95),
        "max_ms": max(timings),
    }


def compile_bytecode() -> None:
    """Write salience's bytecode, as ``pip install`` does for an installed package.

    The project is installed editable, and with PYTHONDONTWRITEBYTECODE set (as on the
    machines here) every start would compile salience's ~60 modules from source again
    (~80 ms): a cost no installed copy pays.
    """
    import compileall

    import salience

    compileall.compile_dir(Path(salience.__file__).parent, quiet=1)


def bench_startup(home: Path, runs: int) -> dict[str, dict[str, float]]:
    compile_bytecode()
    exe = Path(sys.executable).parent / "salience"
    recall = [str(exe), "recall", "project deadline", "--home", str(home)]
    # (label, command, embedder): recall with the bundled model loads it on every start.
    commands = (
        ("salience --help", [str(exe), "--help"], "none"),
        ("salience recall (no embedder)", recall, "none"),
        ("salience recall (minilm)", recall, "minilm"),
    )
    out: dict[str, dict[str, float]] = {}
    with Memory.open(config=Config(home=home, embedder="minilm")) as memory:
        memory.reindex()  # the minilm start-up must load the model and search vectors
    for label, command, embedder in commands:
        env = {**os.environ, "SALIENCE_HOME": str(home), "SALIENCE_EMBEDDER": embedder}
        timings = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run(command, capture_output=True, check=True, env=env)
            timings.append((time.perf_counter() - start) * 1000)
        out[label] = {"p50_ms": statistics.median(timings), "p95_ms": percentile(timings, 95)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--writes", type=int, default=10000)
    parser.add_argument("--startup-runs", type=int, default=15)
    parser.add_argument("--out", default="bench/results/store.json")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    maker = TextMaker()
    results: dict[str, object] = {
        "machine": machine(),
    }
    with tempfile.TemporaryDirectory() as tmp:
        # The store's own cost: no embedder (bench/scale.py measures writes with embeddings).
        with Memory.open(config=Config(home=Path(tmp) / "writes", embedder="none")) as memory:
            results["remember_per_s"] = bench_remember(memory, maker, args.writes)
        searches: dict[str, object] = {}
        for size in sizes:
            config = Config(home=Path(tmp) / f"s{size}", embedder="none")
            with Memory.open(config=config) as memory:
                rate = bulk_fill(memory, maker, size)
                searches[str(size)] = {
                    "bulk_import_per_s": rate,
                    **bench_search(memory, maker, args.queries),
                }
        results["search"] = searches
        startup_home = Path(tmp) / "startup"
        with Memory.open(config=Config(home=startup_home, embedder="none")) as memory:
            bulk_fill(memory, maker, 1000)
        results["startup"] = bench_startup(startup_home, args.startup_runs)
    report(results, args.writes)
    write_results(args.out, results)


def report(results: dict[str, object], writes: int) -> None:
    rows = [("metric", "value", "target")]
    rows.append(
        (
            f"remember, {writes} memories, one call each (no embedder)",
            f"{results['remember_per_s']:.0f}/s",
            ">= 2000/s",
        )
    )
    for size, s in results["search"].items():  # type: ignore[attr-defined]
        target = "p95 <= 10 ms" if int(size) >= 100000 else ""
        rows.append(
            (
                f"search at {int(size):,} (p50 / p95)",
                f"{s['p50_ms']:.2f} / {s['p95_ms']:.2f} ms",
                target,
            )
        )
        rows.append((f"bulk import at {int(size):,}", f"{s['bulk_import_per_s']:.0f}/s", ""))
    for label, s in results["startup"].items():  # type: ignore[attr-defined]
        rows.append(
            (
                f"start-up `{label}` (p50 / p95)",
                f"{s['p50_ms']:.0f} / {s['p95_ms']:.0f} ms",
                "(loads the model)" if "minilm" in label else "<= 300 ms",
            )
        )
    print_table(rows)
    print(
        "\nstart-up is timed with bytecode compiled (as installed); the minilm recall also "
        "imports numpy and onnxruntime and builds the model's session to embed the query"
    )


if __name__ == "__main__":
    main()
