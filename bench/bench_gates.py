"""Write-gate benchmark: scanner recall and false positives, pipeline time, real-chat check.

    python bench/bench_gates.py [--locomo PATH] [--out FILE]

Recall and false positives come from the corpus in tests/data (scripts/make_gate_corpus.py).
The time per write covers the whole pure pipeline on 500-character memories: redaction, the
secret scanner, the signal gate and entity extraction. With --locomo (a LoCoMo-format file),
every turn is checked: secret alarms (must be 0) and the signal gate's rejections by rule.
Prints a table and writes JSON (default bench/results/gates.json).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import machine, print_table, write_results
from salience.write.entities import extract_entities
from salience.write.gates.pipeline import screen
from salience.write.gates.secrets import scan
from salience.write.gates.signal import check_signal

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"


def corpus_quality() -> dict[str, float]:
    positives = [
        json.loads(line)
        for line in (DATA / "secrets_positive.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    negatives = (DATA / "secrets_negative.txt").read_text(encoding="utf-8").splitlines()
    caught = sum(1 for p in positives if p["kind"] in {f.kind for f in scan(p["text"])})
    flagged = sum(1 for line in negatives if scan(line))
    return {
        "positives": len(positives),
        "kinds": len({p["kind"] for p in positives}),
        "recall_pct": 100 * caught / len(positives),
        "negatives": len(negatives),
        "false_positive_pct": 100 * flagged / len(negatives),
    }


def memories_of_500_chars(count: int) -> list[str]:
    rng = random.Random(5)
    negatives = (DATA / "secrets_negative.txt").read_text(encoding="utf-8").splitlines()
    prose = [line for line in negatives if line[:1].isupper() and " " in line][:600]
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


def locomo_check(path: Path) -> dict[str, object]:
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
    alarms = sum(1 for t in turns if scan(t))
    reasons = Counter(v.rule for t in turns if (v := check_signal(t, "observation")))
    rejected = sum(reasons.values())
    return {
        "turns": len(turns),
        "secret_alarms": alarms,
        "signal_rejected": rejected,
        "signal_rejected_pct": 100 * rejected / len(turns),
        "signal_reasons": dict(reasons.most_common()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=None, help="a LoCoMo-format JSON file")
    parser.add_argument("--writes", type=int, default=2000)
    parser.add_argument("--out", default="bench/results/gates.json")
    args = parser.parse_args()
    results: dict[str, object] = {
        "machine": machine(),
        "corpus": corpus_quality(),
        "pipeline": pipeline_time(memories_of_500_chars(args.writes)),
    }
    if args.locomo:
        results["locomo"] = locomo_check(args.locomo)
    report(results)
    write_results(args.out, results)


def report(results: dict[str, object]) -> None:
    corpus = results["corpus"]
    pipeline = results["pipeline"]
    assert isinstance(corpus, dict)
    assert isinstance(pipeline, dict)
    rows = [
        ("metric", "value", "target"),
        (
            f"secret recall ({corpus['positives']} samples, {corpus['kinds']} kinds)",
            f"{corpus['recall_pct']:.1f} %",
            "100 %",
        ),
        (
            f"false positives ({corpus['negatives']} negatives)",
            f"{corpus['false_positive_pct']:.2f} %",
            "<= 0.1 %",
        ),
        (
            "pipeline per 500-char write (median of 5)",
            f"{pipeline['median_ms_per_write']:.3f} ms",
            "<= 0.2 ms",
        ),
    ]
    locomo = results.get("locomo")
    if isinstance(locomo, dict):
        rows.append(
            (f"LoCoMo secret alarms ({locomo['turns']} turns)", str(locomo["secret_alarms"]), "0")
        )
        rows.append(
            (
                "LoCoMo signal-gate rejections",
                f"{locomo['signal_rejected']} ({locomo['signal_rejected_pct']:.1f} %)",
                "report",
            )
        )
        for rule, n in locomo["signal_reasons"].items():
            rows.append((f"  {rule}", str(n), ""))
    print_table(rows)


if __name__ == "__main__":
    sys.exit(main())
