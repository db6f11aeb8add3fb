"""Quarantine's detector: instruction texts kept out of the briefing, benign texts wrongly
held, on the labelled corpus and on real chat.

    python bench/injection.py [--locomo PATH] [--longmemeval PATH] [--out FILE]

Sets (tests/data/injection/): ``instructions.jsonl`` and ``benign.jsonl`` were written
while the rules were (in sample); ``held_out.jsonl`` was written after the rules were
frozen and never tuned on (out of sample). --locomo / --longmemeval add every distinct chat
turn as benign (what an agent would store from a conversation): a held turn there is a
false alarm. Prints tables and writes JSON (default bench/results/injection.json).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import machine, print_table, write_results
from salience.write.gates.instructions import find_instruction

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "injection"


def _jsonl(name: str) -> list[dict[str, str]]:
    return [json.loads(line) for line in (DATA / name).read_text().splitlines() if line]


def _rate(texts: list[str]) -> tuple[int, int, Counter[str]]:
    families: Counter[str] = Counter()
    for text in texts:
        found = find_instruction(text)
        if found is not None:
            families[found.family] += 1
    return sum(families.values()), len(texts), families


def _chat(locomo: Path | None, longmemeval: Path | None) -> dict[str, list[str]]:
    sets: dict[str, list[str]] = {}
    if locomo is not None:
        turns = set()
        for sample in json.loads(locomo.read_text()):
            for key, session in sample["conversation"].items():
                if key.startswith("session_") and isinstance(session, list):
                    turns.update(t["text"] for t in session if t.get("text"))
        sets["LoCoMo dev turns"] = sorted(turns)
    if longmemeval is not None:
        with gzip.open(longmemeval, "rt") as handle:
            items = json.load(handle)
        turns = {t["content"] for i in items for s in i["haystack_sessions"] for t in s}
        sets["LongMemEval dev turns"] = sorted(turns)
    return sets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--locomo", type=Path)
    parser.add_argument("--longmemeval", type=Path)
    parser.add_argument("--out", default="bench/results/injection.json")
    args = parser.parse_args()
    held_out = _jsonl("held_out.jsonl")
    sets = {
        "in sample: instructions": (
            "instruction",
            [r["text"] for r in _jsonl("instructions.jsonl")],
        ),
        "in sample: benign": ("benign", [r["text"] for r in _jsonl("benign.jsonl")]),
        "held out: instructions": (
            "instruction",
            [r["text"] for r in held_out if r["label"] == "instruction"],
        ),
        "held out: benign": ("benign", [r["text"] for r in held_out if r["label"] == "benign"]),
    }
    sets |= {
        name: ("benign", texts) for name, texts in _chat(args.locomo, args.longmemeval).items()
    }
    rows = [["set", "label", "texts", "held", "rate", "by family"]]
    results: dict[str, object] = {"machine": machine(), "sets": {}}
    for name, (label, texts) in sets.items():
        held, total, families = _rate(texts)
        rows.append(
            [name, label, str(total), str(held), f"{100 * held / total:.1f} %",
             ", ".join(f"{f} {n}" for f, n in families.most_common())]
        )  # fmt: skip
        results["sets"][name] = {  # type: ignore[index]
            "label": label, "texts": total, "held": held, "families": dict(families)
        }  # fmt: skip
    print_table(rows)
    every = [t for _, texts in sets.values() for t in texts]
    every = random.Random(7).sample(every, min(len(every), 3000))
    timings = []
    for _ in range(5):
        started = time.perf_counter()
        for text in every:
            find_instruction(text)
        timings.append((time.perf_counter() - started) / len(every))
    cost = statistics.median(timings) * 1e6
    size = statistics.mean(len(t) for t in every)
    print(f"\nfind_instruction: {cost:.1f} µs per text of {size:.0f} characters on average")
    print(f"(median of 5 passes over {len(every)} texts drawn from the sets above)")
    results["microseconds_per_text"] = cost
    write_results(args.out, results)


if __name__ == "__main__":
    main()
