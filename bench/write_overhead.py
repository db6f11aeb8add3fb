"""What a write costs with updates on, the code before and now side by side, paired by text.

    python bench/write_overhead.py --before /tmp/before/src [--size 100000] [--writes 200]
                                   [--block 20] [--real LONGMEMEVAL [--cache DIR]]
                                   [--out bench/results/write_overhead.json]

Three processes that stay up, each on its own copy of one store of ``--size`` synthetic
memories (as ``bench/scale.py`` makes them): this tree with ``updates=off``, the tree before
and this tree with ``updates=link``. The same synthetic texts are written by each, in blocks
of ``--block`` given to one process after another (which goes first rotates), the first of a
block not counted (its caches held the other processes' work); a process waits, idle, while
another writes. ``--real``: a LongMemEval file's first ``--size`` distinct turns fill the
store (their MiniLM vectors cached in ``--cache``) and the next ones are written; documents
and questions among them look for nothing, so the median over the writes that looked is
given too (``bench/updates.py`` counts the same way).

``bench/updates.py --cost`` pairs two policies in one process; this pairs two trees, which a
scratch script did for each change before: on a machine whose speed drifts minute by minute,
runs of one tree after the other moved by more than a change of 0.4 ms.

It gives each process's median, and the median of each text's difference: now - off,
before - off, now - before.
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
from subprocess import PIPE

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
sys.path.insert(0, str(HERE))

from recall_overhead import _answer, _stop  # noqa: E402

NAMES = ("off", "before", "now")


def texts(count: int) -> list[str]:
    """The synthetic texts every process writes, in order (8 to 30 words, as
    ``bench/updates.py``)."""
    from bench_store import TextMaker

    maker = TextMaker(seed=17)
    return [maker.sentence(8, 30) for _ in range(count)]


def fill_store(
    home: Path, size: int, real: Path | None = None, cache: Path | None = None
) -> list[str] | None:
    """The store of ``size`` memories; with ``real``, its turns, and the turns after them."""
    from salience import Config, Memory
    from salience.embeddings.minilm import MiniLMEmbedder

    with Memory.open(config=Config(home=home, signal_gate=False), embedder=None) as memory:
        if real is not None:
            from scale import fill_real, real_turns

            rows = real_turns(real, size + 5000)
            fill_real(memory, rows[:size], cache or Path(tempfile.gettempdir()))
            return [text for text, _ in rows[size:]]
        from bench_store import TextMaker
        from scale import POOL, fill

        maker = TextMaker(seed=5)
        pool = MiniLMEmbedder().embed([maker.sentence() for _ in range(POOL)])
        fill(memory, size, maker, pool, seed=3)
    return None


def serve(home: Path, updates: str, given: Path) -> None:
    """In a tree under test: each line ``FIRST END`` writes the texts ``FIRST..END-1`` of
    ``given`` (a JSON list) in a row, printed as a JSON list of seconds."""
    from salience import Config, Memory

    config = Config(home=home, signal_gate=False, updates=updates, max_content_bytes=1 << 20)
    written = json.loads(given.read_text(encoding="utf-8"))
    with Memory.open(config=config) as memory:
        memory.search("warm up", touch=False)  # (the vectors loaded, the model too)
        print("ready", flush=True)
        for line in sys.stdin:
            first, end = map(int, line.split())
            took = []
            for text in written[first:end]:
                started = time.perf_counter()
                memory.remember(text, force=True)
                took.append(time.perf_counter() - started)
            print(json.dumps(took), flush=True)


def paired(
    trees: dict[str, tuple[Path, str]],
    base: Path,
    writes: int,
    block: int,
    given: list[str] | None = None,
) -> tuple[dict[str, list[float]], list[str]]:
    """Seconds of each process's writes, text by text in the same order for all, and the
    texts counted (``given``, else synthetic ones)."""
    blocks = -(-writes // max(1, block - 1))
    written = (given if given is not None else texts(blocks * block))[: blocks * block]
    blocks = -(-len(written) // block)
    (base.parent / "texts.json").write_text(json.dumps(written), encoding="utf-8")
    servers: dict[str, subprocess.Popen[str]] = {}
    times: dict[str, list[float]] = {name: [] for name in trees}
    try:
        for name, (src, updates) in trees.items():
            home = base.parent / name
            shutil.copytree(base, home)
            env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{HERE}"}
            command = [sys.executable, __file__, "--before", str(src)]
            command += ["--serve", str(home), updates, str(base.parent / "texts.json")]
            servers[name] = subprocess.Popen(command, stdin=PIPE, stdout=PIPE, text=True, env=env)
            if _answer(servers[name]) != "ready":
                raise SystemExit(f"the {name} process did not start")
        order = list(trees)
        for turn in range(blocks):
            start = turn * block
            for name in order[turn % len(order) :] + order[: turn % len(order)]:
                took = json.loads(_answer(servers[name], f"{start} {start + block}"))
                times[name] += took[1:]  # (the first of a block: not counted)
    finally:
        _stop(servers.values())
    counted = [t for n in range(blocks) for t in written[n * block + 1 : (n + 1) * block]]
    return times, counted


def summary(times: dict[str, list[float]], counted: list[str]) -> dict[str, float]:
    """Each process's median and the medians of the differences by text, in ms (and over
    the writes that looked for updates, where some did not)."""
    from updates import _looks

    out = {f"{name}_median_ms": statistics.median(v) * 1000 for name, v in times.items()}
    looked = [_looks(t) for t in counted]
    for a, b in (("now", "off"), ("before", "off"), ("now", "before")):
        each = [(x - y) * 1000 for x, y in zip(times[a], times[b], strict=True)]
        out[f"{a}_minus_{b}_median_ms"] = statistics.median(each)
        if not all(looked) and any(looked):
            some = [d for d, seen in zip(each, looked, strict=True) if seen]
            out[f"{a}_minus_{b}_looked_median_ms"] = statistics.median(some)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="another checkout's src")
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--writes", type=int, default=200, help="counted, each process")
    parser.add_argument("--block", type=int, default=20)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "write_overhead.json")
    parser.add_argument("--real", type=Path, metavar="LONGMEMEVAL", help="real turns")
    parser.add_argument("--cache", type=Path, default=Path("~/.cache/salience-bench"))
    parser.add_argument("--serve", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--fill", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(Path(args.serve[0]), args.serve[1], Path(args.serve[2]))
        return
    if args.fill:
        turns = fill_store(Path(args.fill), args.size, args.real, args.cache.expanduser())
        (Path(args.fill).parent / "real.json").write_text(json.dumps(turns), encoding="utf-8")
        return
    before, this = args.before.resolve(), SRC.resolve()
    trees = {"off": (this, "off"), "before": (before, "link"), "now": (this, "link")}
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        # (filled by the code before: a store made by newer code may not open in older code)
        env = {**os.environ, "PYTHONPATH": f"{before}{os.pathsep}{HERE}"}
        command = [sys.executable, __file__, "--before", str(before), "--size", str(args.size)]
        if args.real:
            command += ["--real", str(args.real.resolve()), "--cache", str(args.cache)]
        subprocess.run([*command, "--fill", str(base)], check=True, env=env)
        given = json.loads((Path(tmp) / "real.json").read_text(encoding="utf-8"))
        times, counted = paired(trees, base, args.writes, max(2, args.block), given)
    from common import machine, print_table, write_results

    found = summary(times, counted)
    table = [["", "ms"]]
    table += [[k.removesuffix("_ms").replace("_", " "), f"{v:.3f}"] for k, v in found.items()]
    what = "LongMemEval turns" if args.real else "synthetic texts"
    looked = sum(map(_looks_at, counted))
    print(
        f"remember at {args.size:,} memories ({what}), {len(counted)} writes each "
        f"({looked} looked for updates), blocks of {args.block}"
    )
    print_table(table, right_align_from=1)
    header = {"machine": machine(), "size": args.size, "block": args.block, "texts": what}
    header |= {"writes_each": len(counted), "looked": looked, "before": str(args.before)}
    ms = {name: [round(x * 1000, 4) for x in v] for name, v in times.items()}
    write_results(args.out, header | {"summary": found, "times_ms": ms})


def _looks_at(text: str) -> bool:
    from updates import _looks

    return bool(_looks(text))


if __name__ == "__main__":
    main()
