"""Load on ``salience serve`` (loopback only, bounded in time): throughput, latency, no lost writes.

For each worker count: a fresh store seeded with ``--seed`` memories (the bundled embedder),
a real ``salience serve`` process on a free loopback port, ``--clients`` concurrent clients
for ``--seconds`` (80 % search, 20 % remember of unique texts). Prints requests/s, p50 / p95 /
p99 per route and errors, then checks that the store holds exactly the writes that answered
``created``: nothing lost, nothing doubled. Then the overhead: the same queries one at a time
over HTTP and through ``Memory.search`` in this process, on the same store.

    python bench/serve_load.py [--workers 1,2] [--clients 16] [--seconds 60] [--seed 2000]

Writes bench/results/serve_load.json.
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

from bench_store import TextMaker, percentile
from common import machine, print_table, write_results
from salience import Memory

PREFIX = "loadtest"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def seed_store(home: Path, count: int, maker: TextMaker) -> None:
    lines = [
        json.dumps({"content": maker.sentence(), "tags": [f"project:p{i % 5}"]})
        for i in range(count)
    ]
    with Memory.open(home) as memory:
        memory.import_(lines)


def start(home: Path, workers: int) -> tuple[subprocess.Popen[bytes], str]:
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
        env={**os.environ, "SALIENCE_HOME": str(home)},
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


def verify(home: Path, log: list[tuple[str, float, int, Any]]) -> dict[str, int]:
    created = {
        body["id"]: text
        for route, _, status, (text, body) in (
            (r, d, s, x) for r, d, s, x in log if r == "remember"
        )
        if status == 201
    }
    with Memory.open(home, embedder=None) as memory:
        stored = [r for r in memory.list() if r.content.startswith(PREFIX)]
    by_id = {r.id: r.content for r in stored}
    lost = sum(1 for i, text in created.items() if by_id.get(i) != text)
    return {
        "created": len(created),
        "stored": len(stored),
        "lost": lost,
        "doubled": len(stored) - len({r.content for r in stored}),
    }


def run_load(workers: int, args: argparse.Namespace) -> dict[str, Any]:
    home = Path(tempfile.mkdtemp(prefix=f"serve-load-{workers}-"))
    seed_store(home, args.seed, TextMaker(11))
    process, base = start(home, workers)
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
        "workers": workers,
        "seconds": elapsed,
        "requests_per_s": len(log) / elapsed,
        "routes": routes,
        "store": verify(home, log),
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
    seed_store(home, args.seed, TextMaker(11))
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed", type=int, default=2000, help="memories in the store first")
    parser.add_argument("--queries", type=int, default=300, help="queries for the overhead")
    parser.add_argument("--out", default="bench/results/serve_load.json")
    args = parser.parse_args()
    runs = [run_load(int(w), args) for w in args.workers.split(",")]
    rows = [["workers", "route", "requests", "req/s", "p50 ms", "p95 ms", "p99 ms", "errors"]]
    for run in runs:
        for route, r in run["routes"].items():
            rows.append(
                [
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
    print_table(rows, right_align_from=2)
    for run in runs:
        s = run["store"]
        print(
            f"workers {run['workers']}: {run['requests_per_s']:.0f} req/s; created {s['created']}, "
            f"stored {s['stored']}, lost {s['lost']}, doubled {s['doubled']}"
        )
    extra = overhead(args)
    print(
        f"search p50 in process {extra['in_process_p50_ms']:.2f} ms; over HTTP "
        f"{extra['http_p50_ms']:.2f} ms (overhead {extra['overhead_p50_ms']:.2f} ms); "
        f"with httpx as the client {extra['httpx_p50_ms']:.2f} ms "
        f"(overhead {extra['httpx_overhead_p50_ms']:.2f} ms)"
    )
    write_results(
        args.out, {"machine": machine(), "clients": args.clients, "runs": runs, "overhead": extra}
    )


if __name__ == "__main__":
    main()
