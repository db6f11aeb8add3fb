"""Saved rankings: every profile's recall on the dev files, to check a change ranks the same.

One store per LoCoMo conversation and per sampled LongMemEval question (all turns), loaded
with ids derived from the turns (so two runs give the same ids, and ties fall the same way).
Each question is asked of all six profiles (``search(q, 10)``, and ``search(q, 50)`` on
LongMemEval, as its session metrics do) as of the day after the data. Query vectors are
computed once before any timing, so the times are the search beyond the query embedding.

    python bench/rankings.py --locomo PATH --longmemeval PATH --save FILE
    python bench/rankings.py --locomo PATH --longmemeval PATH --check FILE

``--check`` compares ids (in order), scores (to 1e-9) and each hit's explanation with the
saved file and exits 1 on any difference, listing the first ones. Prints per-profile search
time (p50/p95, ms) and writes it to JSON (default bench/results/rankings.json).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

import locomo
import longmemeval
from common import machine, print_table, write_results
from salience import Config, Memory
from salience.embeddings import Embedder
from salience.ids import stable_ulid

PROFILES = ("salience", "aide", "eidet", "ilab", "talome", "rae")
TOLERANCE = 1e-9


def stable_id(when: datetime, label: str) -> str:
    """The same ULID for the same turn in every run (its time, the rest from ``label``)."""
    return stable_ulid(when, "bench", label)


class Remembering:
    """An embedder that keeps every vector it made, by text: queries are embedded before the
    timed searches, so a search's time excludes the model."""

    def __init__(self, model: Embedder) -> None:
        self.model = model
        self.vectors: dict[str, np.ndarray] = {}

    name = property(lambda self: self.model.name)
    dimensions = property(lambda self: self.model.dimensions)
    identity = property(lambda self: self.model.identity)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        wanted = [t for t in dict.fromkeys(texts) if t not in self.vectors]
        if wanted:
            self.vectors.update(zip(wanted, self.model.embed(wanted), strict=True))
        return np.stack([self.vectors[t] for t in texts]).astype(np.float32)


def documents(rows: list[tuple[str, datetime, str, str, str]]) -> list[str]:
    """JSON lines for (label, time, session id, tag, text) rows."""
    return [
        json.dumps(
            {
                "id": stable_id(when, label),
                "content": text,
                "type": "observation",
                "source": "import",
                "session_id": session,
                "tags": [tag],
                "created_at": when.isoformat(),
                "updated_at": when.isoformat(),
            }
        )
        for label, when, session, tag, text in rows
    ]


def stores(args: argparse.Namespace) -> Iterator[tuple[str, list[str], list[str], datetime, int]]:
    """(name, JSON lines, questions, as_of, depth) for every store to build."""
    if args.locomo:
        for sample in json.loads(args.locomo.read_text(encoding="utf-8")):
            sid = sample["sample_id"]
            turns = locomo.turns(sample["conversation"])
            rows = [(f"{sid}/{d}", w, f"{sid}-{s}", f"session:{s}", t) for d, w, s, t in turns]
            as_of = max(w for _, w, _, _ in turns) + timedelta(days=1)
            questions = [qa["question"] for qa in sample["qa"]]
            yield f"locomo/{sid}", documents(rows), questions, as_of, locomo.K
    if args.longmemeval:
        picked = longmemeval.select(longmemeval.load(args.longmemeval), sample=args.sample)
        for q in picked:
            qid = q["question_id"]
            rows = [
                (f"{qid}/{s}/{t}", w, f"{qid}-s{s}", f"session:s{s}", text)
                for s, t, w, text, _ in longmemeval.memories(q, "all")
            ]
            as_of = longmemeval.parse_date(q["question_date"])
            yield f"lme/{qid}", documents(rows), [q["question"]], as_of, longmemeval.SESSION_DEPTH


def rank(args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, list[float]]]:
    """Every ranking, and each profile's search times (ms)."""
    rankings: dict[str, Any] = {}
    times: dict[str, list[float]] = {p: [] for p in PROFILES}
    with tempfile.TemporaryDirectory() as tmp:
        with Memory.open(config=Config(home=Path(tmp) / "model", embedder="minilm")) as first:
            loaded = first.vectors.embedder
        assert loaded is not None
        model = Remembering(loaded)
        for n, (name, lines, questions, as_of, depth) in enumerate(stores(args)):
            config = Config(home=Path(tmp) / str(n), embedder="minilm", max_content_bytes=1 << 20)
            with Memory.open(config=config, embedder=model) as engine:  # type: ignore[arg-type]
                engine.import_(lines)
                model.embed(questions)
                for i, question in enumerate(questions):
                    for profile in PROFILES:
                        for k in sorted({10, depth}):
                            started = time.perf_counter()
                            hits = engine.search(
                                question, k, profile=profile, as_of=as_of, touch=False
                            )
                            if k == 10:
                                times[profile].append((time.perf_counter() - started) * 1000)
                            rankings[f"{name}/{i}/{profile}/{k}"] = [
                                [
                                    h.record.id,
                                    h.score,
                                    [list(p) for p in h.explanation.parts]
                                    if h.explanation
                                    else None,
                                    h.explanation.note if h.explanation else None,
                                ]
                                for h in hits
                            ]
            print(f"  {name}: {len(questions)} questions", file=sys.stderr)
    return rankings, times


def differences(saved: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """What differs between two sets of rankings, one line each."""
    out = [f"{key}: missing" for key in saved if key not in now]
    out += [f"{key}: new" for key in now if key not in saved]
    for key in saved.keys() & now.keys():
        old, new = saved[key], now[key]
        if [h[0] for h in old] != [h[0] for h in new]:
            out.append(f"{key}: ids {[h[0][-6:] for h in old]} -> {[h[0][-6:] for h in new]}")
            continue
        for (mid, a, parts_a, note_a), (_, b, parts_b, note_b) in zip(old, new, strict=True):
            if abs(a - b) > TOLERANCE:
                out.append(f"{key}: {mid} score {a!r} -> {b!r}")
            elif note_a != note_b or not _same_parts(parts_a, parts_b):
                out.append(f"{key}: {mid} explanation {parts_a} {note_a!r} -> {parts_b} {note_b!r}")
    return sorted(out)


def _same_parts(a: list[list[Any]] | None, b: list[list[Any]] | None) -> bool:
    if a is None or b is None:
        return a is b
    return len(a) == len(b) and all(
        x[0] == y[0] and abs(x[1] - y[1]) <= TOLERANCE and abs(x[2] - y[2]) <= TOLERANCE
        for x, y in zip(a, b, strict=True)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--locomo", type=Path, default=None, help="a LoCoMo-format JSON file")
    parser.add_argument("--longmemeval", type=Path, default=None, help="a LongMemEval file")
    parser.add_argument("--sample", type=int, default=20, help="LongMemEval questions")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--save", type=Path, default=None, help="write the rankings here")
    group.add_argument("--check", type=Path, default=None, help="compare with saved rankings")
    parser.add_argument("--out", default="bench/results/rankings.json")
    args = parser.parse_args()
    if not (args.locomo or args.longmemeval):
        parser.error("give --locomo and/or --longmemeval")
    rankings, times = rank(args)
    rows = [["profile", "searches", "p50 ms", "p95 ms"]]
    summary = {}
    for profile, values in times.items():
        ordered = sorted(values)
        p50, p95 = statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))]
        summary[profile] = {"searches": len(values), "p50_ms": p50, "p95_ms": p95}
        rows.append([profile, str(len(values)), f"{p50:.2f}", f"{p95:.2f}"])
    print("search time beyond the query embedding, search(q, 10)")
    print_table(rows, right_align_from=1)
    write_results(args.out, {"search_ms": summary, "rankings": len(rankings), "machine": machine()})
    if args.save:
        args.save.write_text(json.dumps(rankings), encoding="utf-8")
        print(f"saved {len(rankings)} rankings to {args.save}")
    if args.check:
        found = differences(json.loads(args.check.read_text(encoding="utf-8")), rankings)
        print(f"{len(rankings)} rankings checked: {len(found)} differ")
        by_profile = Counter(line.split(": ")[0].split("/")[-2] for line in found)
        print("  by profile: " + ", ".join(f"{p} {by_profile[p]}" for p in PROFILES))
        for line in found[:30]:
            print("  " + line)
        if found:
            raise SystemExit(1)


if __name__ == "__main__":
    main()
