"""The write verbs' latency: remember, update, supersede, forget and feedback on a store of N
memories (no embedder: the write path itself, gates, authority and store).

    python bench/write_verbs.py [--size 2000] [--runs 200] [--out FILE]

Prints p50 and p95 per verb in milliseconds and writes JSON (default
bench/results/write_verbs.json). Texts are synthetic notes with a fixed seed; each timed
call writes a text no other memory has.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import machine, print_table, write_results
from salience import Config, Memory

WORDS = (
    "deploy staging cache port queue retry build test lint schema index vector token "
    "release branch review rollback metric alert backup shard replica latency budget"
).split()


def _text(rng: random.Random, n: int) -> str:
    return f"Note {n}: " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 24))) + "."


def measure(size: int, runs: int) -> dict[str, dict[str, float]]:
    """p50 and p95 (ms) of each verb, ``runs`` calls each, on a store of ``size``."""
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        config = Config(home=Path(tmp), embedder="none", signal_gate=False)
        with Memory.open(config=config) as memory:
            ids = [str(memory.remember(_text(rng, n)).id) for n in range(size)]
            counter = iter(range(size, size + 10 * runs))
            verbs: dict[str, Callable[[int], object]] = {
                "remember": lambda i: memory.remember(_text(rng, next(counter))),
                "update": lambda i: memory.update(ids[i], importance=0.3 + (i % 5) / 10),
                "update content": lambda i: memory.update(
                    ids[i], content=_text(rng, next(counter))
                ),
                "feedback": lambda i: memory.feedback(ids[i], used=bool(i % 2)),
                "supersede": lambda i: memory.supersede(ids[i], _text(rng, next(counter))),
                "forget": lambda i: memory.forget(ids[size // 2 + i], "obsolete"),
            }
            results = {}
            for name, call in verbs.items():
                times = []
                for i in range(runs):
                    started = time.perf_counter()
                    call(i)
                    times.append((time.perf_counter() - started) * 1000)
                times.sort()
                results[name] = {
                    "p50": statistics.median(times),
                    "p95": times[int(0.95 * (len(times) - 1))],
                }
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    results = measure(args.size, args.runs)
    rows = [["verb", "p50 ms", "p95 ms"]]
    rows += [[name, f"{r['p50']:.3f}", f"{r['p95']:.3f}"] for name, r in results.items()]
    print_table(rows, right_align_from=1)
    out = args.out or Path(__file__).parent / "results" / "write_verbs.json"
    write_results(out, {"machine": machine(), "size": args.size, "results": results})


if __name__ == "__main__":
    main()
