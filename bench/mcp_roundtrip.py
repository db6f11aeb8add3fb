"""MCP tool-call round trips, over stdio (``salience mcp``) and streamable HTTP (``salience
serve``'s ``/mcp``), for recall and remember, on a store of ``--size`` memories.

    python bench/mcp_roundtrip.py [--size 10000] [--calls 200]

Prints p50 / p95 per transport and tool and writes bench/results/mcp_roundtrip.json. The
client is the official SDK's; each call is timed from the client's side.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).parent))

from bench_store import TextMaker, percentile
from common import machine, print_table, write_results
from serve_load import seed_store, start


async def _calls(client: Client, calls: int, seed: int) -> dict[str, list[float]]:
    maker = TextMaker(seed)
    times: dict[str, list[float]] = {"recall": [], "remember": []}
    for _ in range(10):  # warm up: model, vectors, connections
        await client.call_tool("recall", {"query": maker.query()})
    for n in range(calls):
        started = time.perf_counter()
        result = await client.call_tool("recall", {"query": maker.query()})
        times["recall"].append((time.perf_counter() - started) * 1000)
        assert not result.is_error
        started = time.perf_counter()
        result = await client.call_tool(
            "remember", {"content": f"roundtrip {seed}-{n}: {maker.sentence(8, 20)}", "force": True}
        )
        times["remember"].append((time.perf_counter() - started) * 1000)
        assert not result.is_error, result.content
    return times


def over_stdio(home: Path, calls: int) -> dict[str, list[float]]:
    env = {**os.environ, "SALIENCE_HOME": str(home)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "salience", "mcp"], env=env)

    async def main() -> dict[str, list[float]]:
        async with Client(params) as client:
            return await _calls(client, calls, 1)

    return asyncio.run(main())


def over_http(home: Path, calls: int) -> dict[str, list[float]]:
    process, base = start(home, 1)
    try:

        async def main() -> dict[str, list[float]]:
            async with (
                httpx2.AsyncClient(timeout=60) as http,
                Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client,
            ):
                return await _calls(client, calls, 2)

        return asyncio.run(main())
    finally:
        process.terminate()
        process.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--out", default="bench/results/mcp_roundtrip.json")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="mcp-roundtrip-"))
    started = time.perf_counter()
    seed_store(home, args.size, TextMaker(11))
    print(f"store of {args.size} memories made in {time.perf_counter() - started:.0f} s")
    results: dict[str, Any] = {}
    rows = [["transport", "tool", "calls", "p50 ms", "p95 ms", "mean ms"]]
    for name, run in (("stdio", over_stdio), ("http", over_http)):
        times = run(home, args.calls)
        results[name] = {}
        for tool, values in times.items():
            summary = {
                "calls": len(values),
                "p50_ms": percentile(values, 50),
                "p95_ms": percentile(values, 95),
                "mean_ms": statistics.fmean(values),
            }
            results[name][tool] = summary
            rows.append(
                [
                    name,
                    tool,
                    str(len(values)),
                    f"{summary['p50_ms']:.1f}",
                    f"{summary['p95_ms']:.1f}",
                    f"{summary['mean_ms']:.1f}",
                ]
            )
    print_table(rows, right_align_from=2)
    write_results(args.out, {"machine": machine(), "size": args.size, "results": results})


if __name__ == "__main__":
    main()
