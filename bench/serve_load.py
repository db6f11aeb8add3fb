"""Load on ``salience serve`` (loopback only, bounded in time): throughput, latency, no lost writes.

Each part runs a real ``salience serve`` process on a free loopback port over a fresh store
seeded with ``--seed`` memories (the bundled embedder), on SQLite and, with ``--postgres``,
on a PostgreSQL it starts (pgserver's binaries, as the tests do):

1. **Mixed load, per worker count**: ``--clients`` concurrent clients for ``--seconds``
   (80 % search, 20 % remember of unique texts): requests/s, p50 / p95 / p99 per route.
2. **Search under long work** (one worker): ``--clients`` searching for ``--seconds`` while
   the server is idle, then while a ``--import-lines`` import and a consolidate run: p50 /
   p95 of each phase and the ratio of the p95s (the goal: at most 2x).
3. **Write rate**: ``--writers`` clients writing unique texts for ``--seconds``, against the
   rate of the embedder alone in this process (one text per call, as a write embeds), in
   the same run (the goal: at least 0.8x).

Every part then checks that the store holds exactly the writes that answered ``created``:
nothing lost, nothing doubled. Last, the overhead: the same queries one at a time over HTTP
and through ``Memory.search`` in this process, on the same store.

    python bench/serve_load.py [--workers 1,2] [--clients 16] [--seconds 20] [--seed 2000]
                               [--import-lines 3000] [--writers 8] [--postgres]

Writes bench/results/serve_load.json. With ``--hostile [--waits 42]``, a hostile tenant
instead (:mod:`hostile_tenant`): writes bench/results/serve_hostile.json.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))

from bench_store import TextMaker, percentile
from common import machine, print_table, write_results
from salience import Config, Memory

PREFIX = "loadtest"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Target:
    """Where a part's store lives: a home directory, and a PostgreSQL URL or none (SQLite)."""

    def __init__(self, kind: str, url: str = "") -> None:
        self.kind = kind
        self.url = url

    def fresh(self, label: str) -> tuple[Path, str]:
        """A new home (and, on PostgreSQL, a new schema) for one part."""
        home = Path(tempfile.mkdtemp(prefix=f"serve-{label}-"))
        if not self.url:
            return home, ""
        import psycopg

        schema = f"bench_{label.replace('-', '_')}_{os.getpid()}_{time.monotonic_ns()}"
        with psycopg.connect(self.url, autocommit=True) as admin:
            admin.execute(f"CREATE SCHEMA {schema}")
        joiner = "&" if "?" in self.url else "?"
        return home, f"{self.url}{joiner}options=-csearch_path%3D{schema},public"


def open_store(home: Path, url: str, **options: Any) -> Memory:
    config = Config(home=home, store_url=url) if url else Config(home=home)
    return Memory.open(config=config, **options)


def lines_of(count: int, maker: TextMaker, prefix: str = "") -> list[str]:
    return [
        json.dumps({"content": prefix + maker.sentence(), "tags": [f"project:p{i % 5}"]})
        for i in range(count)
    ]


def seed_store(home: Path, url: str, count: int, maker: TextMaker) -> None:
    with open_store(home, url) as memory:
        memory.import_(lines_of(count, maker))


def start(home: Path, workers: int, url: str = "") -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "salience",
            "serve",
            "--home",
            str(home),
            "--port",
            str(port),
            "--workers",
            str(workers),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={
            **os.environ,
            "SALIENCE_HOME": str(home),
            **({"SALIENCE_STORE_URL": url} if url else {}),
        },
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/readyz", timeout=1).status_code == 200:
                # Warm every worker's engine (model, vectors) before measuring.
                for _ in range(8 * workers):
                    httpx.post(f"{base}/v1/search", json={"query": "warm up"}, timeout=60)
                return process, base
        except httpx.HTTPError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit("the server did not start")


async def client(
    base: str, seconds: float, seed: int, log: list[tuple[str, float, int, Any]]
) -> None:
    rng = random.Random(seed)
    maker = TextMaker(seed)
    deadline = time.monotonic() + seconds
    n = 0
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        while time.monotonic() < deadline:
            if rng.random() < 0.8:
                route, started = "search", time.perf_counter()
                answer = await http.post(
                    "/v1/search", json={"query": maker.query(), "touch": False}
                )
                log.append((route, time.perf_counter() - started, answer.status_code, None))
            else:
                text = f"{PREFIX} {seed}-{n}: {maker.sentence(6, 20)}"
                n += 1
                started = time.perf_counter()
                answer = await http.post("/v1/memories", json={"content": text, "force": True})
                body = answer.json() if answer.status_code < 500 else {}
                log.append(
                    ("remember", time.perf_counter() - started, answer.status_code, (text, body))
                )


def verify(home: Path, url: str, log: list[tuple[str, float, int, Any]]) -> dict[str, int]:
    created = {
        body["id"]: text
        for route, _, status, (text, body) in (
            (r, d, s, x) for r, d, s, x in log if r == "remember"
        )
        if status == 201
    }
    with open_store(home, url, embedder=None) as memory:
        stored = [r for r in memory.list(limit=1_000_000) if r.content.startswith(PREFIX)]
    by_id = {r.id: r.content for r in stored}
    lost = sum(1 for i, text in created.items() if by_id.get(i) != text)
    return {
        "created": len(created),
        "stored": len(stored),
        "lost": lost,
        "doubled": len(stored) - len({r.content for r in stored}),
    }


def run_load(workers: int, target: Target, args: argparse.Namespace) -> dict[str, Any]:
    home, url = target.fresh(f"load-{workers}")
    seed_store(home, url, args.seed, TextMaker(11))
    process, base = start(home, workers, url)
    log: list[tuple[str, float, int, Any]] = []
    try:
        started = time.perf_counter()

        async def everyone() -> None:
            await asyncio.gather(*(client(base, args.seconds, s, log) for s in range(args.clients)))

        asyncio.run(everyone())
        elapsed = time.perf_counter() - started
    finally:
        process.terminate()
        process.wait(timeout=30)
    routes: dict[str, Any] = {}
    for route in ("search", "remember"):
        times = [d * 1000 for r, d, _, _ in log if r == route]
        errors = sum(1 for r, _, s, _ in log if r == route and s >= 400)
        routes[route] = {
            "requests": len(times),
            "errors": errors,
            "p50_ms": percentile(times, 50),
            "p95_ms": percentile(times, 95),
            "p99_ms": percentile(times, 99),
        }
    return {
        "store_kind": target.kind,
        "workers": workers,
        "seconds": elapsed,
        "requests_per_s": len(log) / elapsed,
        "routes": routes,
        "store": verify(home, url, log),
    }


def _timed_http(base: str, queries: list[str]) -> tuple[list[float], list[float]]:
    """Each query over one kept-alive connection: with the standard library's client (the
    API's own cost) and with httpx (what salience.Client adds on top)."""
    host, port = base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port))

    def post(query: str) -> None:
        body = json.dumps({"query": query, "touch": False})
        connection.request("POST", "/v1/search", body, {"Content-Type": "application/json"})
        connection.getresponse().read()

    plain, with_httpx = [], []
    with httpx.Client(base_url=base, timeout=60) as client:
        for q in queries[:20]:
            post(q)
            client.post("/v1/search", json={"query": q, "touch": False})
        for q in queries:
            t = time.perf_counter()
            post(q)
            plain.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            client.post("/v1/search", json={"query": q, "touch": False})
            with_httpx.append((time.perf_counter() - t) * 1000)
    connection.close()
    return plain, with_httpx


def overhead(args: argparse.Namespace) -> dict[str, float]:
    """The same queries, one at a time: over HTTP (one worker) and in this process."""
    home = Path(tempfile.mkdtemp(prefix="serve-overhead-"))
    seed_store(home, "", args.seed, TextMaker(11))
    maker = TextMaker(5)
    queries = [maker.query() for _ in range(args.queries)]
    with Memory.open(home) as memory:
        for q in queries[:20]:
            memory.search(q, touch=False)
        local = []
        for q in queries:
            t = time.perf_counter()
            memory.search(q, touch=False)
            local.append((time.perf_counter() - t) * 1000)
    process, base = start(home, 1)
    try:
        plain, with_httpx = _timed_http(base, queries)
    finally:
        process.terminate()
        process.wait(timeout=30)
    in_process = statistics.median(local)
    return {
        "queries": len(queries),
        "in_process_p50_ms": in_process,
        "http_p50_ms": statistics.median(plain),
        "overhead_p50_ms": statistics.median(plain) - in_process,
        "httpx_p50_ms": statistics.median(with_httpx),
        "httpx_overhead_p50_ms": statistics.median(with_httpx) - in_process,
    }


async def searcher(
    http: httpx.AsyncClient, seed: int, until: asyncio.Event, log: list[float]
) -> None:
    """Search (without counting accesses) until ``until`` is set; latencies into ``log``."""
    maker = TextMaker(seed)
    while not until.is_set():
        started = time.perf_counter()
        answer = await http.post("/v1/search", json={"query": maker.query(), "touch": False})
        if answer.status_code != 200:
            raise SystemExit(f"search answered {answer.status_code}: {answer.text[:200]}")
        log.append((time.perf_counter() - started) * 1000)


def search_phase(base: str, clients: int, work: Any) -> tuple[list[float], dict[str, float]]:
    """``clients`` searching while ``work(http)`` runs; the search latencies and what
    ``work`` returns (seconds per step)."""
    log: list[float] = []

    async def everyone() -> dict[str, float]:
        until = asyncio.Event()
        limits = httpx.Limits(max_connections=clients + 4)
        async with httpx.AsyncClient(base_url=base, timeout=600, limits=limits) as http:

            async def run_work() -> dict[str, float]:
                try:
                    return dict(await work(http))
                finally:
                    until.set()

            done = await asyncio.gather(
                run_work(), *(searcher(http, 100 + s, until, log) for s in range(clients))
            )
        return dict(done[0])

    steps = asyncio.run(everyone())
    return log, steps


def under_work(target: Target, args: argparse.Namespace) -> dict[str, Any]:
    """Search p50 / p95 idle, then while an import and a consolidate run (one worker)."""
    home, url = target.fresh("work")
    seed_store(home, url, args.seed, TextMaker(11))
    process, base = start(home, 1, url)
    lines = "\n".join(lines_of(args.import_lines, TextMaker(23), prefix=PREFIX + " import "))
    try:

        async def idle(http: httpx.AsyncClient) -> dict[str, float]:
            await asyncio.sleep(args.seconds)
            return {}

        async def busy(http: httpx.AsyncClient) -> dict[str, float]:
            steps = {}
            started = time.perf_counter()
            answer = await http.post(
                "/v1/import", content=lines, headers={"Content-Type": "application/x-ndjson"}
            )
            if answer.status_code != 200:
                raise SystemExit(f"import answered {answer.status_code}: {answer.text[:300]}")
            steps["import_s"] = time.perf_counter() - started
            started = time.perf_counter()
            answer = await http.post("/v1/consolidate", json={"dry_run": False})
            if answer.status_code != 200:
                raise SystemExit(f"consolidate answered {answer.status_code}")
            steps["consolidate_s"] = time.perf_counter() - started
            steps["insights"] = float(len(answer.json()["groups"]))
            return steps

        quiet, _ = search_phase(base, args.clients, idle)
        loaded, steps = search_phase(base, args.clients, busy)
    finally:
        process.terminate()
        process.wait(timeout=30)
    with open_store(home, url, embedder=None) as memory:
        imported = sum(1 for r in memory.list(limit=1_000_000) if r.content.startswith(PREFIX))
    idle_p95, busy_p95 = percentile(quiet, 95), percentile(loaded, 95)
    return {
        "store_kind": target.kind,
        "idle": {"searches": len(quiet), "p50_ms": percentile(quiet, 50), "p95_ms": idle_p95},
        "busy": {"searches": len(loaded), "p50_ms": percentile(loaded, 50), "p95_ms": busy_p95},
        "p95_ratio": busy_p95 / idle_p95,
        "work": steps,
        "imported": imported,
        "import_lines": args.import_lines,
    }


def embedder_rate(seconds: float) -> float:
    """Texts per second the bundled embedder makes in this process, one text per call."""
    from salience.embeddings import load_embedder

    embedder = load_embedder(Config())
    assert embedder is not None
    maker = TextMaker(77)
    for _ in range(20):
        embedder.embed([maker.sentence(6, 20)])
    count, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        embedder.embed([f"{PREFIX} rate {count}: {maker.sentence(6, 20)}"])
        count += 1
    return count / (time.perf_counter() - started)


def write_rate(target: Target, args: argparse.Namespace) -> dict[str, Any]:
    """``--writers`` clients writing unique texts, against the embedder alone."""
    alone = embedder_rate(args.seconds)
    home, url = target.fresh("writes")
    seed_store(home, url, args.seed, TextMaker(11))
    process, base = start(home, 1, url)
    log: list[tuple[str, float, int, Any]] = []
    try:

        async def writer(n: int) -> None:
            maker = TextMaker(500 + n)
            deadline = time.monotonic() + args.seconds
            async with httpx.AsyncClient(base_url=base, timeout=600) as http:
                i = 0
                while time.monotonic() < deadline:
                    text = f"{PREFIX} w{n}-{i}: {maker.sentence(6, 20)}"
                    i += 1
                    started = time.perf_counter()
                    answer = await http.post("/v1/memories", json={"content": text, "force": True})
                    body = answer.json() if answer.status_code < 500 else {}
                    log.append(
                        (
                            "remember",
                            time.perf_counter() - started,
                            answer.status_code,
                            (text, body),
                        )
                    )

        async def everyone() -> None:
            await asyncio.gather(*(writer(n) for n in range(args.writers)))

        started = time.perf_counter()
        asyncio.run(everyone())
        elapsed = time.perf_counter() - started
    finally:
        process.terminate()
        process.wait(timeout=30)
    times = [d * 1000 for _, d, _, _ in log]
    rate = sum(1 for _, _, status, _ in log if status == 201) / elapsed
    return {
        "store_kind": target.kind,
        "writers": args.writers,
        "writes_per_s": rate,
        "embedder_alone_per_s": alone,
        "ratio": rate / alone,
        "p50_ms": percentile(times, 50),
        "p95_ms": percentile(times, 95),
        "errors": sum(1 for _, _, status, _ in log if status >= 400),
        "store": verify(home, url, log),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--seed", type=int, default=2000, help="memories in the store first")
    parser.add_argument("--import-lines", type=int, default=3000)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--postgres", action="store_true", help="also on PostgreSQL (pgserver)")
    parser.add_argument("--parts", default="load,work,writes,overhead")
    parser.add_argument("--queries", type=int, default=300, help="queries for the overhead")
    parser.add_argument("--out", default="bench/results/serve_load.json")
    parser.add_argument("--hostile", action="store_true", help="a hostile tenant instead")
    parser.add_argument("--waits", type=int, default=42, help="with --hostile: Prefer: wait=300")
    args = parser.parse_args()
    if args.hostile:
        import hostile_tenant

        hostile = {"machine": machine(), "args": vars(args), **hostile_tenant.run(args.waits)}
        hostile_tenant.print_run(hostile)
        out = args.out.replace("serve_load.json", "serve_hostile.json")
        write_results(out, hostile)
        return
    parts = set(args.parts.split(","))
    server = None
    targets = [Target("sqlite")]
    if args.postgres:
        from tests.postgres import Server

        server = Server()
        targets.append(Target("postgresql", server.url))
    results: dict[str, Any] = {"machine": machine(), "clients": args.clients, "args": vars(args)}
    try:
        if "load" in parts:
            results["runs"] = runs = [
                run_load(int(w), t, args) for t in targets for w in args.workers.split(",")
            ]
            print_load(runs)
        if "work" in parts:
            results["under_work"] = work = [under_work(t, args) for t in targets]
            print_work(work)
        if "writes" in parts:
            results["write_rate"] = writes = [write_rate(t, args) for t in targets]
            print_writes(writes)
    finally:
        if server is not None:
            server.stop()
    if "overhead" in parts:
        results["overhead"] = extra = overhead(args)
        print(
            f"search p50 in process {extra['in_process_p50_ms']:.2f} ms; over HTTP "
            f"{extra['http_p50_ms']:.2f} ms (overhead {extra['overhead_p50_ms']:.2f} ms); "
            f"with httpx as the client {extra['httpx_p50_ms']:.2f} ms "
            f"(overhead {extra['httpx_overhead_p50_ms']:.2f} ms)"
        )
    write_results(args.out, results)


def print_load(runs: list[dict[str, Any]]) -> None:
    rows = [
        ["store", "workers", "route", "requests", "req/s", "p50 ms", "p95 ms", "p99 ms", "errors"]
    ]
    for run in runs:
        for route, r in run["routes"].items():
            rows.append(
                [
                    run["store_kind"],
                    str(run["workers"]),
                    route,
                    str(r["requests"]),
                    f"{r['requests'] / run['seconds']:.0f}",
                    f"{r['p50_ms']:.1f}",
                    f"{r['p95_ms']:.1f}",
                    f"{r['p99_ms']:.1f}",
                    str(r["errors"]),
                ]
            )
    print_table(rows, right_align_from=3)
    for run in runs:
        s = run["store"]
        print(
            f"{run['store_kind']}, workers {run['workers']}: {run['requests_per_s']:.0f} req/s; "
            f"created {s['created']}, stored {s['stored']}, lost {s['lost']}, "
            f"doubled {s['doubled']}"
        )


def print_work(runs: list[dict[str, Any]]) -> None:
    rows = [["store", "phase", "searches", "p50 ms", "p95 ms", "p95 / idle p95"]]
    for run in runs:
        for phase in ("idle", "busy"):
            r = run[phase]
            ratio = "1.00" if phase == "idle" else f"{run['p95_ratio']:.2f}"
            rows.append(
                [
                    run["store_kind"],
                    phase,
                    str(r["searches"]),
                    f"{r['p50_ms']:.1f}",
                    f"{r['p95_ms']:.1f}",
                    ratio,
                ]
            )
    print_table(rows, right_align_from=2)
    for run in runs:
        w = run["work"]
        print(
            f"{run['store_kind']}: import of {run['import_lines']} lines {w['import_s']:.1f} s "
            f"({run['imported']} stored), consolidate {w['consolidate_s']:.1f} s "
            f"({w['insights']:.0f} groups)"
        )


def print_writes(runs: list[dict[str, Any]]) -> None:
    rows = [["store", "writers", "writes/s", "embedder alone/s", "ratio", "p50 ms", "p95 ms"]]
    for run in runs:
        rows.append(
            [
                run["store_kind"],
                str(run["writers"]),
                f"{run['writes_per_s']:.1f}",
                f"{run['embedder_alone_per_s']:.1f}",
                f"{run['ratio']:.2f}",
                f"{run['p50_ms']:.1f}",
                f"{run['p95_ms']:.1f}",
            ]
        )
    print_table(rows, right_align_from=1)
    for run in runs:
        s = run["store"]
        print(
            f"{run['store_kind']}: created {s['created']}, stored {s['stored']}, "
            f"lost {s['lost']}, doubled {s['doubled']}, errors {run['errors']}"
        )


if __name__ == "__main__":
    main()
