"""Quarantine's detector: orders held, benign texts wrongly held, and the time a text takes,
for the rules alone and for the rules with the learned model (what writes use), in one run.

    python bench/injection.py [--locomo PATH] [--longmemeval PATH] [--count N] [--out FILE]

Sets:

- **our corpus, held-out split** (``bench/injection_corpus.py texts("held")``): orders,
  wrappers, carriers and benign sentences the fit never saw (the split was frozen before
  the first fit), by family and by carrier;
- **the second held-out split** (``bench/injection_held2.py``, 2026-12-02): parts and
  carriers written anew after the first split had been read too often, frozen before it
  was first measured;
- ``tests/data/injection/``: ``instructions.jsonl`` and ``benign.jsonl`` were written while
  the rules were (in sample for the rules, and in the fit); ``held_out.jsonl`` was written
  after the rules were frozen and is in no fit;
- real chat (--locomo, --longmemeval): every distinct turn as benign (what an agent would
  store from a conversation), all of them and apart the half whose CRC-32 is odd (the fit
  saw only the even half).

Prints tables and writes JSON (default bench/results/injection.json).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import injection_corpus
import injection_held2
from common import machine, print_table, write_results
from injection_fit import chat_half, chat_turns
from salience.write.gates import learned
from salience.write.gates.instructions import Instruction, find_by_rules, find_instruction

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "injection"
DETECTORS: dict[str, Callable[[str], Instruction | None]] = {
    "rules": find_by_rules,
    "rules + learned": find_instruction,
}


def _jsonl(name: str) -> list[dict[str, str]]:
    return [json.loads(line) for line in (DATA / name).read_text().splitlines() if line]


def _pct(held: int, total: int) -> str:
    return f"{100 * held / total:.2f} %" if total else "-"


def _held(texts: list[str]) -> dict[str, tuple[int, Counter[str]]]:
    out = {}
    for name, detect in DETECTORS.items():
        families: Counter[str] = Counter()
        for text in texts:
            found = detect(text)
            if found is not None:
                families[found.family] += 1
        out[name] = (sum(families.values()), families)
    return out


def _timing(texts: list[str]) -> dict[str, dict[str, float]]:
    """Per text: the best of two runs, each cold (the learned half's segment cache emptied
    first, as for a text never seen); then the median and 99th percentile over texts."""
    out = {}
    for name, detect in DETECTORS.items():
        detect(texts[0])  # (the model's weights load on first use)
        costs = []
        for text in texts:
            runs = []
            for _ in range(2):
                learned.parse.cache_clear()
                started = time.perf_counter_ns()
                detect(text)
                runs.append(time.perf_counter_ns() - started)
            costs.append(min(runs) / 1e3)
        costs.sort()
        out[name] = {
            "p50_us": statistics.median(costs),
            "p99_us": costs[int(0.99 * (len(costs) - 1))],
            "max_us": costs[-1],
        }
    return out


def write_cost(size: int, runs: int) -> dict[str, float]:
    """The median ``remember`` (source ``agent``, no embedder) on a store of ``size``, with
    the rules alone and with the rules and the model, alternating call by call in one
    process (what the model adds to a write, the store's noise shared by both)."""
    import tempfile

    from salience import Config, Memory
    from salience.write.gates import instructions

    rng = random.Random(7)
    words = "deploy staging cache port queue retry build test lint schema index release".split()

    def text() -> str:
        return " ".join(rng.choice(words) for _ in range(rng.randint(8, 24))) + "."

    both = instructions.find_instruction
    times: dict[str, list[float]] = {"rules": [], "rules + learned": []}
    with tempfile.TemporaryDirectory() as tmp:
        config = Config(home=Path(tmp), embedder="none", signal_gate=False)
        with Memory.open(config=config) as memory:
            for n in range(size):
                memory.remember(f"Note {n}: {text()}")
            try:
                for i in range(2 * runs):
                    name = "rules" if i % 2 else "rules + learned"
                    instructions.find_instruction = find_by_rules if i % 2 else both  # type: ignore[assignment]
                    content = f"Note {size + i}: {text()}"
                    started = time.perf_counter()
                    memory.remember(content)
                    times[name].append((time.perf_counter() - started) * 1000)
            finally:
                instructions.find_instruction = both  # type: ignore[assignment]
    return {name: statistics.median(values) for name, values in times.items()}


def _by_family(
    split: str, corpus: list[dict[str, str]]
) -> tuple[dict[str, tuple[str, list[str]]], dict[str, list[str]]]:
    """A held-out split's sets (each family, every order, the benign texts) and its orders
    by carrier."""
    by_family: dict[str, list[str]] = defaultdict(list)
    by_carrier: dict[str, list[str]] = defaultdict(list)
    for item in corpus:
        by_family[item["family"]].append(item["text"])
        if item["label"] == "instruction":
            by_carrier[item["carrier"]].append(item["text"])
    orders = [t for family, texts in by_family.items() if family != "benign" for t in texts]
    sets = {f"{split}: {f}": ("instruction", by_family[f])
            for f in injection_corpus.FAMILIES if f != "benign"}  # fmt: skip
    sets[f"{split}: every order"] = ("instruction", orders)
    sets[f"{split}: benign"] = ("benign", by_family["benign"])
    return sets, dict(sorted(by_carrier.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--locomo", type=Path)
    parser.add_argument("--longmemeval", type=Path)
    parser.add_argument("--count", type=int, default=4000, help="held-out corpus texts")
    parser.add_argument("--out", default="bench/results/injection.json")
    parser.add_argument("--write-cost", type=int, default=0, metavar="RUNS",
                        help="also time RUNS remembers each way on a store of 2,000")  # fmt: skip
    args = parser.parse_args()
    results: dict[str, object] = {"machine": machine(), "model": learned.model().about}

    sets: dict[str, tuple[str, list[str]]] = {}
    by_carrier: dict[str, list[str]] = {}
    for split, corpus in (
        ("corpus held out", injection_corpus.texts("held", args.count)),
        ("second held out", injection_held2.texts(args.count)),
    ):
        found, carriers = _by_family(split, corpus)
        sets |= found
        by_carrier |= {f"{split}: {carrier}": texts for carrier, texts in carriers.items()}
    sets |= {
        "tests/data instructions (in sample)": (
            "instruction", [r["text"] for r in _jsonl("instructions.jsonl")]),
        "tests/data benign procedures (in sample)": (
            "benign", [r["text"] for r in _jsonl("benign.jsonl")]),
        "tests/data held_out: instructions": (
            "instruction", [r["text"] for r in _jsonl("held_out.jsonl")
                            if r["label"] == "instruction"]),
        "tests/data held_out: benign": (
            "benign", [r["text"] for r in _jsonl("held_out.jsonl") if r["label"] == "benign"]),
    }  # fmt: skip
    for name, turns in chat_turns(args.locomo, args.longmemeval).items():
        sets[f"{name} dev turns, all"] = ("benign", turns)
        sets[f"{name} dev turns, held-out half"] = (
            "benign", [t for t in turns if chat_half(t) == "held"])  # fmt: skip

    rows = [["set", "label", "texts", "rules", "rules + learned", "families (rules + learned)"]]
    results["sets"] = {}
    for name, (label, texts) in sets.items():
        held = _held(texts)
        both = held["rules + learned"][1]
        rows.append([name, label, str(len(texts)),
                     *(_pct(held[d][0], len(texts)) for d in DETECTORS),
                     ", ".join(f"{f} {n}" for f, n in both.most_common(6))])  # fmt: skip
        results["sets"][name] = {  # type: ignore[index]
            "label": label, "texts": len(texts),
            **{d: {"held": held[d][0], "families": dict(held[d][1])} for d in DETECTORS},
        }  # fmt: skip
    print_table(rows)

    rows = [["carrier", "orders", "rules", "rules + learned"]]
    results["carriers"] = {}
    for carrier, texts in sorted(by_carrier.items()):
        held = _held(texts)
        rows.append([carrier, str(len(texts)), *(_pct(held[d][0], len(texts)) for d in DETECTORS)])
        results["carriers"][carrier] = {d: held[d][0] / len(texts) for d in DETECTORS}  # type: ignore[index]
    print()
    print_table(rows)

    samples = {
        "corpus held out": [t for name, (_, texts) in sets.items() if name.startswith("corpus")
                            for t in texts],
        "chat turns": [t for name, (_, texts) in sets.items() if name.endswith(", all")
                       for t in texts],
    }  # fmt: skip
    rows = [["texts", "count", "mean chars", "detector", "p50 µs", "p99 µs", "max µs"]]
    results["timing"] = {}
    for label, texts in samples.items():
        if not texts:
            continue
        sample = random.Random(7).sample(texts, min(len(texts), 2000))
        size = statistics.mean(len(t) for t in sample)
        timing = _timing(sample)
        for name, cost in timing.items():
            rows.append([label, str(len(sample)), f"{size:.0f}", name, f"{cost['p50_us']:.0f}",
                         f"{cost['p99_us']:.0f}", f"{cost['max_us']:.0f}"])  # fmt: skip
        results["timing"][label] = {"texts": len(sample), "mean_chars": size, **timing}  # type: ignore[index]
    print()
    print_table(rows)
    print("(per text: the best of two cold runs)")
    if args.write_cost:
        cost = write_cost(2000, args.write_cost)
        print(f"\nremember on a store of 2,000, median of {args.write_cost} each, alternating: "
              f"rules {cost['rules']:.3f} ms, rules + learned {cost['rules + learned']:.3f} ms "
              f"({cost['rules + learned'] / cost['rules']:.3f}x)")  # fmt: skip
        results["remember_ms"] = cost
    write_results(args.out, results)


if __name__ == "__main__":
    main()
