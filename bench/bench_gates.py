"""Write-gate benchmark: the secret scanner's recall per kind and false alarms per benign set,
on the generated corpus and on real chat; the scanner's cost per text; the pipeline's time.

    python bench/bench_gates.py [--locomo PATH] [--longmemeval PATH] [--baseline FILE]
                                [--out FILE]

The corpus is tests/data (scripts/make_gate_corpus.py). --locomo and --longmemeval add real
chat as benign sets (every distinct turn, user and assistant); a refusal there is a false
alarm, reported by the kind that refused (never the text: real chat may hold a real key).
--baseline FILE times another version of secrets.py (e.g. `git show REV:src/salience/write/
gates/secrets.py > /tmp/old.py`) on the same texts in the same run, interleaved.
Prints tables and writes JSON (default bench/results/gates.json).
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import random
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import machine, print_table, write_results
from salience.write.entities import extract_entities
from salience.write.gates.pipeline import screen
from salience.write.gates.secrets import ASSIGNMENT, HIGH_ENTROPY, SecretFinding, scan

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
GENERIC = {ASSIGNMENT, HIGH_ENTROPY}


def _jsonl(name: str) -> list[dict[str, str]]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines()]


def corpus_quality() -> dict[str, object]:
    by_kind: dict[str, list[bool]] = defaultdict(list)
    for p in _jsonl("secrets_positive.jsonl"):
        accepted = {p["kind"]} | (GENERIC if p["kind"] in GENERIC else set())
        by_kind[p["kind"]].append(bool(accepted & {f.kind for f in scan(p["text"])}))
    sets: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for n in _jsonl("secrets_negative.jsonl"):
        sets[n["set"]][0] += 1
        sets[n["set"]][1] += bool(scan(n["text"]))
    caught = sum(sum(v) for v in by_kind.values())
    total = sum(len(v) for v in by_kind.values())
    return {
        "kinds": len(by_kind),
        "positives": total,
        "recall_pct": 100 * caught / total,
        "per_kind": {k: f"{sum(v)}/{len(v)}" for k, v in sorted(by_kind.items())},
        "kinds_missed": {k: f"{sum(v)}/{len(v)}" for k, v in by_kind.items() if not all(v)},
        "benign_sets": {name: {"texts": n, "refused": bad} for name, (n, bad) in sets.items()},
    }


def fresh_corpus(seeds: Sequence[int]) -> dict[str, object]:
    """Recall and false alarms on corpora generated with other seeds than the committed one."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
    import make_gate_corpus

    positives, caught, alike, refused = 0, 0, 0, 0
    missed: Counter[str] = Counter()
    for seed in seeds:
        rows, lookalikes = make_gate_corpus.fresh(seed)
        for row in rows:
            accepted = {row["kind"]} | (GENERIC if row["kind"] in GENERIC else set())
            ok = bool(accepted & {f.kind for f in scan(row["text"])})
            positives, caught = positives + 1, caught + ok
            if not ok:
                missed[row["kind"]] += 1
        alike += len(lookalikes)
        refused += sum(1 for text in lookalikes if scan(text))
    return {
        "seeds": list(seeds),
        "positives": positives,
        "recall_pct": 100 * caught / max(positives, 1),
        "missed_by_kind": dict(missed.most_common()),
        "lookalikes": alike,
        "lookalikes_refused": refused,
    }


def locomo_turns(path: Path) -> list[str]:
    data = json.loads(path.read_text(encoding="utf-8"))
    turns = []
    for conversation in data:
        for key, session in conversation["conversation"].items():
            if key.startswith("session_") and isinstance(session, list):
                for turn in session:
                    text = turn.get("text", "")
                    if turn.get("blip_caption"):
                        text += f" [image: {turn['blip_caption']}]"
                    turns.append(text)
    return sorted(set(turns))


def longmemeval_turns(path: Path) -> list[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        data = json.load(handle)
    turns = {
        turn["content"]
        for question in data
        for session in question["haystack_sessions"]
        for turn in session
    }
    return sorted(turns)


def real_chat(name: str, turns: list[str]) -> dict[str, object]:
    kinds = Counter(f.kind for t in turns if (found := scan(t)) for f in found[:1])
    refused = sum(kinds.values())
    return {
        "set": name,
        "turns": len(turns),
        "refused": refused,
        "refused_pct": 100 * refused / len(turns),
        "refused_by_kind": dict(kinds.most_common()),
    }


def scan_cost(
    texts: Sequence[str], baseline: Callable[[str], list[SecretFinding]] | None, rounds: int = 5
) -> dict[str, float]:
    """Median µs per text over ``rounds`` passes; with a baseline, passes alternate."""
    scanners = {"current": scan} | ({"baseline": baseline} if baseline else {})
    times: dict[str, list[float]] = {name: [] for name in scanners}
    for _ in range(rounds):
        for name, fn in scanners.items():
            start = time.perf_counter()
            for text in texts:
                fn(text)
            times[name].append((time.perf_counter() - start) / len(texts) * 1e6)
    result = {f"{name}_us_per_text": statistics.median(v) for name, v in times.items()}
    if baseline:
        result["ratio"] = result["current_us_per_text"] / result["baseline_us_per_text"]
    return result


def load_baseline(path: Path) -> Callable[[str], list[SecretFinding]]:
    spec = importlib.util.spec_from_file_location("baseline_secrets", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    scanner: Callable[[str], list[SecretFinding]] = module.scan
    return scanner


def memories_of_500_chars(count: int) -> list[str]:
    rng = random.Random(5)
    prose = [n["text"] for n in _jsonl("secrets_negative.jsonl") if n["set"] == "prose"][:600]
    texts = []
    for _ in range(count):
        text = ""
        while len(text) < 500:
            text += rng.choice(prose) + " "
        texts.append(text[:500])
    return texts


def pipeline_time(texts: list[str], rounds: int = 5) -> dict[str, float]:
    def one(text: str) -> None:
        screened = screen(text, tags=("project:bench",), memory_type="observation", signal=True)
        extract_entities(screened.content)

    per_round = []
    for _ in range(rounds):
        start = time.perf_counter()
        for text in texts:
            one(text)
        per_round.append((time.perf_counter() - start) / len(texts) * 1000)
    return {"median_ms_per_write": statistics.median(per_round), "min_ms": min(per_round)}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=None, help="a LoCoMo-format JSON file")
    parser.add_argument("--longmemeval", type=Path, default=None, help="LongMemEval .json(.gz)")
    parser.add_argument("--baseline", type=Path, default=None, help="another secrets.py to time")
    parser.add_argument("--writes", type=int, default=2000)
    parser.add_argument(
        "--fresh-seeds", type=int, default=3, help="also generate this many unseen corpora"
    )
    parser.add_argument("--out", default="bench/results/gates.json")
    args = parser.parse_args()
    chat: list[dict[str, object]] = []
    timed: list[str] = []
    if args.locomo:
        turns = locomo_turns(args.locomo)
        chat.append(real_chat(f"LoCoMo {args.locomo.name}", turns))
        timed += turns
    if args.longmemeval:
        turns = longmemeval_turns(args.longmemeval)
        chat.append(real_chat(f"LongMemEval {args.longmemeval.name}", turns))
        timed += turns
    if not timed:
        timed = memories_of_500_chars(args.writes)
    sample = random.Random(7).sample(timed, min(len(timed), 20_000))
    baseline = load_baseline(args.baseline) if args.baseline else None
    results: dict[str, object] = {
        "machine": machine(),
        "corpus": corpus_quality(),
        "fresh": fresh_corpus(range(1, args.fresh_seeds + 1)),
        "real_chat": chat,
        "scan_cost": {"texts": len(sample), **scan_cost(sample, baseline)},
        "pipeline": pipeline_time(memories_of_500_chars(args.writes)),
    }
    report(results)
    write_results(args.out, results)


def report(results: dict[str, object]) -> None:
    corpus = results["corpus"]
    assert isinstance(corpus, dict)
    per_kind = list(corpus["per_kind"].items())
    print("recall per kind (caught/generated)")
    columns = 3
    height = -(-len(per_kind) // columns)
    for i in range(height):
        cells = [f"{k[:34]:<34} {v:>5}" for k, v in per_kind[i::height]]
        print("   ".join(cells))
    print()
    rows = [
        ("set", "texts", "refused", "rate"),
        (
            f"generated secrets ({corpus['kinds']} kinds)",
            str(corpus["positives"]),
            f"{corpus['recall_pct'] * corpus['positives'] / 100:.0f}",
            f"recall {corpus['recall_pct']:.1f} %",
        ),
    ]
    fresh = results["fresh"]
    assert isinstance(fresh, dict)
    rows.append(
        (
            f"unseen secrets (seeds {fresh['seeds']})",
            str(fresh["positives"]),
            f"{fresh['recall_pct'] * fresh['positives'] / 100:.0f}",
            f"recall {fresh['recall_pct']:.2f} %",
        )
    )
    rows.append(
        (
            "unseen look-alikes",
            str(fresh["lookalikes"]),
            str(fresh["lookalikes_refused"]),
            "false alarms",
        )
    )
    for name, counts in corpus["benign_sets"].items():
        rows.append(
            (f"benign: {name}", str(counts["texts"]), str(counts["refused"]), "false alarms")
        )
    chat = results["real_chat"]
    assert isinstance(chat, list)
    for entry in chat:
        rows.append(
            (
                f"real chat: {entry['set']}",
                str(entry["turns"]),
                str(entry["refused"]),
                f"{entry['refused_pct']:.4f} %",
            )
        )
        for kind, n in entry["refused_by_kind"].items():
            rows.append((f"  refused as {kind}", "", str(n), ""))
    print_table(rows, right_align_from=1)
    for kind, score in corpus["kinds_missed"].items():
        print(f"missed: {kind} {score}")
    for kind, n in fresh["missed_by_kind"].items():
        print(f"missed (unseen): {kind} {n}")
    cost = results["scan_cost"]
    pipeline = results["pipeline"]
    assert isinstance(cost, dict)
    assert isinstance(pipeline, dict)
    print()
    timing = [("cost", "median")]
    timing.append(
        (
            f"scan, current (µs per text, {cost['texts']} texts)",
            f"{cost['current_us_per_text']:.1f}",
        )
    )
    if "baseline_us_per_text" in cost:
        timing.append(
            ("scan, baseline (µs per text, same texts)", f"{cost['baseline_us_per_text']:.1f}")
        )
        timing.append(("current / baseline", f"{cost['ratio']:.2f}"))
    timing.append(("pipeline per 500-char write (ms)", f"{pipeline['median_ms_per_write']:.3f}"))
    print_table(timing, right_align_from=1)


if __name__ == "__main__":
    sys.exit(main())
