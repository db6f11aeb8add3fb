"""Briefing benchmark: per profile, scoring time and whole-briefing time at several sizes.

    python bench/bench_briefing.py [--sizes 200,10000,100000] [--repeat 7] [--out FILE]

For each profile it reports the median time to compute the context score of 200 memories one
by one (talome's document claims < 1 ms), and the median time of a whole briefing:

- "engine": `Memory.briefing` in a warm process (what a server or MCP process pays): the
  columns are current, the engine checks the store for changes, the policy runs and the shown
  memories are read;
- "after write": the same right after one `remember` (the columns catch up with one row);
- "policy": the policy alone on candidates already held as columns;
- "cold": the first briefing of a new engine, which reads every row of the store once (what a
  one-shot `salience briefing` process pays, start-up aside).

Prints a table and writes JSON (default bench/results/briefing.json).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_store import TextMaker
from common import machine, print_table, write_results
from salience import Config, Memory
from salience.briefing.policies import BriefingRequest, Candidates
from salience.profiles import PROFILES, ProfileSettings
from salience.stores.base import MemoryFilter

NOW = datetime(2026, 4, 20, tzinfo=UTC)
TYPES = {
    "aide": ["learning", "decision", "discovery", "gotcha", "session", "pattern"],
    "eidet": ["observation", "insight", "procedure", "heuristic"],
    "ilab": ["discovery", "decision", "preference", "profile", "pattern", "summary"],
    "talome": ["preference", "fact", "context", "correction"],
    "rae": ["memory"],
    "salience": ["observation", "decision", "preference", "procedure", "fact", "insight"],
}


def corpus(count: int, maker: TextMaker, rng: random.Random) -> list[str]:
    """JSON lines of a realistic mix: ages up to a year, counters, tags, topics, sessions."""
    lines = []
    all_types = sorted({t for ts in TYPES.values() for t in ts})
    for i in range(count):
        created = NOW - timedelta(days=rng.random() * 365)
        tags = [f"project:p{i % 5}"]
        if rng.random() < 0.05:
            tags.append("scope:global")
        if rng.random() < 0.2:
            tags.append(f"session:s{i % 40}")
        record = {
            "content": maker.sentence(6, 30),
            "type": rng.choice(all_types),
            "tags": tags,
            "importance": round(rng.random(), 3),
            "confidence": round(rng.random(), 3),
            "access_count": rng.randint(0, 30),
            "revision_count": rng.randint(1, 12),
            "created_at": created.isoformat(),
            "updated_at": (created + timedelta(days=rng.random() * 10)).isoformat(),
        }
        if record["type"] == "decision":
            record["topic_key"] = f"topic{i % 50}"
        lines.append(json.dumps(record))
    return lines


def median_ms(func: Callable[[], object], repeat: int) -> float:
    func()  # warm up
    timings = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        timings.append((time.perf_counter() - start) * 1000)
    return statistics.median(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="200,10000,100000")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--out", default="bench/results/briefing.json")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    maker, rng = TextMaker(), random.Random(11)
    settings = ProfileSettings()
    results: dict[str, object] = {"machine": machine()}
    per_profile: dict[str, dict[str, float]] = {name: {} for name in PROFILES}
    cold: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            # No embedder: briefings use no vectors, and embedding 100k texts takes minutes.
            home = Path(tmp) / f"s{size}"
            with Memory.open(config=Config(home=home), embedder=None) as memory:
                memory.import_(corpus(size, maker, rng))
                records = memory.store.list(MemoryFilter(as_of=NOW, include_superseded=True), None)
                candidates = Candidates.of(records)
                for name, profile in PROFILES.items():
                    row = per_profile[name]
                    repeat = args.repeat if size < 100000 else 3
                    if size == sizes[0]:
                        sample = records[:200]
                        row["score_200_ms"] = median_ms(
                            lambda p=profile, s=sample: [
                                p.context_score(r, NOW, settings) for r in s
                            ],
                            args.repeat,
                        )
                    request = BriefingRequest(now=NOW, project="p1")
                    row[f"policy_{size}_ms"] = median_ms(
                        lambda p=profile, c=candidates, q=request: p.briefing(c, q, settings),
                        repeat,
                    )
                    row[f"engine_{size}_ms"] = median_ms(
                        lambda m=memory, n=name: m.briefing(n, project="p1", as_of=NOW),
                        repeat,
                    )
                    row[f"after_write_{size}_ms"] = median_ms(
                        lambda m=memory, n=name: write_then_brief(m, n, maker), repeat
                    )
            with Memory.open(config=Config(home=home), embedder=None) as memory:
                start = time.perf_counter()
                memory.briefing("salience", project="p1", as_of=NOW)
                cold[size] = (time.perf_counter() - start) * 1000
    results["profiles"] = per_profile
    results["cold_salience_ms"] = cold
    report(per_profile, sizes, cold)
    write_results(args.out, results)


def write_then_brief(memory: Memory, name: str, maker: TextMaker) -> None:
    memory.remember(maker.sentence(6, 30), tags=["project:p1"])
    memory.briefing(name, project="p1", as_of=NOW)


def report(
    per_profile: dict[str, dict[str, float]], sizes: list[int], cold: dict[int, float]
) -> None:
    header = ["profile", "score 200"]
    for size in sizes:
        header += [f"policy {size:,}", f"engine {size:,}", f"after write {size:,}"]
    rows = [header]
    for name, row in per_profile.items():
        cells = [name, f"{row['score_200_ms']:.3f} ms"]
        for size in sizes:
            cells += [
                f"{row[f'{kind}_{size}_ms']:.1f} ms" for kind in ("policy", "engine", "after_write")
            ]
        rows.append(cells)
    print_table(rows, right_align_from=1)
    print(
        "cold (first briefing of a new engine, salience): "
        + ", ".join(f"{size:,}: {ms:.0f} ms" for size, ms in cold.items())
    )
    print("targets: score 200 <= 1 ms; briefing at 200 <= 5 ms; at 100,000 <= 100 ms")


if __name__ == "__main__":
    main()
