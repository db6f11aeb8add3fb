"""The server's own middleware: every answer whose recall ran short says so in a header."""

from __future__ import annotations

from pathlib import Path

from salience import Config, Memory
from salience.server.app import create_app
from tests.conftest import FakeClock
from tests.embedder import WordHashEmbedder
from tests.loopback import local_client


def _app_on(home: Path, clock: FakeClock, embedder: WordHashEmbedder | None) -> Memory:
    memory = Memory.open(
        config=Config(home=home, signal_gate=False), clock=clock, embedder=embedder
    )
    memory.remember("The staging API listens on port 8080")
    return memory


def test_a_recall_that_ran_short_is_said_on_every_route(tmp_path: Path, clock: FakeClock) -> None:
    with (
        _app_on(tmp_path / "home", clock, None) as memory,
        local_client(create_app(memory)) as client,
    ):
        native = client.post("/v1/search", json={"query": "staging API port"})
        original = client.post("/compat/rae/v1/memory/query", json={"query_text": "staging"})
        listed = client.get("/v1/memories")
    assert native.status_code == original.status_code == 200
    assert native.headers["salience-degraded"] == "no_embedder"
    said = native.json()["degraded"]
    assert [d["cause"] for d in said] == ["no_embedder"]
    assert said[0]["fix"].startswith("SALIENCE_EMBEDDER=minilm")
    assert native.json()["hits"][0]["record"]["content"].startswith("The staging API")
    assert original.headers["salience-degraded"] == "no_embedder"  # (its body: the original's)
    assert "salience-degraded" not in listed.headers  # (no recall: nothing to say)


def test_a_full_recall_says_nothing(tmp_path: Path, clock: FakeClock) -> None:
    with (
        _app_on(tmp_path / "home", clock, WordHashEmbedder()) as memory,
        local_client(create_app(memory)) as client,
    ):
        native = client.post("/v1/search", json={"query": "staging API port"})
    assert "salience-degraded" not in native.headers
    assert native.json()["degraded"] == []
