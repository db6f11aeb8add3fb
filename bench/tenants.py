"""A tenant's recall on a store of many tenants, beside a store holding only its own memories.

For each size, one PostgreSQL store holds 1,000 tenants: one of them with 1,000 memories,
the other 999 sharing the rest. A second store holds only that tenant's 1,000 memories (the
same rows, the same vectors). The tenant's questions are asked of both, query by query in
turn, in one process, and also of the large store with the tenants' own indexes turned off
(``salience.search.tenants``: the store-wide index, as before). Rows are written through
the engine's bulk import with no embedder and given synthetic vectors (MiniLM vectors of a
pool of synthetic sentences, perturbed, as ``bench/scale.py`` does); the questions'
vectors are computed before the timing, so each latency is the recall beyond the query
embedding (full text, vectors, fusion, scoring, records). pgvector's HNSW index is built
once after the fill for stores up to ``--hnsw-up-to`` (500,000: a 2M store's build takes
long on two cores; the tenant's recall does not use it, the store-wide path does, and is
measured only where it exists). Each store is then vacuumed and analysed, as autovacuum
leaves a table after inserts.

    python bench/tenants.py [--store postgresql://...] [--sizes 100000,500000,2000000]
                            [--queries 200] [--rounds 3] [--write-before]
                            [--out bench/results/tenants.json]
    python bench/scale.py --tenants ...   (the same)

``--write-before``: the tenant writes a memory before each recall (not timed), in both stores:
an agent that writes, then recalls, so that no search sees the store as the one before it
did (the copies catch up, counts are taken again). The stores grow by a memory a question.

``--keep`` (with ``--store``) leaves the stores on the server and, run again, measures the
stores it kept instead of filling them anew (the same rows: the texts and vectors are made
from fixed seeds): one fill of 2M memories (~1 h here) serves several runs, e.g. of two
versions of the code.

Without ``--store`` it starts a PostgreSQL 16 with pgvector from the ``pgserver`` package (a
test dependency) in a temporary directory. Prints a table and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))

import numpy as np
import psycopg

from bench_store import TextMaker, percentile
from common import machine, print_table, store_in, write_results
from salience import ALL_USERS, Config, Memory
from salience.embeddings.minilm import MiniLMEmbedder
from salience.engine.record import QUERY_VECTORS
from salience.search import tenants
from salience.search.vectors import DIMENSIONS_KEY, IDENTITY_KEY

TENANTS = 1000
OWN = 1000
TENANT = "tenant-0000"
POOL = 2000
NOISE = 0.35
BATCH = 20_000


class Vectors:
    """A synthetic vector for each text, the same in every store: a pool vector chosen and
    perturbed by the text's own checksum."""

    def __init__(self, pool: np.ndarray) -> None:
        self.pool = pool

    def of(self, texts: list[str]) -> np.ndarray:
        out = np.empty((len(texts), self.pool.shape[1]), dtype=np.float32)
        for i, text in enumerate(texts):
            seed = zlib.crc32(text.encode())
            rng = np.random.default_rng(seed)
            row = (
                self.pool[seed % len(self.pool)]
                + NOISE * rng.standard_normal(self.pool.shape[1]).astype(np.float32) / 20
            )
            out[i] = row / np.linalg.norm(row)
        return out


def _lines(texts: list[str], users: list[str]) -> list[str]:
    return [
        json.dumps({"content": t, "user": u, "session_id": f"{u}-s{i // 20}"})
        for i, (t, u) in enumerate(zip(texts, users, strict=True))
    ]


def fill(memory: Memory, lines: list[str], vectors: Vectors, hnsw: bool) -> float:
    """Import ``lines`` (every user's) and give every memory its vector; seconds taken."""
    started = time.perf_counter()
    store = memory.store
    for start in range(0, len(lines), BATCH):
        memory.import_(lines[start : start + BATCH], user=ALL_USERS)
    with store.transaction():
        store.set_meta(IDENTITY_KEY, MiniLMEmbedder().identity)
        store.set_meta(DIMENSIONS_KEY, str(vectors.pool.shape[1]))
    bulk = store.bulk_load() if hnsw else _no_index(store)
    with bulk:
        while records := store.without_vectors(BATCH):
            made = vectors.of([r.content for r in records])
            store.set_vectors([(r.id, v.tobytes()) for r, v in zip(records, made, strict=True)])
    return time.perf_counter() - started


@contextmanager
def _no_index(store: Any) -> Iterator[None]:
    """Vectors written with no HNSW index: bulk_load's start without its build at the end
    (the store's own switch for that, set from outside for this benchmark)."""
    with store.transaction():
        store._exec("DROP INDEX IF EXISTS memory_vectors_hnsw")
    store._bulk = True
    try:
        yield
    finally:
        store._bulk = False


def _users(count: int) -> list[str]:
    """Who owns each of ``count`` other memories: the 999 other tenants in turn."""
    return [f"tenant-{1 + i % (TENANTS - 1):04d}" for i in range(count)]


def one_size(
    url: str,
    size: int,
    queries: int,
    rounds: int,
    hnsw: bool,
    keep: bool = False,
    write_before: bool = False,
) -> dict[str, Any]:
    maker = TextMaker(seed=23)
    embedder = MiniLMEmbedder()
    vectors = Vectors(embedder.embed([maker.sentence() for _ in range(POOL)]))
    own = [f"{maker.sentence()} ({i})" for i in range(OWN)]
    others = [f"{maker.sentence()} [{i}]" for i in range(size - OWN)]
    questions = [maker.query() for _ in range(queries)]
    known = dict(zip(questions, embedder.embed(questions), strict=True))
    mine = _lines(own, [TENANT] * OWN)
    result: dict[str, Any] = {
        "size": size,
        "tenants": TENANTS,
        "own": OWN,
        "hnsw": hnsw,
        "write_before": write_before,
    }
    with (
        tempfile.TemporaryDirectory() as tmp,
        store_in(url, f"tenants_{size}", keep) as big_url,
        store_in(url, f"tenants_{size}_alone", keep) as alone_url,
    ):
        stores = {"many": big_url, "alone": alone_url}
        fills = {"many": mine + _lines(others, _users(len(others))), "alone": mine}
        del others
        for name, store_url in stores.items():
            home = Path(tmp) / name
            result.update(_filled(name, store_url, home, fills[name], vectors, hnsw, keep))
        engines = {
            name: Memory.open(
                config=Config(home=Path(tmp) / name, signal_gate=False, store_url=store_url),
                embedder=embedder,
            )
            for name, store_url in stores.items()
        }
        times: dict[str, list[float]] = {"alone": [], "many": [], "many, store-wide": []}
        saved = tenants.FROM
        token = QUERY_VECTORS.set(known)
        try:
            for memory in engines.values():  # (warm: copies loaded, plans cached)
                for text in questions[:20]:
                    memory.search(text, 10, touch=False, user=TENANT)
            for round_ in range(rounds):
                for n, text in enumerate(questions):
                    for name in ("alone", "many"):
                        if write_before:  # (not timed: the tenant writes, then recalls)
                            note = f"{maker.sentence()} (written {round_}-{n})"
                            engines[name].remember(note, user=TENANT)
                        t0 = time.perf_counter()
                        engines[name].search(text, 10, touch=False, user=TENANT)
                        times[name].append((time.perf_counter() - t0) * 1000)
            # As before the tenants' own indexes: the store-wide index (fewer questions: a
            # small tenant's recall looks deeper and deeper into it for its own rows; with
            # no HNSW index it finds no vectors at all, so it is not measured then).
            tenants.FROM = 10**15
            for text in questions[: max(1, queries // 4)] if hnsw else ():
                t0 = time.perf_counter()
                engines["many"].search(text, 10, touch=False, user=TENANT)
                times["many, store-wide"].append((time.perf_counter() - t0) * 1000)
        finally:
            tenants.FROM = saved
            QUERY_VECTORS.reset(token)
            for memory in engines.values():
                memory.close()
    for label, values in times.items():
        result[label] = (
            {"p50_ms": statistics.median(values), "p95_ms": percentile(values, 95)}
            if values
            else None
        )
    for stat in ("p50_ms", "p95_ms"):
        result[f"ratio_{stat[:3]}"] = result["many"][stat] / result["alone"][stat]
    return result


def _filled(
    name: str,
    store_url: str,
    home: Path,
    lines: list[str],
    vectors: Vectors,
    hnsw: bool,
    keep: bool,
) -> dict[str, Any]:
    """Fill one store (unless ``keep`` finds it filled by an earlier run), then vacuum and
    analyse it; its fill time and size."""
    config = Config(home=home, embedder="none", signal_gate=False, store_url=store_url)
    with Memory.open(config=config) as loader:
        if keep and store_url and loader.store.count_rows() == len(lines):
            return {f"fill_{name}_s": None, f"{name}_mb": loader.stats().size_bytes / 1e6}
        took = fill(loader, lines, vectors, hnsw)
        size = loader.stats().size_bytes / 1e6
    if store_url:  # (SQLite: as the store keeps itself, no statistics)
        with psycopg.connect(store_url, autocommit=True) as conn:
            # As autovacuum leaves a table some time after inserts: the planner's
            # statistics, and GIN's pending list merged (right after a bulk import a
            # full-text search also reads that list: 8 ms more at 100k here).
            conn.execute("VACUUM ANALYZE")
    return {f"fill_{name}_s": took, f"{name}_mb": size}


@contextmanager
def _server() -> Iterator[str]:
    """A PostgreSQL from the pgserver package for this run (see tests/postgres.py)."""
    from tests.postgres import Server

    server = Server()
    try:
        yield server.url
    finally:
        server.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--store", default=None, help="a PostgreSQL server URL")
    parser.add_argument(
        "--sqlite", action="store_true", help="SQLite files instead of PostgreSQL (no HNSW)"
    )
    parser.add_argument("--sizes", default="100000,500000,2000000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--hnsw-up-to",
        type=int,
        default=500_000,
        help="build pgvector's index for stores up to this size (larger: left out)",
    )
    parser.add_argument(
        "--keep",
        action="store_true",
        help="with --store: keep the stores, and measure stores an earlier run kept",
    )
    parser.add_argument(
        "--write-before",
        action="store_true",
        help="the tenant writes a memory before each recall (not timed), in both stores",
    )
    parser.add_argument("--out", default="bench/results/tenants.json")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    results = []
    server = _given("") if args.sqlite else _server() if args.store is None else _given(args.store)
    with server as url:
        for size in sizes:
            hnsw = args.sqlite or size <= args.hnsw_up_to  # (SQLite: no HNSW, none needed)
            results.append(
                one_size(url, size, args.queries, args.rounds, hnsw, args.keep, args.write_before)
            )
            print(json.dumps(results[-1]), flush=True)
    table = [["memories", "tenant of 1,000", "p50 ms", "p95 ms", "x alone p50", "x alone p95"]]
    for r in results:
        for label in ("alone", "many", "many, store-wide"):
            row = r[label]
            if row is None:
                continue
            table.append(
                [
                    f"{r['size']:,}",
                    label if label != "many" else "among 1,000 tenants",
                    f"{row['p50_ms']:.2f}",
                    f"{row['p95_ms']:.2f}",
                    f"{row['p50_ms'] / r['alone']['p50_ms']:.2f}",
                    f"{row['p95_ms'] / r['alone']['p95_ms']:.2f}",
                ]
            )
    written = ", a memory written before each" if args.write_before else ""
    print(f"\nrecall beyond the query embedding, {args.queries} questions x {args.rounds}{written}")
    print_table(table, right_align_from=2)
    store = "sqlite" if args.sqlite else "postgresql"
    write_results(args.out, {"machine": machine(), "store": store, "results": results})


@contextmanager
def _given(url: str) -> Iterator[str]:
    yield url


if __name__ == "__main__":
    main()
