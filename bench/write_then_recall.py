"""Recall in a process that writes before each recall (an agent's pattern), this tree beside
another (``--before SRC``), each in new processes, alternated.

    python bench/write_then_recall.py --longmemeval PATH [--before OTHER/src] [--size 15000]
                                      [--writes 600] [--runs 2] [--cache DIR]
                                      [--out bench/results/write_then_recall.json]

One store holds a LongMemEval file's first ``--size`` distinct turns (their MiniLM vectors
cached in ``--cache``, as ``bench/write_overhead.py --real`` fills it). Each run starts a new
process per tree on its own copy of it, which writes the next ``--writes`` turns one by one,
each followed by a recall of one of the file's questions (their vectors embedded beforehand:
the time is recall beyond the query's embedding), and times every recall and its full-text
search. No search sees the store as the one before it did: what a recall re-reads after a
write (the full-text copy's catch-up: :mod:`salience.stores.sqlite.textcopy`) runs each
time, and a cache that loads only for a store read twice in one state never loads.

Prints each run's medians (all recalls, and the second half's, after whatever a process loads
at its start) and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
sys.path.insert(0, str(HERE))

from common import machine, print_table, write_results  # noqa: E402


def child(home: Path, turns: list[str], questions: list[str]) -> dict[str, Any]:
    """In the tree under test: write each turn, then recall a question; the times (ms)."""
    import numpy as np

    import salience
    from salience import Config, Memory
    from salience.embeddings.minilm import MiniLMEmbedder
    from salience.engine.record import QUERY_VECTORS
    from salience.stores.sqlite import fulltext

    model = MiniLMEmbedder()
    unique = list(dict.fromkeys(questions))
    given = {
        q: np.asarray(v, dtype=np.float32) for q, v in zip(unique, model.embed(unique), strict=True)
    }
    full_text: list[float] = []
    search = fulltext.FullText._fts

    def timed(self: Any, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return search(self, *args, **kwargs)
        finally:
            full_text.append((time.perf_counter() - started) * 1000)

    fulltext.FullText._fts = timed  # type: ignore[method-assign]
    recalls: list[float] = []
    try:
        with Memory.open(config=Config(home=home, signal_gate=False), embedder=model) as memory:
            for turn, question in zip(turns, questions, strict=True):
                memory.remember(turn, force=True)
                token = QUERY_VECTORS.set(given)
                try:
                    started = time.perf_counter()
                    memory.search(question, touch=False)
                    recalls.append((time.perf_counter() - started) * 1000)
                finally:
                    QUERY_VECTORS.reset(token)
    finally:
        fulltext.FullText._fts = search  # type: ignore[method-assign]
    return {"recall_ms": recalls, "full_text_ms": full_text, "code": salience.__file__}


def medians(times: dict[str, list[float]]) -> dict[str, float]:
    """Each series' median, and its second half's."""
    out: dict[str, float] = {}
    for name, values in times.items():
        if not name.endswith("_ms"):
            continue
        key = name.removesuffix("_ms")
        out[f"{key}_median_ms"] = statistics.median(values)
        out[f"{key}_second_half_median_ms"] = statistics.median(values[len(values) // 2 :])
    return out


def run_tree(src: Path, base: Path, work: Path, spec: Path) -> dict[str, Any]:
    """One new process of the tree at ``src`` on a copy of ``base``."""
    home = work / "home"
    if home.exists():
        shutil.rmtree(home)
    shutil.copytree(base, home)
    command = [sys.executable, str(Path(__file__).resolve()), "--child", str(src), str(home)]
    env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{HERE}"}
    done = subprocess.run(
        [*command, str(spec)], capture_output=True, text=True, check=False, env=env
    )
    if done.returncode != 0:
        raise SystemExit(f"{src}: the process failed:\n{done.stderr[-2000:]}")
    found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if not Path(found.pop("code")).is_relative_to(src):
        raise SystemExit(f"the process ran salience from elsewhere than {src}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--longmemeval", type=Path, help="a LongMemEval file (its turns)")
    parser.add_argument("--before", type=Path, help="another checkout's src")
    parser.add_argument("--size", type=int, default=15_000)
    parser.add_argument("--writes", type=int, default=600)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--cache", type=Path, default=Path("~/.cache/salience-bench"))
    parser.add_argument("--out", type=Path, default=HERE / "results" / "write_then_recall.json")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _, home, spec = args.child
        given = json.loads(Path(spec).read_text(encoding="utf-8"))
        print(json.dumps(child(Path(home), given["turns"], given["questions"])))
        return
    if args.longmemeval is None:
        parser.error("--longmemeval PATH is required")
    from scale import real_questions
    from write_overhead import fill_store

    trees = {"this": SRC} | ({"before": args.before.resolve()} if args.before else {})
    results: dict[str, Any] = {"machine": machine(), "size": args.size, "writes": args.writes}
    rows = [["run", "tree", "recall ms", "2nd half", "full text ms", "2nd half"]]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        turns = fill_store(work / "base", args.size, args.longmemeval, args.cache.expanduser())
        assert turns is not None
        if len(turns) < args.writes:
            raise SystemExit(
                f"the file has {len(turns)} turns after the store's, not {args.writes}"
            )
        asked = real_questions(args.longmemeval)
        spec = work / "spec.json"
        spec.write_text(
            json.dumps(
                {
                    "turns": turns[: args.writes],
                    "questions": [asked[i % len(asked)] for i in range(args.writes)],
                }
            ),
            encoding="utf-8",
        )
        runs: list[dict[str, Any]] = []
        for run in range(args.runs):
            order = list(trees) if run % 2 == 0 else list(reversed(trees))
            measured: dict[str, Any] = {}
            for name in order:
                found = medians(run_tree(trees[name], work / "base", work, spec))
                measured[name] = found
                rows.append(
                    [
                        str(run + 1),
                        name,
                        f"{found['recall_median_ms']:.2f}",
                        f"{found['recall_second_half_median_ms']:.2f}",
                        f"{found['full_text_median_ms']:.2f}",
                        f"{found['full_text_second_half_median_ms']:.2f}",
                    ]
                )
            runs.append(measured)
        results["runs"] = runs
    print(f"a write before each recall, {args.size:,} LongMemEval turns, {args.writes} writes")
    print_table(rows, right_align_from=2)
    write_results(args.out, results)


if __name__ == "__main__":
    main()
