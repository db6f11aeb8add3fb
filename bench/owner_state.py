"""What a tenant's vector count costs on PostgreSQL after each write, now and as before.

A small tenant's own vector index (``salience.search.tenants``) asks the store, at every
search after a write, how many vectors its owners have and the highest vseq among them
(``owner_vector_state``). It used to count the owners' rows whole each time; it now counts
them whole once and then only the store's vectors written since (as SQLite does since
f02005f). One store of ``--size`` memories, 1,000 tenants (``bench/tenants.py``'s fill: one
tenant of 1,000 memories, the other 999 sharing the rest, synthetic vectors, no HNSW index),
vacuumed and analysed. Then ``--writes`` times: the tenant writes a memory and its vector (not
timed), and the two ways are timed one after the other (which goes first alternates): the
count as now, and the query as before.

    python bench/owner_state.py [--store postgresql://...] [--size 100000] [--writes 300]
                                [--out bench/results/owner_state.json]

Without ``--store`` it starts a PostgreSQL 16 with pgvector from the ``pgserver`` package.
Prints a table and writes JSON.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))

from bench_store import TextMaker, machine, percentile, print_table, write_results
from salience import Config, Memory
from salience.embeddings.minilm import MiniLMEmbedder
from tenants import OWN, POOL, TENANT, Vectors, _filled, _lines, _server, _users

BEFORE = (
    "SELECT count(*), coalesce(max(v.vseq), 0) FROM memories m "
    'JOIN memory_vectors v ON v.memory_id = m.id WHERE m."user" = ANY(%s)'
)
"""The query ``owner_vector_state`` ran at every call before (the code at 13e8ac7)."""


def measure(url: str, size: int, writes: int) -> dict[str, object]:
    maker = TextMaker(seed=29)
    vectors = Vectors(MiniLMEmbedder().embed([maker.sentence() for _ in range(POOL)]))
    own = [f"{maker.sentence()} ({i})" for i in range(OWN)]
    others = [f"{maker.sentence()} [{i}]" for i in range(size - OWN)]
    lines = _lines(own, [TENANT] * OWN) + _lines(others, _users(len(others)))
    del others
    times: dict[str, list[float]] = {"now": [], "before": []}
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "many"
        filled = _filled("many", url, home, lines, vectors, False, False)
        config = Config(home=home, embedder="none", signal_gate=False, store_url=url)
        with Memory.open(config=config) as memory:
            store = memory.store
            owners = (TENANT,)
            for n in range(writes + 1):
                text = f"{maker.sentence()} (written {n})"
                done = memory.remember(text, user=TENANT, force=True)
                assert done.id is not None
                store.set_vector(done.id, vectors.of([text])[0].tobytes())
                ways = ("now", "before") if n % 2 == 0 else ("before", "now")
                for way in ways:
                    started = time.perf_counter()
                    if way == "now":
                        state = store.owner_vector_state(owners)
                    else:
                        row = store._rows(BEFORE, (list(owners),))[0]
                        state = (int(row[0]), int(row[1]))
                    took = (time.perf_counter() - started) * 1000
                    if n:  # (the first: the count whole, once, in both)
                        times[way].append(took)
                    found = state
                assert found == store.owner_vector_state(owners)
    result: dict[str, object] = {"machine": machine(), "size": size, "writes": writes}
    result.update(filled)
    for way, values in times.items():
        result[way] = {"p50_ms": statistics.median(values), "p95_ms": percentile(values, 95)}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--store", default=None, help="a PostgreSQL server URL")
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--writes", type=int, default=300)
    parser.add_argument("--out", default="bench/results/owner_state.json")
    args = parser.parse_args()
    if args.store:
        result = measure(args.store, args.size, args.writes)
    else:
        with _server() as url:
            result = measure(url, args.size, args.writes)
    rows = [["a tenant's vector state after a write", "p50 (ms)", "p95 (ms)"]]
    for way in ("before", "now"):
        got = result[way]
        assert isinstance(got, dict)
        rows.append([way, f"{got['p50_ms']:.3f}", f"{got['p95_ms']:.3f}"])
    print_table(rows, right_align_from=1)
    print(f"{args.size:,} memories, 1,000 tenants, the tenant's {OWN:,} and its writes")
    write_results(args.out, result)


if __name__ == "__main__":
    main()
