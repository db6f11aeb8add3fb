"""No request waits for another: reads (HTTP and MCP) answer while a write holds the store,
and requests in several threads at once lose nothing (on SQLite and on PostgreSQL)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from fastapi.testclient import TestClient

from salience import Config, Memory
from salience.server.app import create_app
from tests.embedder import WordHashEmbedder
from tests.loopback import local_client

MCP_HEADERS = {"Accept": "application/json, text/event-stream"}
BOUND_S = 10.0  # a read waiting on the write below would wait for all of HOLD_S
HOLD_S = 60.0


@contextmanager
def write_held(engine: Memory) -> Iterator[None]:
    """A write transaction open in another thread for the block (as a long import's is)."""
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with engine.store.transaction():
            held.set()
            release.wait(HOLD_S)

    writer = threading.Thread(target=hold)
    writer.start()
    try:
        assert held.wait(10), "the writer did not start"
        yield
    finally:
        release.set()
        writer.join()


def within_bound(call: Callable[[], httpx.Response]) -> httpx.Response:
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(call).result(timeout=BOUND_S)


def mcp_call(client: TestClient, tool: str, arguments: dict[str, Any]) -> httpx.Response:
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    return client.post("/mcp", json=request, headers=MCP_HEADERS)


def test_reads_answer_while_a_write_holds_the_store(engine: Memory, client: TestClient) -> None:
    ids = [engine.remember(f"note {n} about the harbour crane", force=True).id for n in range(12)]
    first = ids[0]
    reads: dict[str, Callable[[], httpx.Response]] = {
        "search": lambda: client.post(
            "/v1/search", json={"query": "harbour crane", "touch": False}
        ),
        "list": lambda: client.get("/v1/memories"),
        "get": lambda: client.get(f"/v1/memories/{first}"),
        "briefing": lambda: client.post("/v1/briefing", json={}),
        "rank": lambda: client.get("/v1/rank"),
        "stats": lambda: client.get("/v1/stats"),
        "mcp recall": lambda: mcp_call(client, "recall", {"query": "harbour crane"}),
    }
    with write_held(engine):
        for name, read in reads.items():
            answer = within_bound(read)
            assert answer.status_code == 200, (name, answer.text)
            assert "crane" in answer.text or name == "stats", name
            if name == "mcp recall":
                assert answer.json()["result"]["isError"] is False


def test_a_write_made_during_reads_is_seen_once_committed(
    engine: Memory, client: TestClient
) -> None:
    with write_held(engine):
        assert within_bound(lambda: client.get("/v1/memories")).json() == []
    made = client.post("/v1/memories", json={"content": "the crane was repaired on Tuesday"})
    assert made.status_code == 201
    listed = client.get("/v1/memories").json()
    assert [m["id"] for m in listed] == [made.json()["id"]]


def test_many_clients_at_once_lose_nothing_and_double_nothing(
    engine: Memory, client: TestClient
) -> None:
    """8 threads, each writing 15 memories and searching between writes, over HTTP and MCP."""

    def worker(n: int) -> list[str]:
        made = []
        for i in range(15):
            text = f"worker {n} wrote entry {i} about pallet {n * 100 + i}"
            if i % 3 == 0:
                answer = mcp_call(client, "remember", {"content": text, "force": True})
                assert answer.status_code == 200, answer.text
                made.append(answer.json()["result"]["structuredContent"]["id"])
            else:
                answer = client.post("/v1/memories", json={"content": text, "force": True})
                assert answer.status_code == 201, answer.text
                made.append(answer.json()["id"])
            found = client.post("/v1/search", json={"query": f"pallet {n * 100 + i}"})
            assert found.status_code == 200, found.text
        return made

    with ThreadPoolExecutor(8) as pool:
        made = [i for part in pool.map(worker, range(8)) for i in part]
    assert len(made) == len(set(made)) == 120
    stored = engine.list(limit=1000)
    assert sorted(r.id for r in stored) == sorted(made)
    # The vector index followed every write made in other threads.
    hits = engine.search("pallet 713", touch=False)
    assert hits
    assert hits[0].record.content == "worker 7 wrote entry 13 about pallet 713"


class SlowEmbedder(WordHashEmbedder):
    """Embeds a text containing "slowly" only once released: a long tool call."""

    def __init__(self) -> None:
        super().__init__()
        self.started, self.release = threading.Event(), threading.Event()

    def embed(self, texts: Sequence[str]) -> Any:
        if any("slowly" in t for t in texts):
            self.started.set()
            self.release.wait(HOLD_S)
        return super().embed(texts)


def test_a_long_mcp_call_blocks_no_other_mcp_call_or_http_request(tmp_path: Path) -> None:
    embedder = SlowEmbedder()
    config = Config(home=tmp_path / "home", signal_gate=False)
    with (
        Memory.open(config=config, embedder=embedder) as engine,
        local_client(create_app(engine)) as client,
    ):
        assert engine.remember("the harbour crane lifts 40 tonnes", force=True).ok
        with ThreadPoolExecutor(1) as pool:
            slow = pool.submit(
                mcp_call, client, "remember", {"content": "written slowly by a long call"}
            )
            try:
                assert embedder.started.wait(10)
                search = within_bound(
                    lambda: client.post("/v1/search", json={"query": "harbour crane"})
                )
                assert search.status_code == 200
                assert "crane" in search.text
                recall = within_bound(lambda: mcp_call(client, "recall", {"query": "crane"}))
                assert recall.status_code == 200
                assert "crane" in recall.text
                assert not slow.done()  # the long call was still running all along
            finally:
                embedder.release.set()
            answer = slow.result(timeout=BOUND_S)
        assert answer.json()["result"]["isError"] is False
