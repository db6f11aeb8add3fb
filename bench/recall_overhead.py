"""Recall latency of this checkout beside another (``--before SRC``), on one store, in turn.

For a change to the recall path that adds work to every search (such as the check that the
store's indexes hold every memory, which a recall reports as ``degraded`` when they do not):
one store of ``--size`` memories is filled once by the code before (bulk import, synthetic
MiniLM-like vectors, as bench/scale.py does), the queries are embedded once beforehand (so
the timing is the search beyond the query embedding, where such a change shows), then each
tree's code runs in a process of its own, ``--rounds`` times alternating, and times:

- ``read``: ``--queries`` recalls in a row (the store unchanged between them);
- ``after write``: a memory written (not timed), then one recall, ``--queries`` times: each
  recall sees a changed store, so whatever a recall re-checks after a change runs each time.

- ``embedding``: each query embedded by recall itself, less the same query's embedding alone
  just before it: what a user waits for beyond the model, with the full-text search beside
  the embedding as recall runs it.

``--locomo PATH --conversation conv-41`` fills the store with that LoCoMo conversation's
turns instead (MiniLM vectors) and asks its questions (categories 1-4).

Each cell is the median over the rounds of each round's median (p95 beside it).

``--paired`` times the two trees side by side instead: each in one process that stays up,
on its own copy of the store, the queries in blocks of ``--block`` (20) given to one tree
then the other (which goes first alternates), the first of a block not counted (its caches
held the other tree's work). On a machine whose speed drifts minute by minute (a shared
virtual machine), the rounds above differ by a fifth from one another; two trees a few
milliseconds apart meet the same drift. Beside the medians it gives the median of each
query's ratio (this tree's time over the one before's, at the same query and round).

    python bench/recall_overhead.py --before /tmp/before/src [--size 100000] [--queries 200]
                                    [--rounds 5] [--out bench/results/recall_overhead.json]
                                    [--locomo PATH [--conversation conv-41]]
                                    [--paired [--block 20]]
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
from collections.abc import Iterable
from pathlib import Path
from subprocess import PIPE
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import numpy as np

HERE = Path(__file__).parent
SRC = HERE.parent / "src"
KINDS = ("read", "after write", "embedding")


class Timer:
    """One tree's recalls on its copy of the store, one at a time (see the module's text)."""

    def __init__(self, home: Path, queries: Path) -> None:
        from bench_store import TextMaker
        from salience import Config, Memory
        from salience.embeddings.minilm import MiniLMEmbedder

        given = json.loads(queries.read_text(encoding="utf-8"))
        self.texts = list(given)
        self._vectors = {t: np.array(v, dtype=np.float32) for t, v in given.items()}
        self._model = MiniLMEmbedder()
        config = Config(home=home, signal_gate=False)
        self.memory = Memory.open(config=config, embedder=self._model)
        self._maker = TextMaker(seed=os.getpid())
        for text in self.texts[:20]:  # (warm: vectors loaded, caches filled)
            self.time("read", text)

    def time(self, kind: str, text: str) -> float:
        """Seconds: a recall of ``text`` (``read``); one after a memory is written (``after
        write``; the write not timed); recall embedding ``text`` less its embedding alone
        (``embedding``)."""
        from salience.engine.record import QUERY_VECTORS

        if kind == "embedding":
            started = time.perf_counter()
            self._model.embed([text])
            alone = time.perf_counter() - started
            started = time.perf_counter()
            self.memory.search(text, touch=False)
            return time.perf_counter() - started - alone
        token = QUERY_VECTORS.set(self._vectors)
        try:
            if kind == "after write":
                self.memory.remember(self._maker.sentence(), force=True)
            started = time.perf_counter()
            self.memory.search(text, touch=False)
            return time.perf_counter() - started
        finally:
            QUERY_VECTORS.reset(token)


def child(home: Path, queries: Path, count: int) -> dict[str, Any]:
    """In the tree under test: open the store, time recalls (see the module's text), each
    kind ``count`` times in a row."""
    from bench_store import percentile

    timer = Timer(home, queries)
    try:
        order = ("read", "embedding", "after write")  # (the writes last: the store grows)
        times = {kind: [timer.time(kind, t) for t in timer.texts[:count]] for kind in order}
    finally:
        timer.memory.close()
    return {
        kind: {
            "median_ms": statistics.median(values) * 1000,
            "p95_ms": percentile(values, 95) * 1000,
        }
        for kind, values in times.items()
    }


def serve(home: Path, queries: Path) -> None:
    """In the tree under test, for ``--paired``: each line ``KIND FIRST END`` (the kind's
    spaces as underscores) times the queries ``FIRST..END-1`` in a row, printed as a JSON
    list of seconds."""
    timer = Timer(home, queries)
    print("ready", flush=True)
    for line in sys.stdin:
        kind, first, end = line.split()
        texts = timer.texts[int(first) : int(end)]
        print(json.dumps([timer.time(kind.replace("_", " "), t) for t in texts]), flush=True)
    timer.memory.close()


def paired(
    trees: dict[str, Path], base: Path, queries: Path, count: int, rounds: int, block: int
) -> dict[str, dict[str, list[float]]]:
    """Seconds of each tree's recalls, by kind, query by query in the same order for both
    (see ``--paired`` in the module's text)."""
    count = min(count, len(json.loads(queries.read_text(encoding="utf-8"))))
    servers: dict[str, subprocess.Popen[str]] = {}
    times: dict[str, dict[str, list[float]]] = {n: {k: [] for k in KINDS} for n in trees}
    try:
        for name, src in trees.items():
            home = base.parent / f"{name}-paired"
            shutil.copytree(base, home)
            env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{HERE}"}
            command = [sys.executable, __file__, "--before", str(src)]
            command += ["--serve", str(home), str(queries)]
            servers[name] = subprocess.Popen(command, stdin=PIPE, stdout=PIPE, text=True, env=env)
            if _answer(servers[name]) != "ready":
                raise SystemExit(f"the {name} tree's timer did not start")
        for turn in range(rounds):
            for kind in KINDS:
                for start in range(0, count, block):
                    names = list(trees) if (start // block + turn) % 2 == 0 else list(trees)[::-1]
                    for name in names:
                        first = max(0, start - 1)  # (not counted: it warms the caches)
                        asked = f"{kind.replace(' ', '_')} {first} {start + block}"
                        got = json.loads(_answer(servers[name], asked))
                        times[name][kind] += got[start - first :][: count - start]
    finally:
        _stop(servers.values())
    return times


def fill_store(
    home: Path, size: int, queries: int, out: Path, conversation: tuple[Path, str] | None
) -> None:
    from bench_store import TextMaker
    from salience import Config, Memory
    from salience.embeddings.minilm import MiniLMEmbedder
    from scale import POOL, fill

    if conversation is not None:
        fill_conversation(home, out, *conversation)
        return
    maker = TextMaker(seed=11)
    embedder = MiniLMEmbedder()
    pool = embedder.embed([maker.sentence() for _ in range(POOL)])
    texts = [maker.query() for _ in range(queries + 20)]
    asked = embedder.embed(texts)
    out.write_text(json.dumps({t: v.tolist() for t, v in zip(texts, asked, strict=True)}))
    with Memory.open(config=Config(home=home, signal_gate=False), embedder=None) as memory:
        fill(memory, size, maker, pool, seed=3)


def fill_conversation(home: Path, out: Path, path: Path, sample_id: str) -> None:
    """The store of one LoCoMo conversation's turns, and its questions' vectors in ``out``."""
    from locomo import load_store, turns
    from salience import Config, Memory
    from salience.embeddings.minilm import MiniLMEmbedder

    data = json.loads(path.read_text(encoding="utf-8"))
    found = [s for s in data if s["sample_id"] == sample_id]
    if not found:
        raise SystemExit(f"{path} has no conversation {sample_id!r}")
    sample = found[0]
    texts = [qa["question"] for qa in sample["qa"] if qa.get("category") in (1, 2, 3, 4)]
    embedder = MiniLMEmbedder()
    asked = embedder.embed(texts)
    out.write_text(json.dumps({t: v.tolist() for t, v in zip(texts, asked, strict=True)}))
    with Memory.open(config=Config(home=home, signal_gate=False), embedder=embedder) as memory:
        load_store(memory, sample_id, turns(sample["conversation"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="another checkout's src")
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "recall_overhead.json")
    parser.add_argument("--locomo", type=Path, help="a LoCoMo file: one conversation's store")
    parser.add_argument("--conversation", default="conv-41", help="with --locomo")
    parser.add_argument("--paired", action="store_true", help="side by side, block by block")
    parser.add_argument("--block", type=int, default=20, help="with --paired")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--serve", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--fill", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(Path(args.serve[0]), Path(args.serve[1]))
        return
    if args.fill:
        conversation = (args.locomo, args.conversation) if args.locomo else None
        fill_store(Path(args.fill[0]), args.size, args.queries, Path(args.fill[1]), conversation)
        return
    if args.child:
        home, queries, count = args.child
        print(json.dumps(child(Path(home), Path(queries), int(count))))
        return

    trees = {"before": args.before.resolve(), "this": SRC.resolve()}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory() as tmp:
        base, queries = Path(tmp) / "base", Path(tmp) / "queries.json"
        # Filled by the code before (a store made by newer code may not open in older code;
        # the newer code migrates its copy as it opens, before any timing).
        env = {**os.environ, "PYTHONPATH": f"{trees['before']}{os.pathsep}{HERE}"}
        command = [sys.executable, __file__, "--before", str(trees["before"])]
        command += ["--size", str(args.size), "--queries", str(args.queries)]
        if args.locomo:
            command += ["--locomo", str(args.locomo.resolve()), "--conversation", args.conversation]
        subprocess.run([*command, "--fill", str(base), str(queries)], check=True, env=env)
        if args.paired:
            side = paired(trees, base, queries, args.queries, args.rounds, max(1, args.block))
            report_paired(args, side)
            return
        for _ in range(args.rounds):
            for name, src in trees.items():
                home = Path(tmp) / name  # (a copy each round: the writes do not pile up)
                subprocess.run(["rm", "-rf", str(home)], check=True)
                subprocess.run(["cp", "-r", str(base), str(home)], check=True)
                env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{HERE}"}
                command = [sys.executable, __file__, "--before", str(src)]
                command += ["--child", str(home), str(queries), str(args.queries)]
                done = subprocess.run(command, check=True, capture_output=True, text=True, env=env)
                runs[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
    report_rounds(args, runs)


def _stop(servers: Iterable[subprocess.Popen[str]]) -> None:
    """Close each ``--serve`` process's input, and wait for it to end."""
    for server in servers:
        assert server.stdin is not None
        assert server.stdout is not None
        server.stdin.close()
        server.wait()
        server.stdout.close()


def _answer(server: subprocess.Popen[str], asked: str | None = None) -> str:
    """A ``--serve`` process's next line (after sending it ``asked``)."""
    assert server.stdin is not None
    assert server.stdout is not None
    if asked is not None:
        server.stdin.write(asked + "\n")
        server.stdin.flush()
    return server.stdout.readline().strip()


def report_rounds(args: argparse.Namespace, runs: dict[str, list[dict[str, Any]]]) -> None:
    """The table and JSON of the rounds (each tree's process in turn)."""
    table: list[list[str]] = [["tree", "recall", "median ms", "p95 ms"]]
    summary: dict[str, Any] = {}
    for name, done in runs.items():
        for kind in KINDS:
            medians = [r[kind]["median_ms"] for r in done]
            p95s = [r[kind]["p95_ms"] for r in done]
            summary.setdefault(name, {})[kind] = {
                "median_ms": statistics.median(medians),
                "p95_ms": statistics.median(p95s),
            }
            table.append(
                [name, kind, f"{statistics.median(medians):.3f}", f"{statistics.median(p95s):.3f}"]
            )
    for kind in KINDS:
        ratio = summary["this"][kind]["median_ms"] / summary["before"][kind]["median_ms"]
        table.append(["this / before", kind, f"{ratio:.3f}", ""])
    _report(args, f"{args.rounds} rounds", table, {"summary": summary, "runs": runs})


def report_paired(args: argparse.Namespace, side: dict[str, dict[str, list[float]]]) -> None:
    """The table and JSON of a ``--paired`` run."""
    from bench_store import percentile

    table: list[list[str]] = [["tree", "recall", "median ms", "p95 ms"]]
    summary: dict[str, Any] = {}
    for name, kinds in side.items():
        for kind, values in kinds.items():
            cell = {
                "median_ms": statistics.median(values) * 1000,
                "p95_ms": percentile(values, 95) * 1000,
            }
            summary.setdefault(name, {})[kind] = cell
            table.append([name, kind, f"{cell['median_ms']:.3f}", f"{cell['p95_ms']:.3f}"])
    for kind in KINDS:
        ratio = summary["this"][kind]["median_ms"] / summary["before"][kind]["median_ms"]
        pairs = statistics.median(
            t / b for b, t in zip(side["before"][kind], side["this"][kind], strict=True) if b > 0
        )
        summary.setdefault("ratio", {})[kind] = {"of_medians": ratio, "median_of_pairs": pairs}
        table.append(["this / before", kind, f"{ratio:.3f}", f"pairs {pairs:.3f}"])
    counted = len(side["this"][KINDS[0]])
    times = {n: {k: [v * 1000 for v in vs] for k, vs in ks.items()} for n, ks in side.items()}
    extra = {"block": args.block, "paired": True, "summary": summary, "times_ms": times}
    _report(args, f"side by side ({counted} each)", table, extra)


def _report(
    args: argparse.Namespace, how: str, table: list[list[str]], results: dict[str, Any]
) -> None:
    """Print ``table`` under a title saying which store and ``how``; write the JSON."""
    from common import machine, print_table, write_results

    store = f"LoCoMo {args.conversation}" if args.locomo else f"{args.size:,} memories"
    print(f"recall latency beyond the query embedding, {store}, {how}")
    print_table(table, right_align_from=2)
    header = {"machine": machine(), "size": args.size, "store": store, "queries": args.queries}
    header |= {"rounds": args.rounds, "before": str(args.before)}
    write_results(args.out, header | results)


if __name__ == "__main__":
    main()
