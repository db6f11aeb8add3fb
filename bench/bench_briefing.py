"""Briefing benchmark: per profile, scoring time and whole-briefing time at several sizes.

    python bench/bench_briefing.py [--sizes 200,10000,100000] [--repeat 7] [--out FILE]

For each profile it reports the median time to compute the context score of 200 memories one
by one (talome's document claims < 1 ms), and the median time of a whole briefing:

- "engine": `Memory.briefing` in a warm process (what a server or MCP process pays): the
  columns are current, the engine checks the store for changes, the policy runs and the shown
  memories are read;
- "after write": the same right after one `remember` (the columns catch up with one row);
- "policy": the policy alone on candidates already held as columns;
- "cold": the first briefing of a new engine (start-up aside), once with the columns saved
  beside the store and once reading every row (the file removed);
- "rank" and "session start": `Memory.rank(limit=20)` and `Memory.session_start` in a warm
  process (both order the whole store).

    python bench/bench_briefing.py --cold [--size 100000] [--runs 5] [--out FILE]

measures what a session-start hook pays: `salience briefing --profile P` as a new process
(the CLI, start-up and imports included, bytecode cached as in an installed package), the
median of ``--runs`` processes per profile, beside the same median for a bare interpreter,
for `python -c "import numpy"` (the floor below which no briefing goes) and for importing the
CLI's modules and numpy without doing anything (the part of a briefing that is start-up),
on a store of ``--size`` memories written in time order (as a store written over time is),
and `salience hook session-start` computing its briefing and asking a running `salience serve`.

    python bench/bench_briefing.py --hooks OLD/src [--home DIR | --size N] [--runs N]

times that hook with another checkout's code (``OLD/src``) and this one alternated, on copies
of one store (taken back to the schema the older code knows), computed and asked of a
`salience serve` of the same code.

Prints a table and writes JSON (default bench/results/briefing.json, cold_briefing.json).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from bench_store import TextMaker
from common import machine, print_table, take_back, write_results
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
    parser.add_argument("--cold", action="store_true", help="new processes (see above)")
    parser.add_argument("--size", type=int, default=100000, help="with --cold")
    parser.add_argument("--runs", type=int, default=5, help="with --cold or --hooks")
    parser.add_argument("--hooks", type=Path, metavar="SRC", help="the hook, SRC's code and this")
    parser.add_argument("--home", type=Path, default=None, help="with --hooks: an existing store")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    if args.hooks is not None:
        out = args.out or "bench/results/hooks.json"
        hooks_main(args.home, args.size, args.runs, args.hooks, out)
        return
    if args.cold:
        cold_main(args.size, args.runs, args.out or "bench/results/cold_briefing.json")
        return
    args.out = args.out or "bench/results/briefing.json"
    sizes = [int(s) for s in args.sizes.split(",")]
    maker, rng = TextMaker(), random.Random(11)
    settings = ProfileSettings()
    results: dict[str, object] = {"machine": machine()}
    per_profile: dict[str, dict[str, float]] = {name: {} for name in PROFILES}
    cold: dict[str, float] = {}
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
                    row[f"rank_{size}_ms"] = median_ms(
                        lambda m=memory, n=name: m.rank(n, as_of=NOW, limit=20), repeat
                    )
                    row[f"session_start_{size}_ms"] = median_ms(
                        lambda m=memory, n=name: m.session_start(profile=n, as_of=NOW), repeat
                    )
            for saved in (True, False):
                if not saved:
                    (home / "salience.db.columns").unlink(missing_ok=True)
                with Memory.open(config=Config(home=home), embedder=None) as memory:
                    start = time.perf_counter()
                    memory.briefing("salience", project="p1", as_of=NOW)
                    cold[f"{size}_{'saved' if saved else 'whole_read'}"] = (
                        time.perf_counter() - start
                    ) * 1000
    results["profiles"] = per_profile
    results["cold_salience_ms"] = cold
    report(per_profile, sizes, cold)
    write_results(args.out, results)


def write_then_brief(memory: Memory, name: str, maker: TextMaker) -> None:
    memory.remember(maker.sentence(6, 30), tags=["project:p1"])
    memory.briefing(name, project="p1", as_of=NOW)


KINDS = ("policy", "engine", "after_write", "rank", "session_start")


def report(
    per_profile: dict[str, dict[str, float]], sizes: list[int], cold: dict[str, float]
) -> None:
    header = ["profile", "score 200"]
    for size in sizes:
        header += [f"{kind.replace('_', ' ')} {size:,}" for kind in KINDS]
    rows = [header]
    for name, row in per_profile.items():
        cells = [name, f"{row['score_200_ms']:.3f} ms"]
        for size in sizes:
            cells += [f"{row[f'{kind}_{size}_ms']:.1f} ms" for kind in KINDS]
        rows.append(cells)
    print_table(rows, right_align_from=1)
    print(
        "cold (first briefing of a new engine, salience, start-up aside): "
        + ", ".join(f"{key.replace('_', ' ')}: {ms:.0f} ms" for key, ms in cold.items())
    )
    print(
        "targets: score 200 <= 1 ms; briefing at 200 <= 5 ms; at 100,000 <= 100 ms; "
        "rank and session start at 100,000 <= 100 ms"
    )


@contextmanager
def serving(env: dict[str, str]) -> Iterator[None]:
    """``salience serve`` on a free loopback port for the home in ``env``, once it answers."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    server = subprocess.Popen(
        [sys.executable, "-m", "salience", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        yield
    finally:
        server.terminate()
        server.wait()


def _fill(home: Path, size: int) -> None:
    """A store of ``size`` synthetic memories at ``home``, written in time order (as a store
    written over time is)."""
    lines = corpus(size, TextMaker(), random.Random(11))
    lines.sort(key=lambda line: json.loads(line)["created_at"])
    with Memory.open(config=Config(home=home), embedder=None) as memory:
        for start in range(0, size, 20000):
            memory.import_(lines[start : start + 20000])


def cold_main(size: int, runs: int, out: str) -> None:
    """New processes, as a session-start hook runs them (see the module doc)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    results: dict[str, object] = {"machine": machine(), "size": size, "runs": runs}
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        _fill(home, size)
        env["SALIENCE_HOME"] = str(home)

        def timed(argv: list[str]) -> float:
            start = time.perf_counter()
            subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
            return (time.perf_counter() - start) * 1000

        def brief(profile: str) -> list[str]:
            return [sys.executable, "-m", "salience", "briefing", "--profile", profile]

        first = timed(brief("salience"))  # reads the store whole, saves the columns
        timed(brief("salience"))  # (and bytecode is cached from here on)
        medians = {
            "python": statistics.median(timed([sys.executable, "-c", "pass"]) for _ in range(runs)),
            "import numpy": statistics.median(
                timed([sys.executable, "-c", "import numpy"]) for _ in range(runs)
            ),
            "import the CLI + numpy": statistics.median(
                timed([sys.executable, "-c", "import salience.cli, numpy"]) for _ in range(runs)
            ),
        }
        for name in PROFILES:
            medians[name] = statistics.median(timed(brief(name)) for _ in range(runs))
        hook = [sys.executable, "-m", "salience", "hook", "session-start"]
        medians["hook, computed"] = statistics.median(timed(hook) for _ in range(runs))
        with serving(env):
            timed(hook)  # (the server's first briefing reads its columns: not the hook's cost)
            medians["hook, server running"] = statistics.median(timed(hook) for _ in range(runs))
    results["first_process_ms"] = first
    results["median_ms"] = medians
    rows = [["new process", f"median of {runs} (ms)"]]
    rows += [[name, f"{ms:.0f}"] for name, ms in medians.items()]
    print_table(rows, right_align_from=1)
    print(f"the first process (no saved columns yet, reads {size:,} rows): {first:.0f} ms")
    print("targets: every profile <= 300 ms; the hook with a server running <= 60 ms")
    write_results(out, results)


def hooks_main(home: Path | None, size: int, runs: int, before: Path, out: str) -> None:
    """The session-start hook in new processes, ``before``'s code and this one alternated on
    copies of one store: computed in the process, and asked of a `salience serve` of the same
    code (each its own server)."""
    results: dict[str, Any] = {"machine": machine(), "runs": runs, "before": str(before)}
    with tempfile.TemporaryDirectory() as tmp:
        if home is None:
            home = Path(tmp) / "home"
            _fill(home, size)
        copy = Path(tmp) / "before-home"
        copy.mkdir()
        for name in ("salience.db", "salience.db.columns"):
            if (home / name).exists():
                shutil.copyfile(home / name, copy / name)
        take_back(copy / "salience.db", before)
        codes = {"before": (before, copy), "this": (None, home)}

        def env(code: str) -> dict[str, str]:
            src, where = codes[code]
            found = {
                k: v
                for k, v in os.environ.items()
                if not k.startswith("SALIENCE_")
                and k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")
            }
            return found | {"SALIENCE_HOME": str(where)} | ({"PYTHONPATH": str(src)} if src else {})

        hook = [sys.executable, "-m", "salience", "hook", "session-start"]

        def timed(code: str) -> float:
            start = time.perf_counter()
            subprocess.run(hook, env=env(code), check=True, stdout=subprocess.DEVNULL)
            return (time.perf_counter() - start) * 1000

        times: dict[str, list[float]] = {}
        for code in codes:  # columns saved, bytecode cached
            timed(code)
            timed(code)
        for _ in range(runs):
            for code in codes:
                times.setdefault(f"{code}, computed", []).append(timed(code))
        with serving(env("before")), serving(env("this")):
            for code in codes:
                timed(code)  # (a server's first briefing reads its columns)
            for _ in range(runs):
                for code in codes:
                    times.setdefault(f"{code}, server running", []).append(timed(code))
    results["median_ms"] = {k: statistics.median(v) for k, v in times.items()}
    results["runs_ms"] = times
    rows = [["session-start hook", f"median of {runs} (ms)", "min", "max"]]
    rows += [
        [k, f"{statistics.median(v):.0f}", f"{min(v):.0f}", f"{max(v):.0f}"]
        for k, v in times.items()
    ]
    print_table(rows, right_align_from=1)
    print("targets: computed <= 300 ms; with a server running <= 60 ms")
    write_results(out, results)


if __name__ == "__main__":
    main()
