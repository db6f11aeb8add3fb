"""A SQLite store's full-text search: FTS5 itself beside the store's in-memory copy of its index.

Stores of LoCoMo turns (the first ``--sizes`` turns of the file, its conversations repeated
under new session names to reach the larger sizes), with no embedder. For each store the
copy is loaded (its time and its arrays' size reported), then every question of the first
conversation (whose turns every size holds) is asked as recall asks it (the salience
profile's dated terms, 200 hits, a default user's filter), of the copy and of FTS5 in turn
(either first), and the two answers are checked equal: the same rows, order and scores.
Prints a table and writes JSON (default bench/results/fulltext.json); the data file is never
copied into the repository.

    python bench/fulltext.py PATH/locomo_dev.json [--sizes 419,5000,20000] [--repeat 3]
        [--recall]

Then 30 times a turn is written and a question asked both ways ("after a write": FTS5 / the
copy, which first catches up with the write), p50 in ms. ``--recall`` times a whole recall
instead, MiniLM embedding each question, as shipped (where
the full-text search runs beside the embedding: FTS5 up to 1,000 rows, the copy above) and
with FTS5 alone.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import locomo
from common import machine, print_table, write_results
from salience import Config, Memory
from salience.stores.base import MemoryFilter
from salience.stores.sqlite import SQLiteStore
from salience.stores.sqlite.textindex import TextIndex
from salience.text_dates import resolve


def turns_for(data: list[dict[str, Any]], size: int) -> list[tuple[str, Any, str, str]]:
    """``size`` turns: the file's conversations one after another, repeated as needed."""
    out: list[tuple[str, Any, str, str]] = []
    copy = 0
    while len(out) < size:
        for sample in data:
            for dia_id, when, session, text in locomo.turns(sample["conversation"]):
                name = f"{sample['sample_id']}-{copy}"
                out.append((f"{name}/{dia_id}", when, f"{name}-{session}", text))
        copy += 1
    return out[:size]


def measure(
    data: list[dict[str, Any]], size: int, home: Path, recall: bool = False
) -> dict[str, Any]:
    """One store of ``size`` turns: the copy loaded, then each question asked both ways.
    ``recall``: MiniLM embeds the turns, and what is timed is a recall embedding its question
    (its full-text search beside the embedding), not the full-text search alone."""
    rows = turns_for(data, size)
    embedder = "minilm" if recall else "none"
    with Memory.open(config=Config(home=home, embedder=embedder)) as engine:
        locomo.load_store(engine, "bench", rows)
        store = engine.store
        assert isinstance(store, SQLiteStore)
        conn = sqlite3.connect(home / "salience.db")
        started = time.perf_counter()
        index = TextIndex.load(conn, lambda: False)
        load_s = time.perf_counter() - started
        conn.close()
        assert index is not None
        as_of = max(when for _, when, _, _ in rows) + timedelta(days=1)
        flt = MemoryFilter(as_of=as_of, user=engine._scope(None))
        questions = [qa["question"] for qa in data[0]["qa"]]  # (its turns are all stored)
        texts = [" ".join((q, *resolve(q, as_of))) for q in questions]

        def ask(i: int) -> object:
            if recall:
                hits = engine.search(questions[i], 10, as_of=as_of, touch=False)
                return [(h.record.id, h.score) for h in hits]
            return store.search_rows(texts[i], flt, 200, dated=True)

        for _ in range(2):  # the second search in one state loads the copy
            ask(0)
        store._text_copy.wait()
        copy = store._text_copy.current

        def fts5(*args: object) -> None:  # (no copy: FTS5 answers)
            return None

        for i in range(min(10, len(questions))):  # (untimed: each way's first calls)
            for current in (copy, fts5):
                store._text_copy.current = current  # type: ignore[method-assign]
                ask(i)

        def both_ways(i: int, times: dict[str, list[float]]) -> None:
            """Question ``i`` of the copy and of FTS5 (either first), timed; equal answers."""
            answers = []
            ways = [("copy", copy), ("fts5", fts5)]
            for name, current in ways if i % 2 else ways[::-1]:
                store._text_copy.current = current  # type: ignore[method-assign]
                began = time.perf_counter()
                answers.append(ask(i))
                times.setdefault(name, []).append((time.perf_counter() - began) * 1000)
            if answers[0] != answers[1]:
                raise SystemExit(f"the copy and FTS5 differ at {size} rows: {texts[i]!r}")

        times: dict[str, list[float]] = {}
        for i in range(len(questions)):
            both_ways(i, times)
        written: dict[str, list[float]] = {}
        for i in range(min(30, len(questions))):  # a write, then a question (a catch-up first)
            when = as_of - timedelta(minutes=i)
            locomo.load_store(engine, "written", [(f"w{i}", when, "w", f"note {i}: {texts[i]}")])
            both_ways(i, written)
        store._text_copy.current = copy  # type: ignore[method-assign]
    return {
        "rows": size,
        "questions": len(texts),
        "load_s": load_s,
        "arrays_mb": index.nbytes / 1e6,
        "copy_ms": _percentiles(times["copy"]),
        "fts5_ms": _percentiles(times["fts5"]),
        "after_write_ms": {name: _percentiles(values) for name, values in written.items()},
        "loads": store._text_copy.loads,
    }


def _percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"p50": statistics.median(ordered), "p95": ordered[int(0.95 * (len(ordered) - 1))]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("path", type=Path, help="a LoCoMo-format JSON file")
    parser.add_argument("--sizes", default="419,5000,20000")
    parser.add_argument("--repeat", type=int, default=1, help="stores built per size")
    parser.add_argument(
        "--recall", action="store_true", help="time recall embedding its question (MiniLM)"
    )
    parser.add_argument("--out", default="bench/results/fulltext.json")
    args = parser.parse_args()
    data = json.loads(args.path.read_text(encoding="utf-8"))
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in (int(s) for s in args.sizes.split(",")):
            for run in range(args.repeat):
                home = Path(tmp) / f"{size}-{run}"
                results.append(measure(data, size, home, args.recall))
    kept = "shipped" if args.recall else "copy"  # (recall: the copy above 1,000 rows)
    table = [
        [
            "rows",
            "questions",
            "FTS5 p50",
            f"{kept} p50",
            "FTS5 p95",
            f"{kept} p95",
            "after a write",
            "load",
            "MB",
        ]
    ]
    for r in results:
        table.append(
            [
                f"{r['rows']:,}",
                str(r["questions"]),
                f"{r['fts5_ms']['p50']:.2f} ms",
                f"{r['copy_ms']['p50']:.2f} ms",
                f"{r['fts5_ms']['p95']:.2f} ms",
                f"{r['copy_ms']['p95']:.2f} ms",
                "{:.2f} / {:.2f}".format(
                    *(r["after_write_ms"][w]["p50"] for w in ("fts5", "copy"))
                ),
                f"{r['load_s']:.2f} s",
                f"{r['arrays_mb']:.1f}",
            ]
        )
    if args.recall:
        print("recall embedding its question: FTS5 only, or as shipped (beside the embedding,")
        print("FTS5 up to 1,000 rows and the copy above); the same hits both ways")
    else:
        print("full-text search, 200 hits: FTS5, or the copy; the same answers both ways")
    print_table(table, right_align_from=1)
    out = {"runs": results, "recall": args.recall, "file": args.path.name, "machine": machine()}
    write_results(args.out, out)


if __name__ == "__main__":
    main()
