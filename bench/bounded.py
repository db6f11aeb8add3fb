"""Memory of the commands that go through a whole store: export, migrate, pack export.

Each runs as a user runs it (``python -m salience ...`` in a new process) on one store, and
its time and peak resident memory (the child's own, from ``wait4``) are reported. With
``--before SRC`` (another checkout's ``src``) the same commands run that code too, in turn,
on a copy of the store taken back to the schema it knows.

    python bench/bounded.py --home DIR            # a store made by bench/scale.py, say
    python bench/bounded.py --size 100000         # fill one first (synthetic, as scale.py)
        [--commands export,migrate,pack] [--store postgresql://...] [--before SRC]

``migrate`` is both migrations below; ``migrate-sqlite`` or ``migrate-postgresql`` one of them.

``--store`` adds a migrate into a new schema of that PostgreSQL server. Prints a table and
writes JSON (default bench/results/bounded.json).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from common import machine, print_table, store_in, take_back, write_results


def run(command: list[str], src: Path | None) -> dict[str, float]:
    """Run ``command``; its wall time and peak RSS (MB, from the kernel's own count)."""
    environment = dict(os.environ, SALIENCE_SIGNAL_GATE="0", SALIENCE_EMBEDDER="none")
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    if src is not None:
        environment["PYTHONPATH"] = str(src)
    started = time.perf_counter()
    child = subprocess.Popen(command, env=environment, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - started
    if child.returncode:
        raise SystemExit(f"{' '.join(command)} failed ({child.returncode})")
    return {"seconds": seconds, "peak_rss_mb": usage.ru_maxrss / 1024}


def commands(
    home: Path, out: Path, which: list[str], url: str | None
) -> list[tuple[str, list[str]]]:
    salience = [sys.executable, "-m", "salience"]
    found: list[tuple[str, list[str]]] = []
    if "export" in which:
        found.append(
            (
                "export",
                [*salience, "export", str(out / "all.jsonl"), "--home", str(home), "--all-users"],
            )
        )
    if "migrate" in which or "migrate-sqlite" in which:
        target = out / "copy.db"
        found.append(
            (
                "migrate to SQLite",
                [*salience, "migrate", "--from", str(home / "salience.db"), "--to", str(target)],
            )
        )
    if url and ("migrate" in which or "migrate-postgresql" in which):
        found.append(
            (
                "migrate to PostgreSQL",
                [*salience, "migrate", "--from", str(home / "salience.db"), "--to", url],
            )
        )
    if "pack" in which:
        found.append(
            (
                "pack export",
                [
                    *salience,
                    "pack",
                    "export",
                    str(out / "all.pack"),
                    "--home",
                    str(home),
                    "--all-users",
                ],
            )
        )
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--home", type=Path, help="an existing store's home")
    parser.add_argument("--size", type=int, help="fill a store of this many memories first")
    parser.add_argument("--commands", default="export,migrate,pack")
    parser.add_argument("--store", default=None, help="also migrate into this PostgreSQL URL")
    parser.add_argument("--before", type=Path, help="another checkout's src, run in turn")
    parser.add_argument("--out", default="bench/results/bounded.json")
    parser.add_argument("--fill-only", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.fill_only:
        _fill(args.fill_only, args.size)
        return
    which = args.commands.split(",")
    results: dict[str, Any] = {"machine": machine(), "runs": []}
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as tmp:
        work = Path(tmp)
        home = args.home
        if home is None:
            if not args.size:
                raise SystemExit("give --home DIR or --size N")
            home = work / "home"
            fill = [sys.executable, __file__, "--fill-only", str(home), "--size", str(args.size)]
            subprocess.run(fill, check=True)
        homes: list[tuple[str, Path | None, Path]] = [("new", None, home)]
        if args.before is not None:
            copy = work / "before-home"
            copy.mkdir()
            shutil.copyfile(home / "salience.db", copy / "salience.db")
            take_back(copy / "salience.db", args.before)
            homes.insert(0, ("before", args.before, copy))
        size = None
        for code, src, where in homes:
            out = work / f"out-{code}"
            with store_in(args.store, f"bounded_{code}") as url:
                for name, command in commands(where, out, which, url):
                    out.mkdir(exist_ok=True)
                    found = run(command, src)
                    found |= {"code": code, "command": name}
                    results["runs"].append(found)
                    seconds, peak = found["seconds"], found["peak_rss_mb"]
                    print(f"{code:<6} {name:<22} {seconds:8.1f} s {peak:8.0f} MB", flush=True)
                    shutil.rmtree(out)
            if size is None:
                size = _count(where)
        results["memories"] = size
    rows = [["command", "code", "seconds", "peak RSS MB"]]
    for r in results["runs"]:
        rows.append([r["command"], r["code"], f"{r['seconds']:.1f}", f"{r['peak_rss_mb']:.0f}"])
    print(f"\ncommands through a whole store of {results['memories']:,} memories (new processes)")
    print_table(rows, right_align_from=2)
    write_results(args.out, results)


def _fill(home: Path, size: int) -> None:
    """(In a process of its own) a store of ``size`` synthetic memories with vectors, as
    bench/scale.py fills them."""
    from bench_store import TextMaker
    from salience import Config, Memory
    from salience.embeddings.minilm import MiniLMEmbedder
    from scale import POOL, fill

    maker = TextMaker(seed=11)
    pool = MiniLMEmbedder().embed([maker.sentence() for _ in range(POOL)])
    with Memory.open(config=Config(home=home, embedder="none", signal_gate=False)) as memory:
        fill(memory, size, maker, pool, seed=size)


def _count(home: Path) -> int:
    import sqlite3

    conn = sqlite3.connect(home / "salience.db")
    try:
        return int(conn.execute("SELECT count(*) FROM memories").fetchone()[0])
    finally:
        conn.close()


if __name__ == "__main__":
    main()
