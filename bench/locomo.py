"""Retrieval benchmark on LoCoMo-format conversations.

One fresh store per conversation; every turn is a memory (``Speaker: text``, plus the image
caption when the turn shared a photo), written at its session's date and tagged with its
session; each question is a query and its evidence turns are the gold. Reports R@5, R@10,
hit@10, NDCG@10 and MRR for categories 1-4, 1-5 and each category, and recall latency.

    python bench/locomo.py PATH/locomo.json [--profile salience] [--embedder minilm|none]

Prints a table and writes JSON (default bench/results/locomo-<profile>.json). The data file is
never copied into the repository: pass its path.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from common import machine, ndcg, print_table, store_in, write_results
from salience import Config, Memory
from salience.embeddings import Embedder
from salience.ids import new_ulid

K = 10
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
EVIDENCE = re.compile(r"D:?(\d+):(\d+)")


def parse_session_time(text: str) -> datetime:
    """``1:56 pm on 8 May, 2023`` -> an aware datetime (UTC)."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def repair_evidence(items: list[str]) -> list[str]:
    """``['D8:6; D9:17', 'D:11:26', 'D']`` -> ``['D8:6', 'D9:17', 'D11:26']``."""
    found: list[str] = []
    for item in items:
        for session, turn in EVIDENCE.findall(item):
            label = f"D{int(session)}:{int(turn)}"
            if label not in found:
                found.append(label)
    return found


def turns(conversation: dict[str, Any]) -> list[tuple[str, datetime, str, str]]:
    """(dia_id, time, session label, memory text) for every turn, in order."""
    out = []
    sessions = sorted(
        (int(key.split("_")[1]), key)
        for key, value in conversation.items()
        if key.startswith("session_") and not key.endswith("date_time") and isinstance(value, list)
    )
    for number, key in sessions:
        start = parse_session_time(conversation[f"{key}_date_time"])
        for i, turn in enumerate(conversation[key]):
            text = f"{turn['speaker']}: {turn['text']}"
            if turn.get("blip_caption"):
                text += f" [shares a photo: {turn['blip_caption']}]"
            out.append((turn["dia_id"], start + timedelta(seconds=i), f"s{number}", text))
    return out


def load_store(
    engine: Memory, sample_id: str, rows: list[tuple[str, datetime, str, str]]
) -> dict[str, str]:
    """Bulk-load turns (the signal gate is bypassed explicitly by import; secrets still scanned)."""
    lines, ids = [], {}
    for dia_id, when, session, text in rows:
        memory_id = new_ulid(when)
        ids[dia_id] = memory_id
        record = {
            "id": memory_id,
            "content": text,
            "type": "observation",
            "source": "import",
            "session_id": f"{sample_id}-{session}",
            "tags": [f"session:{session}"],
            "created_at": when.isoformat(),
            "updated_at": when.isoformat(),
        }
        lines.append(json.dumps(record))
    engine.import_(lines)
    return ids


def evaluate(ranked: list[str], gold: set[str]) -> dict[str, float]:
    first = next((i for i, m in enumerate(ranked) if m in gold), None)
    top5, top10 = gold & set(ranked[:5]), gold & set(ranked[:10])
    return {
        "R@5": len(top5) / len(gold),
        "R@10": len(top10) / len(gold),
        "any@5": float(bool(top5)),
        "any@10": float(bool(top10)),
        "all@5": float(top5 == gold),
        "all@10": float(top10 == gold),
        "NDCG@10": ndcg(ranked, gold, 10),
        "MRR": 0.0 if first is None else 1 / (first + 1),
    }


def run(
    path: Path,
    profile: str,
    embedder: str,
    limit_convs: int | None,
    prior: float = 0.15,
    store: str | None = None,
    learned: bool = True,
) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))[:limit_convs]
    per_question: list[tuple[int, dict[str, float]]] = []
    latencies: list[float] = []
    dropped = 0
    model: Embedder | str | None = "config"
    with tempfile.TemporaryDirectory() as tmp:
        for sample in data:
            with store_in(store, f"locomo_{sample['sample_id']}") as url:
                config = Config(
                    home=Path(tmp) / sample["sample_id"],
                    embedder=embedder,
                    profile=profile,
                    recall_prior=prior,
                    store_url=url,
                    recall_learned=learned,
                )
                model, without = _evaluate(config, model, sample, per_question, latencies)
                dropped += without
    results = summarise(per_question, latencies, dropped, profile, embedder, path, len(data))
    results["recall_prior"] = prior
    results["recall_learned"] = learned
    results["store"] = "postgresql" if store else "sqlite"
    return results


def _gold(qa: dict[str, Any], ids_of: dict[str, str]) -> set[str]:
    return {ids_of[e] for e in repair_evidence(qa.get("evidence", [])) if e in ids_of}


def _evaluate(
    config: Config,
    model: Embedder | str | None,
    sample: dict[str, Any],
    per_question: list[tuple[int, dict[str, float]]],
    latencies: list[float],
) -> tuple[Embedder | str | None, int]:
    """Load one conversation, ask its questions; the model, and how many had no evidence."""
    rows = turns(sample["conversation"])
    without = 0
    with Memory.open(config=config, embedder=model) as engine:  # type: ignore[arg-type]
        model = engine.vectors.embedder  # load the model once, share it
        ids = load_store(engine, sample["sample_id"], rows)
        as_of = max(when for _, when, _, _ in rows) + timedelta(days=1)
        for qa in sample["qa"]:
            gold = _gold(qa, ids)
            if not gold:
                without += 1
                continue
            started = time.perf_counter()
            hits = engine.search(qa["question"], K, as_of=as_of, touch=False)
            latencies.append((time.perf_counter() - started) * 1000)
            ranked = [h.record.id for h in hits]
            per_question.append((int(qa["category"]), evaluate(ranked, gold)))
    return model, without


def summarise(
    per_question: list[tuple[int, dict[str, float]]],
    latencies: list[float],
    dropped: int,
    profile: str,
    embedder: str,
    path: Path,
    conversations: int,
) -> dict[str, Any]:
    groups: dict[str, list[dict[str, float]]] = defaultdict(list)
    for category, scores in per_question:
        groups[f"{category} {CATEGORIES.get(category, '?')}"].append(scores)
        groups["1-5"].append(scores)
        if category <= 4:
            groups["1-4"].append(scores)
    table = {
        name: {"questions": len(items)}
        | {m: 100 * statistics.fmean(s[m] for s in items) for m in items[0]}
        for name, items in sorted(groups.items(), key=lambda kv: (kv[0][0].isdigit(), kv[0]))
    }
    ordered = sorted(latencies)
    return {
        "file": path.name,
        "conversations": conversations,
        "profile": profile,
        "embedder": embedder,
        "questions_dropped_without_evidence": dropped,
        "metrics": table,
        "latency_ms": {
            "p50": statistics.median(ordered),
            "p95": ordered[int(0.95 * (len(ordered) - 1))],
        },
        "machine": machine(),
    }


def report(results: dict[str, Any]) -> None:
    metrics = results["metrics"]
    names = ["R@5", "R@10", "any@5", "any@10", "all@5", "all@10", "NDCG@10", "MRR"]
    rows = [["questions", "n", *names]]
    for group, values in metrics.items():
        rows.append([group, str(values["questions"]), *(f"{values[m]:.1f}" for m in names)])
    print(
        f"{results['file']}: {results['conversations']} conversations, profile "
        f"{results['profile']}, embedder {results['embedder']}"
    )
    print_table(rows, right_align_from=1)
    lat = results["latency_ms"]
    print(
        f"recall latency p50 {lat['p50']:.1f} ms, p95 {lat['p95']:.1f} ms; "
        f"{results['questions_dropped_without_evidence']} questions dropped (no evidence)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("path", type=Path, help="a LoCoMo-format JSON file")
    parser.add_argument("--profile", default="salience")
    parser.add_argument("--embedder", default="minilm", choices=["minilm", "none"])
    parser.add_argument("--conversations", type=int, default=None, help="only the first N")
    parser.add_argument(
        "--prior", type=float, default=0.15, help="salience profile: recall_prior (0 = off)"
    )
    parser.add_argument(
        "--store", default=None, help="a postgresql:// URL: one schema per conversation there"
    )
    parser.add_argument(
        "--learned",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="salience profile: the learned fusion (the default; --no-learned: the hand-set one)",
    )
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    results = run(
        args.path,
        args.profile,
        args.embedder,
        args.conversations,
        args.prior,
        args.store,
        args.learned,
    )
    report(results)
    write_results(args.out or f"bench/results/locomo-{args.profile}-{args.embedder}.json", results)


if __name__ == "__main__":
    main()
