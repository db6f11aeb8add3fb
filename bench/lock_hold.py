"""How long each long operation holds the store's write lock at a time (SQLite).

    python bench/lock_hold.py [--lines 3000] [--runs 3] [--out FILE]

A write lock held for a long time is what makes every other writer (another request,
another process) wait, so issue #32 bounds it: about 100 ms at a time. Each operation runs
on a fresh store of ``--lines`` synthetic notes (import itself on an empty one); every
write transaction is timed from BEGIN IMMEDIATE to COMMIT. Printed: the longest hold, the
number of transactions, and the operation's whole time, as medians over ``--runs``.
Writes JSON (default bench/results/lock_hold.json).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))

from bench_store import TextMaker
from common import machine, print_table, write_results
from salience import Memory

try:
    from salience.stores.sqlite.transaction import Transaction
except ImportError:  # code before 2026-11-26 (to measure it side by side)
    from salience.stores.sqlite.connection import (  # type: ignore[attr-defined,no-redef]
        _Transaction as Transaction,
    )

HOLDS: list[float] = []


def instrument() -> None:
    """Time every outermost write transaction of every SQLite store of this process."""
    cls = Transaction
    enter, leave = cls.__enter__, cls.__exit__
    started: dict[int, float] = {}

    def timed_enter(self: Any) -> None:
        enter(self)
        if self._store._depth == 1:
            started[id(self._store)] = time.perf_counter()

    def timed_exit(self: Any, *exc: Any) -> None:
        outer = self._store._depth == 1
        try:
            leave(self, *exc)
        finally:
            if outer:
                HOLDS.append(time.perf_counter() - started.pop(id(self._store)))

    cls.__enter__ = timed_enter  # type: ignore[method-assign]
    cls.__exit__ = timed_exit  # type: ignore[method-assign]


def lines_of(count: int, seed: int, *, created_at: str | None = None) -> list[str]:
    maker = TextMaker(seed)
    extra = {} if created_at is None else {"created_at": created_at}
    return [
        json.dumps(
            {
                "content": maker.sentence(),
                "tags": [f"project:p{i % 5}"],
                "entities": [f"Entity{i % 97}"],
                **extra,
            }
        )
        for i in range(count)
    ]


def near_duplicates(count: int, seed: int) -> list[str]:
    """Notes in groups of three that say nearly the same thing, for consolidate to merge."""
    maker = TextMaker(seed)
    out = []
    for i in range(count // 3):
        base = maker.sentence(12, 20)
        for variant in ("", " Indeed.", " Noted again."):
            out.append(json.dumps({"content": base + variant, "tags": [f"group:{i % 7}"]}))
    return out


def measure(
    name: str,
    setup: Callable[[Memory], Any],
    run: Callable[[Memory, Any], Any],
    home: Path,
    *,
    embedder: str = "default",
) -> dict[str, float]:
    with Memory.open(home / "memory.db") as memory:
        state = setup(memory)
        HOLDS.clear()
        started = time.perf_counter()
        run(memory, state)
        total = time.perf_counter() - started
    holds = list(HOLDS)
    return {
        "longest_ms": 1000 * max(holds, default=0.0),
        "transactions": float(len(holds)),
        "total_ms": 1000 * total,
    }


def operations(
    lines: int,
) -> dict[str, tuple[Callable[[Memory], Any], Callable[[Memory, Any], Any]]]:
    plain = lines_of(lines, 11)
    dupes = near_duplicates(lines, 12)
    aged = lines_of(lines, 13, created_at="2026-01-05T10:00:00Z")  # decays: maintain writes

    def seeded(source: list[str]) -> Callable[[Memory], Any]:
        def setup(memory: Memory) -> Any:
            memory.import_(source)
            return None

        return setup

    def pack_setup(memory: Memory) -> Any:
        memory.import_(plain)
        path = Path(tempfile.mkdtemp()) / "bench.pack"
        memory.export_pack(path)
        for record in memory.list(limit=None):
            memory.purge(record.id)
        return path

    def reindex_setup(memory: Memory) -> Any:
        memory.import_(plain)
        memory._store.clear_vectors()
        return None

    return {
        "import": (lambda m: None, lambda m, _: m.import_(plain)),
        "consolidate": (seeded(dupes), lambda m, _: m.consolidate()),
        "maintain": (seeded(aged), lambda m, _: m.maintain()),
        "reindex": (reindex_setup, lambda m, _: m.reindex()),
        "export_pack": (
            seeded(plain),
            lambda m, _: m.export_pack(Path(tempfile.mkdtemp()) / "out.pack"),
        ),
        "import_pack": (pack_setup, lambda m, path: m.import_pack(path)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", default="", help="comma-separated operation names")
    parser.add_argument("--out", type=Path, default=Path("bench/results/lock_hold.json"))
    args = parser.parse_args()
    instrument()
    wanted = {n for n in args.only.split(",") if n}
    results: dict[str, dict[str, float]] = {}
    for name, (setup, run) in operations(args.lines).items():
        if wanted and name not in wanted:
            continue
        runs = []
        for _ in range(args.runs):
            with tempfile.TemporaryDirectory() as home:
                runs.append(measure(name, setup, run, Path(home)))
        results[name] = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    rows = [
        [name, f"{r['longest_ms']:.1f}", f"{r['transactions']:.0f}", f"{r['total_ms']:.0f}"]
        for name, r in results.items()
    ]
    print(f"{args.lines} memories, medians of {args.runs} runs, SQLite, {machine()['cpu']}")
    print_table([["operation", "longest hold ms", "transactions", "whole ms"], *rows], 1)
    write_results(args.out, {"machine": machine(), "lines": args.lines, "results": results})


if __name__ == "__main__":
    main()
