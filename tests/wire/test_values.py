"""One shape per value: what the CLI's --json, the HTTP API, MCP's structured output and the
Python client give for the same value of the same store are equal."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from salience import Config, Memory
from salience.cli import cli
from salience.clock import parse_time
from salience.engine import core
from salience.server.app import create_app
from salience.wire import decode
from salience.wire.values import ranked_out, search_out
from tests.embedder import WordHashEmbedder
from tests.loopback import local_client

AS_OF = "2026-04-21T12:00:00.000000Z"
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("SALIENCE_HOME", str(home))
    monkeypatch.setenv("SALIENCE_EMBEDDER", "none")
    monkeypatch.setenv("SALIENCE_SIGNAL_GATE", "0")
    for name in ("SALIENCE_USER", "SALIENCE_PROFILE", "SALIENCE_STORE_URL"):
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def faces(home: Path) -> Iterator[tuple[Memory, TestClient]]:
    with Memory.open(config=Config.from_env(), embedder=None) as memory:
        for n, text in enumerate(
            [
                "the harbour crane at dock 3 lifts 40 tonnes",
                "dock 3's crane was serviced on Monday",
                "the crane operator at dock 3 is Priya",
                "wet labels confuse the pallet scanner",
            ]
        ):
            tag = "cranes" if "crane" in text else "scanner"
            memory.remember(text, type="observation", tags=[tag], importance=0.3 + 0.1 * n)
        with local_client(create_app(memory)) as client:
            yield memory, client


def cli_json(*args: str) -> Any:
    result = CliRunner().invoke(cli, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def mcp(client: TestClient, tool: str, arguments: dict[str, Any] | None = None) -> Any:
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments or {}},
    }
    answer = client.post("/mcp", json=request, headers=MCP_HEADERS)
    assert answer.status_code == 200, answer.text
    result = answer.json()["result"]
    assert result["isError"] is False, result
    return result["structuredContent"]


def shape(value: Any) -> Any:
    """The keys (recursively) and kinds of a JSON value, without its values."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in sorted(value.items())}
    if isinstance(value, list):
        return [shape(value[0])] if value else []
    return (
        "number"
        if isinstance(value, int | float) and not isinstance(value, bool)
        else (type(value).__name__)
    )


def test_a_hit_is_one_shape_on_the_cli_http_and_the_client(
    faces: tuple[Memory, TestClient],
) -> None:
    _, client = faces
    # (no number in the query: the full-text index holds each memory's creation date in
    # words, and "3" matched the day of one written, by the wall clock, on the 3rd)
    query = {"query": "crane dock", "touch": False, "as_of": AS_OF}
    over_http = client.post("/v1/search", json=query).json()
    on_cli = cli_json("recall", "crane dock", "--no-touch", "--as-of", AS_OF)
    assert len(over_http["hits"]) == 3
    assert on_cli == over_http


def test_a_ranked_memory_and_a_briefing_are_one_shape(faces: tuple[Memory, TestClient]) -> None:
    memory, client = faces
    assert cli_json("rank", "--as-of", AS_OF) == client.get(f"/v1/rank?as_of={AS_OF}").json()
    ranked = memory.rank(as_of=parse_time(AS_OF))
    assert [ranked_out(r, s) for r, s in ranked] == cli_json("rank", "--as-of", AS_OF)
    briefing = client.post("/v1/briefing", json={"as_of": AS_OF}).json()
    assert cli_json("briefing", "--as-of", AS_OF) == briefing
    assert briefing["as_of"] == AS_OF
    assert shape(mcp(client, "briefing")) == shape(briefing)


def test_stats_and_plans_are_one_shape(faces: tuple[Memory, TestClient]) -> None:
    _, client = faces
    stats = client.get("/v1/stats").json()
    assert cli_json("stats") == stats == mcp(client, "stats")
    plan = client.post("/v1/consolidate", json={"dry_run": True, "as_of": AS_OF}).json()
    assert plan["groups"], plan
    assert cli_json("consolidate", "--dry-run", "--as-of", AS_OF) == plan
    upkeep = client.post("/v1/maintain", json={"dry_run": True, "as_of": AS_OF}).json()
    assert cli_json("maintain", "--dry-run", "--as-of", AS_OF) == upkeep


def test_writes_and_sessions_are_one_shape(faces: tuple[Memory, TestClient]) -> None:
    _, client = faces
    on_cli = cli_json("remember", "the scanner at dock 5 needs new firmware")
    over_http = client.post("/v1/memories", json={"content": "dock 6 opens at six"}).json()
    over_mcp = mcp(client, "remember", {"content": "dock 7 closes at ten"})
    assert shape(on_cli) == shape(over_http) == shape(over_mcp)
    assert on_cli["record"]["created_at"].endswith("Z")
    started_cli = cli_json("session", "start")
    started_http = client.post("/v1/sessions/start").json()
    assert shape(started_cli) == shape(started_http) == shape(mcp(client, "session_start"))


def test_the_client_decodes_the_wire_back_to_the_same_values(
    faces: tuple[Memory, TestClient],
) -> None:
    memory, client = faces
    over_http = client.post("/v1/search", json={"query": "crane", "touch": False}).json()
    local = memory.search("crane", touch=False)
    assert search_out(local) == over_http
    assert local.degraded  # (these faces have no embedder: said on every one)
    assert decode.recalled(over_http).degraded == local.degraded


def test_mcp_answers_hits_and_memories_in_the_wires_shape(
    faces: tuple[Memory, TestClient],
) -> None:
    _, client = faces
    over_http = client.post("/v1/search", json={"query": "crane dock 3", "touch": False}).json()
    over_mcp = mcp(client, "recall", {"query": "crane dock 3"})
    assert shape(over_mcp) == shape(over_http)
    assert over_mcp["degraded"] == over_http["degraded"]
    assert [h["record"]["id"] for h in over_mcp["hits"]] == [
        h["record"]["id"] for h in over_http["hits"]
    ]
    listed = client.get("/v1/memories").json()
    assert mcp(client, "list")["memories"] == listed[:20]
    first = listed[0]["id"]
    chain = client.get(f"/v1/memories/{first}/history").json()
    assert mcp(client, "history", {"memory_id": first})["memories"] == chain


def test_layers_and_packs_are_one_shape(faces: tuple[Memory, TestClient], tmp_path: Path) -> None:
    _, client = faces
    pack = tmp_path / "cranes.pack"
    exported = cli_json("pack", "export", str(pack), "--tag", "cranes")
    assert exported["counts"]["records"] == 3
    on_cli = cli_json("pack", "import", str(pack), "--mount-as", "shared", "--name", "cranes")
    assert on_cli["layer"]["name"] == "cranes"
    over_http = client.post(
        "/v1/packs/import?mount_as=base&name=again",
        content=pack.read_bytes(),
        headers={"Content-Type": "application/zip"},
    ).json()
    assert shape(on_cli) == shape(over_http)
    assert on_cli["manifest"] == over_http["manifest"] == exported
    assert cli_json("layer", "list") == client.get("/v1/layers").json()


def test_a_learned_hit_is_one_shape_and_decodes_back(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the learned fusion re-ranks recalls by both retrievers: every face's engine embeds
    monkeypatch.setattr(core, "load_embedder", lambda config: WordHashEmbedder())
    with Memory.open(config=Config.from_env()) as memory:
        for text in ("the harbour crane lifts 40 tonnes", "the crane was serviced on Monday"):
            memory.remember(text)
        local = memory.search("crane tonnes", touch=False, as_of=parse_time(AS_OF))
        with local_client(create_app(memory)) as client:
            query = {"query": "crane tonnes", "touch": False, "as_of": AS_OF}
            over_http = client.post("/v1/search", json=query).json()
            on_cli = cli_json("recall", "crane tonnes", "--no-touch", "--as-of", AS_OF)
            over_mcp = mcp(client, "recall", {"query": "crane tonnes"})
    learned = local[0].relevance.learned if local[0].relevance else None
    assert learned is not None
    assert search_out(local) == over_http
    first = over_http["hits"][0]
    assert first["relevance"]["learned"]["terms"][0]["feature"] == "lexical"
    assert decode.recalled(over_http) == local
    assert on_cli == over_http
    assert shape(over_mcp) == shape(over_http)
    assert over_mcp["hits"][0]["relevance"]["learned"] == first["relevance"]["learned"]
