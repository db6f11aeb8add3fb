"""Scale benchmark: hybrid recall latency and memory at 10k / 100k / 1M memories, and write
throughput with embeddings (one call per memory, and one import for a batch).

Stores are filled through the engine's bulk import with no embedder (so 1M rows take minutes,
not hours), then given synthetic vectors: MiniLM vectors of a pool of synthetic sentences,
each perturbed with noise, stored under the MiniLM identity. Queries are embedded for real with
MiniLM, so the latency includes the query embedding, full-text search, vector search, fusion
and scoring (salience profile). Each size runs in its own process so its peak memory is its own.
"first query" is a new engine's open and first recall (the vectors loaded; with usearch and no
saved index, an exact search while the index builds in the background; exact search on a
large store likewise makes its int8 copy in the background); "index ready" is when that build
is done and used once (the latencies are measured after it).

"New process" runs a process that opens the store (MiniLM loaded) and recalls once, as a CLI
call or a hook does, ``--new-process N`` times in turn: the first finds no vectors saved
beside the store (it reads the store whole, then saves them), the others map what it saved.
With ``--before SRC`` (another checkout's ``src``), the same process runs that code too,
alternating with this one on the same store. Each reports the time from opening the store to
the first recall's answer, the whole process's time, and its peak RSS (the OS page cache is
warm: the store was just written).

The synthetic words are random letters, which the tokenizer cuts into many pieces (a 3-word
query is ~14 tokens, a written memory ~70): ``--locomo FILE`` writes real chat turns (~36
tokens) and asks real questions instead, which is what the closing numbers use.
``--given-vectors`` embeds the questions before the timing, so the latencies are the search
beyond the query embedding. ``--real-turns FILE`` (a LongMemEval file) fills the store with
its distinct turns instead, each in its session, with their MiniLM vectors (cached on disk by
text, as ``bench/longmemeval.py`` caches them), and asks its questions, whose evidence is in
the store: over synthetic memories most real questions find nothing above the similarity
floor, so their latency is mostly that of an empty recall.

    python bench/scale.py [--sizes 10000,100000,1000000] [--ann-from 1000000] [--locomo FILE]
                          [--repeat N] [--store postgresql://...]

With ``--store``, every size is also filled and measured on PostgreSQL, side by side in the
same run; from ``--ann-from`` each store is also measured with its approximate index
(usearch beside SQLite, pgvector's HNSW on PostgreSQL), and PostgreSQL as a server sees it
(``pgvector-warm``: pgvector answers while the vectors are loaded into memory, then they are
searched there; its "ready" is when the copy was in use).

Prints a table and writes JSON (default bench/results/scale.json).

``--tenants`` measures one tenant of 1,000 memories among 1,000 tenants on PostgreSQL,
beside a store of its own memories alone (``bench/tenants.py``, which takes the other
options).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import numpy as np

from bench_store import TextMaker, percentile
from common import (
    machine,
    parse_plan,
    print_table,
    recall_plan,
    store_in,
    take_back,
    write_results,
)
from salience import Config, Memory
from salience.embeddings.minilm import MiniLMEmbedder
from salience.engine.record import QUERY_VECTORS
from salience.errors import ImportFormatError
from salience.search.ann import UsearchIndex
from salience.search.vectors import DIMENSIONS_KEY, IDENTITY_KEY

POOL = 2000
NOISE = 0.35
CACHE = Path("~/.cache/salience-bench")
BATCH_ROWS = 20000


def fill(memory: Memory, size: int, maker: TextMaker, pool: np.ndarray, seed: int) -> float:
    """Import ``size`` rows and synthetic vectors; returns seconds taken."""
    rng = np.random.default_rng(seed)
    started = time.perf_counter()
    store = memory.store
    for start in range(0, size, BATCH_ROWS):
        count = min(BATCH_ROWS, size - start)
        lines = [
            json.dumps({"content": maker.sentence(), "session_id": f"s{(start + i) // 20}"})
            for i in range(count)
        ]
        memory.import_(lines)
    identity = MiniLMEmbedder().identity
    ids = [r.id for r in store.without_vectors(size)]
    with store.transaction():
        store.set_meta(IDENTITY_KEY, identity)
        store.set_meta(DIMENSIONS_KEY, str(pool.shape[1]))
    with store.bulk_load():  # (PostgreSQL: the HNSW index is built once, at the end)
        for start in range(0, len(ids), BATCH_ROWS):
            chunk = ids[start : start + BATCH_ROWS]
            base = pool[rng.integers(0, len(pool), len(chunk))]
            noisy = base + NOISE * rng.standard_normal(base.shape).astype(np.float32) / 20
            noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
            vectors = noisy.astype(np.float32)
            store.set_vectors([(i, v.tobytes()) for i, v in zip(chunk, vectors, strict=True)])
    return time.perf_counter() - started


WARM = {"pgvector-warm": "pgvector"}
"""A server's PostgreSQL store: pgvector first, then its copy in memory (salience.search.warm)."""


def one_size(
    size: int,
    indexes: list[str],
    queries: int,
    locomo: Path | None,
    store: str | None,
    wait: bool = True,
    baseline: dict[str, float] | None = None,
    processes: int = 0,
    before: Path | None = None,
    learned: bool = True,
    given: bool = False,
    real: Path | None = None,
    cache: Path = CACHE,
) -> list[dict[str, Any]]:
    """Fill one store of ``size`` memories, then time recall with each index in turn (and,
    with ``baseline``, with those recall-plan values too, query by query in turn; ``learned``:
    with the salience profile's learned fusion on; ``given``: the questions' vectors computed
    before the timing, so it times the search beyond the query embedding; ``real``: a
    LongMemEval file whose turns fill the store and whose questions are asked)."""
    maker = TextMaker(seed=11)
    embedder = MiniLMEmbedder()
    pool = embedder.embed([maker.sentence() for _ in range(POOL)])
    if real is not None or locomo is not None:  # real questions: real lengths for the embedding
        questions = real_questions(real) if real is not None else locomo_questions(Path(locomo))
        texts = [questions[i * len(questions) // queries] for i in range(queries)]
    else:
        texts = [maker.query() for _ in range(queries)]
    out = []
    with tempfile.TemporaryDirectory() as tmp, store_in(store, f"scale_{size}") as url:
        home = Path(tmp) / "home"
        config = Config(home=home, embedder="none", signal_gate=False, store_url=url)
        with Memory.open(config=config) as loader:
            if real is not None:
                fill_s = fill_real(loader, real_turns(real, size), cache)
            else:
                fill_s = fill(loader, size, maker, pool, seed=size)
            stored_mb = loader.stats().size_bytes / 1e6
        # Before anything here searches: the first new process finds no vectors saved.
        spawned = new_processes(home, url, texts[0], processes, before) if processes else []
        for index in indexes:
            config = Config(
                home=home,
                signal_gate=False,
                vector_index=WARM.get(index, index),
                store_url=url,
                pgvector_from=0,
                recall_learned=learned,
            )
            started = time.perf_counter()
            with Memory.open(config=config, embedder=embedder) as memory:
                if index in WARM:  # a server's: the vectors loaded while pgvector answers
                    memory.long_running()
                memory.search("warm up the index", 10, touch=False)
                load_s = time.perf_counter() - started
                building = _settle(memory, wait)
                ready_s: float | None = time.perf_counter() - started
                if building and not wait:
                    ready_s = None  # measured below while it builds: exact search (or pgvector)
                latencies: list[float] = []
                before: list[float] = []  # the baseline plan, interleaved query by query
                plans = [(None, latencies)] + ([(baseline, before)] if baseline else [])
                known = dict(zip(texts, embedder.embed(texts), strict=True)) if given else None
                token = QUERY_VECTORS.set(known)
                try:
                    for text in texts:
                        for plan, times in plans:
                            with recall_plan(plan):
                                t0 = time.perf_counter()
                                memory.search(text, 10, touch=False)
                                times.append((time.perf_counter() - t0) * 1000)
                finally:
                    QUERY_VECTORS.reset(token)
            out.append(
                {
                    "size": size,
                    "store": "postgresql" if store else "sqlite",
                    "index": index,
                    "queries": "longmemeval" if real else "locomo" if locomo else "synthetic",
                    "memories": "longmemeval turns" if real else "synthetic",
                    "query_embedding": "given" if given else "included",
                    "fill_s": fill_s,
                    "first_query_s": load_s,
                    "index_ready_s": ready_s,
                    "p50_ms": statistics.median(latencies),
                    "p95_ms": percentile(latencies, 95),
                    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                    "files_mb": stored_mb,
                    "new_process": spawned if index == indexes[0] else [],
                }
                | (
                    {}
                    if baseline is None
                    else {
                        "baseline_p50_ms": statistics.median(before),
                        "baseline_p95_ms": percentile(before, 95),
                    }
                )
            )
    return out


def _settle(memory: Memory, wait: bool) -> bool:
    """Whether a first search started a build in the background (usearch's index, exact
    search's int8 copy, a server's copy of PostgreSQL's vectors); with ``wait``, wait for it
    and search once more (the finished build is adopted then)."""
    ann = memory.vectors._local._ann
    building = isinstance(ann, UsearchIndex) and ann.building
    if building and wait:
        assert isinstance(ann, UsearchIndex)
        ann.wait()
    int8 = memory.vectors._local._int8_build
    warming = memory.vectors.warming
    if int8 is not None or warming is not None:
        building = True
        if wait:
            if int8 is not None:
                int8.wait()
            if warming is not None:
                warming.wait()
            memory.search("adopt the build", 10, touch=False)
    return building


def new_process(home: Path, url: str | None, query: str) -> dict[str, float]:
    """(In a process of its own) open the store and recall once: seconds and peak RSS."""
    started = time.perf_counter()
    config = Config(home=home, signal_gate=False, store_url=url)
    with Memory.open(config=config, embedder=MiniLMEmbedder()) as memory:
        opened = time.perf_counter()
        memory.search(query, 10, touch=False)
        done = time.perf_counter()
    return {
        "open_s": opened - started,
        "first_recall_s": done - started,
        "recall_s": done - opened,
        "peak_rss_mb": _status_mb("VmHWM"),
        "anon_mb": _status_mb("RssAnon"),  # (private memory, as the process ends)
    }


def _status_mb(field: str) -> float:
    """A size from /proc/self/status in MB: VmHWM, the peak resident memory (ru_maxrss would
    carry the parent's peak from before the exec that started this process), counting the
    pages of mapped files the kernel maps around what was read; RssAnon, private memory."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def new_processes(
    home: Path, url: str | None, query: str, runs: int, before: Path | None
) -> list[dict[str, Any]]:
    """:func:`new_process` ``runs`` times in new processes (and with ``before``'s code in
    turn, on a copy of the SQLite store made first: a newer schema is refused by older code),
    each timed whole from outside; on PostgreSQL the same store, which that code must
    know)."""
    codes: list[tuple[str, Path | None, Path]] = [("new", None, home)]
    if before is not None and url:  # (the same schema: older code that knows it)
        codes.insert(0, ("before", before, home))
    elif before is not None:
        copy = home.with_name(home.name + "-before")
        copy.mkdir()
        shutil.copyfile(home / "salience.db", copy / "salience.db")
        take_back(copy / "salience.db", before)
        codes.insert(0, ("before", before, copy))
    out = []
    for run in range(runs):
        for label, src, where in codes:
            command = [sys.executable, __file__, "--probe", str(where), "--query", query]
            command += ["--on", url] if url else []
            environment = dict(os.environ)
            if src is not None:
                environment["PYTHONPATH"] = str(src)
            started = time.perf_counter()
            done = subprocess.run(
                command, check=True, capture_output=True, text=True, env=environment
            )
            found = json.loads(done.stdout.strip().splitlines()[-1])
            found |= {"code": label, "run": run, "process_s": time.perf_counter() - started}
            out.append(found)
    return out


def locomo_texts(path: Path) -> list[str]:
    """Every turn of a LoCoMo-format file as ``Speaker: text`` (real chat, real lengths)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return [
        f"{turn['speaker']}: {turn['text']}"
        for sample in data
        for key, value in sample["conversation"].items()
        if key.startswith("session_") and isinstance(value, list)
        for turn in value
    ]


def locomo_questions(path: Path) -> list[str]:
    """Every question of a LoCoMo-format file."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return [str(qa["question"]) for sample in data for qa in sample["qa"]]


def real_turns(path: Path, size: int) -> list[tuple[str, str]]:
    """Up to ``size`` distinct turns of a LongMemEval file as (text, session id), haystack by
    haystack (a session shared by several questions comes once)."""
    from longmemeval import load

    seen: set[str] = set()
    sessions: dict[str, str] = {}  # (their ids look like keys to the secret scanner)
    out: list[tuple[str, str]] = []
    for question in load(path):
        ids = question["haystack_session_ids"]
        for session_id, session in zip(ids, question["haystack_sessions"], strict=True):
            named = sessions.setdefault(str(session_id), f"s{len(sessions)}")
            for turn in session:
                text = turn["content"].strip()
                if text and text not in seen:
                    seen.add(text)
                    out.append((text, named))
                    if len(out) == size:
                        return out
    return out


def real_questions(path: Path) -> list[str]:
    """The questions of a LongMemEval file (no abstention ones)."""
    from longmemeval import load, select

    return [str(q["question"]) for q in select(load(path))]


def fill_real(memory: Memory, rows: list[tuple[str, str]], cache: Path) -> float:
    """Import ``rows`` (text, session) and their MiniLM vectors (cached by text in
    ``cache``); returns seconds taken."""
    from longmemeval import CachedEmbedder, _cache_path

    started = time.perf_counter()
    model = MiniLMEmbedder()
    cached = CachedEmbedder(model, _cache_path(str(cache), model))
    cached.loading = True
    store = memory.store
    for start in range(0, len(rows), BATCH_ROWS):
        lines = [
            json.dumps({"content": text, "session_id": session})
            for text, session in rows[start : start + BATCH_ROWS]
        ]
        while lines:
            try:
                memory.import_(lines)
                break
            except ImportFormatError as error:  # a secret in a turn: that turn is left out
                del lines[error.line - 1]
    records = store.without_vectors(len(rows))
    with store.transaction():
        store.set_meta(IDENTITY_KEY, model.identity)
        store.set_meta(DIMENSIONS_KEY, str(model.dimensions))
    unseen = cached.missing([r.content for r in records])
    if unseen >= 1000:  # (a first run on a machine: say why it is slow)
        print(
            f"embedding {unseen:,} of {len(records):,} turns with MiniLM, not yet cached in "
            f"{cached.path} (once: 100,000 took ~35 min on 2 cores)",
            file=sys.stderr,
            flush=True,
        )
    with store.bulk_load():
        for start in range(0, len(records), BATCH_ROWS):
            chunk = records[start : start + BATCH_ROWS]
            vectors = cached.embed([r.content for r in chunk])
            store.set_vectors([(r.id, v.tobytes()) for r, v in zip(chunk, vectors, strict=True)])
    cached.save()
    return time.perf_counter() - started


def writes(count: int, real: list[str] | None, store: str | None = None) -> dict[str, float]:
    """Memories per second with MiniLM embeddings: remember one by one, and one import."""
    maker = TextMaker(seed=5)
    embedder = MiniLMEmbedder()
    embedder.embed(["warm up"])
    out: dict[str, float] = {"texts": "locomo" if real else "synthetic"}  # type: ignore[dict-item]
    out["store"] = "postgresql" if store else "sqlite"  # type: ignore[assignment]
    with (
        tempfile.TemporaryDirectory() as tmp,
        store_in(store, "writes_single") as single,
        store_in(store, "writes_batch") as batch,
    ):
        config = Config(home=Path(tmp) / "single", signal_gate=False, store_url=single)
        pool = real or [maker.sentence(6, 24) for _ in range(2 * count)]
        texts = pool[:count]
        with Memory.open(config=config, embedder=embedder) as memory:
            started = time.perf_counter()
            for text in texts:
                memory.remember(text)
            out["single_per_s"] = count / (time.perf_counter() - started)
        config = Config(home=Path(tmp) / "batch", signal_gate=False, store_url=batch)
        lines = [json.dumps({"content": text}) for text in pool[count : 2 * count]]
        with Memory.open(config=config, embedder=embedder) as memory:
            started = time.perf_counter()
            memory.import_(lines)
            out["batch_per_s"] = count / (time.perf_counter() - started)
        out["embed_only_per_s"] = count / _time(lambda: embedder.embed(texts))
    return out


def _time(func: Any) -> float:
    started = time.perf_counter()
    func()
    return time.perf_counter() - started


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--ann-from", type=int, default=1_000_000, help="use usearch at and above")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--writes", type=int, default=1000)
    parser.add_argument(
        "--locomo", type=Path, help="real chat turns to write and real questions to ask, from here"
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="measure each size (and the writes) this many times; report the medians and ranges",
    )
    parser.add_argument(
        "--store",
        default=None,
        help="also measure a PostgreSQL store at this postgresql:// URL (a schema per run), "
        "side by side with SQLite in the same run",
    )
    parser.add_argument(
        "--no-wait",
        action="store_true",
        help="do not wait for a background index build: time the queries made meanwhile "
        "(exact search), as the first users of a store that lost its index see them",
    )
    parser.add_argument(
        "--no-usearch", action="store_true", help="SQLite exact only (PostgreSQL: both)"
    )
    parser.add_argument(
        "--baseline-plan",
        default=None,
        help="also time recall with these salience recall-plan values (e.g. 'pool=50 "
        "reply_weight=0'), alternating query by query with the profile's own: a side-by-side "
        "ratio in one run",
    )
    parser.add_argument(
        "--real-turns",
        type=Path,
        help="a LongMemEval file: fill the stores with its turns (their vectors cached on disk "
        "by text) and ask its questions",
    )
    parser.add_argument(
        "--given-vectors",
        action="store_true",
        help="embed the questions before timing: the search beyond the query embedding",
    )
    parser.add_argument(
        "--learned",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="recall with the salience profile's learned fusion, the default (with "
        "--baseline-plan 'rerank=0': beside the hand-set fusion, query by query; --no-learned: "
        "the hand-set fusion alone)",
    )
    parser.add_argument(
        "--new-process",
        type=int,
        default=0,
        metavar="N",
        help="also time N new processes that open each store and recall once (see above)",
    )
    parser.add_argument(
        "--before", type=Path, help="another checkout's src: its new processes run in turn"
    )
    parser.add_argument("--probe", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--query", default="", help=argparse.SUPPRESS)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--index", default="exact", help=argparse.SUPPRESS)
    parser.add_argument("--on", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--out", default="bench/results/scale.json")
    return parser


def main() -> None:
    if "--tenants" in sys.argv[1:]:  # (bench/tenants.py: one tenant among 1,000)
        import tenants as tenants_bench

        tenants_bench.main([a for a in sys.argv[1:] if a != "--tenants"])
        return
    args = _parser().parse_args()
    if args.probe:
        print(json.dumps(new_process(args.probe, args.on, args.query)))
        return
    if args.one:
        found = one_size(
            args.one,
            args.index.split(","),
            args.queries,
            args.locomo,
            args.on,
            not args.no_wait,
            parse_plan(args.baseline_plan),
            args.new_process,
            args.before,
            args.learned,
            args.given_vectors,
            args.real_turns,
        )
        print(json.dumps(found))
        return
    random.seed(0)
    real = locomo_texts(args.locomo) if args.locomo else None
    repeat = max(1, args.repeat)
    stores: list[str | None] = [None, args.store] if args.store else [None]
    results: dict[str, Any] = {
        "machine": machine(),
        "recall": [],
        "writes": [
            _median_of([writes(args.writes, real, store) for _ in range(repeat)])
            for store in stores
        ],
    }
    for size in (int(s) for s in args.sizes.split(",") if s):
        for store in stores:
            approximate = "pgvector" if store else "usearch"
            indexes = ["exact", approximate] if size >= args.ann_from else ["exact"]
            if store and size >= args.ann_from:
                indexes.append("pgvector-warm")
            if approximate == "usearch" and args.no_usearch:
                indexes = ["exact"]
            command = _command(args, size, indexes, store)
            runs = []
            for _ in range(repeat):
                done = subprocess.run(command, check=True, capture_output=True, text=True)
                runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
            for i in range(len(indexes)):
                results["recall"].append(_median_of([run[i] for run in runs]))
    report(results)
    write_results(args.out, results)


def _command(
    args: argparse.Namespace, size: int, indexes: list[str], store: str | None
) -> list[str]:
    """The command that measures one size in a process of its own."""
    command = [sys.executable, __file__, "--one", str(size), "--index", ",".join(indexes)]
    command += ["--queries", str(args.queries)]
    if args.locomo:
        command += ["--locomo", str(args.locomo)]
    if store:
        command += ["--on", store]
    if args.no_wait:
        command += ["--no-wait"]
    if args.new_process:
        command += ["--new-process", str(args.new_process)]
    if args.before:
        command += ["--before", str(args.before.resolve())]
    if args.baseline_plan:
        parse_plan(args.baseline_plan)  # a bad value fails here, before any fill
        command += ["--baseline-plan", args.baseline_plan]
    command += ["--learned" if args.learned else "--no-learned"]
    if args.given_vectors:
        command += ["--given-vectors"]
    if args.real_turns:
        command += ["--real-turns", str(args.real_turns.resolve())]
    return command


def _median_of(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The first run with every number replaced by the median over ``runs``; each run's own
    numbers kept under ``runs`` (these machines are noisy: one run is one sample)."""
    out = dict(runs[0])
    for key, value in runs[0].items():
        if isinstance(value, int | float) and not isinstance(value, bool) and key != "size":
            out[key] = statistics.median(run[key] for run in runs)
    out["runs"] = runs
    return out


def _spread(entry: dict[str, Any], key: str, digits: int) -> str:
    runs = entry.get("runs", [entry])
    text = f"{entry[key]:.{digits}f}"
    if len(runs) > 1:
        values = [run[key] for run in runs]
        text += f" ({min(values):.{digits}f}-{max(values):.{digits}f})"
    return text


def _med(runs: list[dict[str, Any]], key: str, digits: int) -> str:
    values = [run[key] for run in runs]
    text = f"{statistics.median(values):.{digits}f}"
    return text + (f" ({min(values):.{digits}f}-{max(values):.{digits}f})" if len(runs) > 1 else "")


def _ready(entry: dict[str, Any]) -> str:
    ready = entry.get("index_ready_s", entry["first_query_s"])
    return "building" if ready is None else f"{ready:.2f}"


def report(results: dict[str, Any]) -> None:
    rows = [
        [
            "memories",
            "store",
            "index",
            "p50 ms",
            "p95 ms",
            "first query s",
            "index ready s",
            "peak RSS MB",
            "stored MB",
            "fill s",
        ]
    ]
    if not results["recall"]:
        rows.append(["(none run)", "", "", "", "", "", "", "", "", ""])
    for r in results["recall"]:
        rows.append(
            [
                f"{r['size']:,}",
                r.get("store", "sqlite"),
                r["index"],
                _spread(r, "p50_ms", 1),
                _spread(r, "p95_ms", 1),
                f"{r['first_query_s']:.2f}",
                _ready(r),
                f"{r['peak_rss_mb']:.0f}",
                f"{r['files_mb']:.0f}",
                f"{r['fill_s']:.0f}",
            ]
        )
    queries = {r["queries"] for r in results["recall"]}
    label = "/".join(sorted(queries))
    runs = len(results["writes"][0].get("runs", [None]))
    medians = f"; medians of {runs} runs (min-max)" if runs > 1 else ""
    given = any(r.get("query_embedding") == "given" for r in results["recall"])
    embedding = "beyond the query embedding" if given else "query embedding included"
    print(f"hybrid recall, salience profile, {embedding} ({label} queries{medians})")
    print_table(rows, right_align_from=3)
    for r in results["recall"]:
        if "baseline_p50_ms" in r:
            print(
                f"  {r['size']:,} {r.get('store', 'sqlite')} {r['index']}: baseline plan "
                f"p50 {_spread(r, 'baseline_p50_ms', 1)} ms, p95 {_spread(r, 'baseline_p95_ms', 1)}"
                f" ms; profile/baseline p50 {r['p50_ms'] / r['baseline_p50_ms']:.2f}x, "
                f"p95 {r['p95_ms'] / r['baseline_p95_ms']:.2f}x"
            )
    spawned = [r for r in results["recall"] if r.get("new_process")]
    if spawned:
        table = [
            [
                "memories",
                "store",
                "code",
                "process",
                "open s",
                "recall s",
                "process s",
                "MB",
                "anon MB",
            ]
        ]
        for r in spawned:
            runs = r["new_process"]
            for code in dict.fromkeys(run["code"] for run in runs):
                mine = [run for run in runs if run["code"] == code]
                # The first process finds nothing saved beside the store (it saves the
                # briefing columns, and the new code the vectors too); the others find them.
                groups = [("first", mine[:1]), ("later", mine[1:])]
                for label, group in groups:
                    if not group:
                        continue
                    table.append(
                        [
                            f"{r['size']:,}",
                            r.get("store", "sqlite"),
                            code,
                            label,
                            _med(group, "open_s", 2),
                            _med(group, "recall_s", 2),
                            _med(group, "process_s", 2),
                            _med(group, "peak_rss_mb", 0),
                            _med(group, "anon_mb", 0),
                        ]
                    )
        print(
            "\nfirst recall in a new process (medians; every run listed in the JSON; MB: peak "
            "resident memory)"
        )
        print_table(table, right_align_from=4)
    for w in results["writes"]:
        print(
            f"\nwrites on {w.get('store', 'sqlite')} ({w['texts']} texts) with MiniLM embeddings: "
            f"{_spread(w, 'single_per_s', 0)}/s one call each, "
            f"{_spread(w, 'batch_per_s', 0)}/s as one import "
            f"(embedding alone {_spread(w, 'embed_only_per_s', 0)}/s)"
        )
    print(
        "targets: 100k exact p50 <= 10 ms, p95 <= 25 ms; 1M approximate p95 <= 50 ms; "
        "batch writes >= 300/s"
    )


if __name__ == "__main__":
    main()
