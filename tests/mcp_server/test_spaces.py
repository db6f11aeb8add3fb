"""Spaces through the MCP tools: a user without a grant sees and changes nothing of a space, a
reader cannot write, a narrowed key stays narrowed, writes name the client's agent, and the
tool list names the caller's spaces. Both stores."""

from __future__ import annotations

import asyncio
import json
import zipfile
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import Implementation

from salience import Memory
from salience.mcp_server import create_mcp_server
from salience.mcp_server.registry import TOOL_SETS
from salience.models.spaces import Reach, reaching
from tests.both_stores import config
from tests.mcp_server.test_native import _run, _structured

__all__ = ["config"]  # (this module's engines: on both stores)

MARKER = "TEAMMARKER"
TEXT = f"{MARKER} the team deploys payments from the green cluster on port 9443"


@pytest.fixture
def team(memory: Memory) -> str:
    memory.create_space("team", user="alice")
    memory.grant("team", "bob", "read", user="alice")
    memory.grant("team", "dave", "write", user="alice")
    memory_id = memory.remember(TEXT, user="alice", space="team", source="user").id
    assert memory_id is not None
    return memory_id


def _as(
    memory: Memory, user: str, session: Callable[[Client], Awaitable[None]], **options: object
) -> None:
    _run(create_mcp_server(memory, user=user), session, **options)


def test_no_grant_sees_nothing_of_a_space_over_mcp(memory: Memory, team: str) -> None:
    async def carol(client: Client) -> None:
        for name, args in (
            ("recall", {"query": "payments green cluster"}),
            ("briefing", {}),
            ("list", {"status": "all"}),
            ("spaces", {}),
        ):
            result = await client.call_tool(name, args)
            assert MARKER not in json.dumps(result.model_dump()), name
        for name, args in (
            ("recall", {"query": "payments", "space": "team"}),
            ("list", {"space": "team"}),
            ("remember", {"content": "carol writes into the team space", "space": "team"}),
            ("history", {"memory_id": team}),
            ("forget", {"memory_id": team}),
            ("feedback", {"memory_id": team, "used": False}),
            ("supersede", {"memory_id": team, "content": "carol was here"}),
        ):
            result = await client.call_tool(name, args)
            assert result.is_error, name
            assert MARKER not in json.dumps(result.model_dump()), name

    before = memory.get(team, user="alice")
    _as(memory, "carol", carol)
    assert memory.get(team, user="alice") == before


def test_a_reader_reads_and_cannot_write_over_mcp(memory: Memory, team: str) -> None:
    async def bob(client: Client) -> None:
        hits = _structured(await client.call_tool("recall", {"query": "payments green"}))["hits"]
        assert [h["record"]["space"] for h in hits] == ["team"]
        listed = (await client.list_tools()).tools
        described = {t.name: t.description or "" for t in listed}
        assert "Your spaces: team (read)." in described["remember"]
        assert "Your spaces" not in described["stats"]
        for name, args in (
            ("remember", {"content": "bob writes into the team space", "space": "team"}),
            ("forget", {"memory_id": team}),
            ("update", {"memory_id": team, "importance": 0.9}),
        ):
            result = await client.call_tool(name, args)
            assert result.is_error, name

    before = memory.get(team, user="alice")
    _as(memory, "bob", bob)
    after = memory.get(team, user="alice")  # (his recall counted an access: nothing else)
    assert replace(after, access_count=0, last_accessed_at=None) == before


def test_a_narrowed_key_stays_narrowed_over_mcp(memory: Memory, team: str) -> None:
    async def dave(client: Client) -> None:
        refused = await client.call_tool(
            "remember", {"content": "dave writes with a narrowed key", "space": "team"}
        )
        assert refused.is_error

    with reaching(Reach(spaces={"team": "read"})):
        _as(memory, "dave", dave)
    assert [r.id for r in memory.list(user="alice", space="team")] == [team]


def test_a_write_names_the_mcp_clients_agent(memory: Memory, team: str) -> None:
    async def dave(client: Client) -> None:
        made = _structured(
            await client.call_tool(
                "remember", {"content": "the ledger reconciles payouts nightly", "space": "team"}
            )
        )
        record = made["record"]
        assert (record["space"], record["author"], record["agent"]) == ("team", "dave", "ci-bot")

    _as(memory, "dave", dave, client_info=Implementation(name="ci-bot", version="1.0"))
    briefed = memory.briefing(user="bob").text
    assert "[team] [agent ci-bot] the ledger reconciles payouts nightly" in briefed


def _arguments(schema: dict[str, Any], memory_id: str) -> dict[str, Any]:
    """Arguments a tool accepts: every required one, a memory id where it takes one, the
    space where it takes one."""
    made: dict[str, Any] = {}
    properties = schema.get("properties", {})
    for name in [*schema.get("required", []), *(["space"] if "space" in properties else [])]:
        node = properties[name]
        kinds = [node.get("type"), *(o.get("type") for o in node.get("anyOf", []))]
        kind = next((k for k in kinds if k and k != "null"), "string")
        if name == "space":
            made[name] = "team"
        elif kind == "string":
            lowered = name.lower()
            made[name] = memory_id if lowered.endswith("id") else "payments green cluster"
        else:
            made[name] = {"integer": 5, "number": 0.5, "boolean": False, "array": []}[kind]
    return made


@pytest.mark.parametrize("tools", sorted(TOOL_SETS))
def test_every_tool_of_every_set_leaks_nothing_of_a_space(
    memory: Memory, team: str, tools: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """carol, with no grant, calls every tool (its memory ids: the space's memory; its space:
    the team's): no answer carries a byte of the space's memory, and it is unchanged. (In a
    folder of its own: a tool that writes a file, such as a pack, writes it there.)"""
    folder = tmp_path / "cwd"
    folder.mkdir()
    monkeypatch.chdir(folder)

    async def carol(client: Client) -> list[str]:
        called = []
        for tool in (await client.list_tools()).tools:
            result = await client.call_tool(tool.name, _arguments(tool.input_schema, team))
            assert MARKER not in json.dumps(result.model_dump()), tool.name
            called.append(tool.name)
        return called

    before = memory.get(team, user="alice")

    async def main() -> list[str]:
        async with Client(create_mcp_server(memory, tools=tools, user="carol")) as client:
            return await carol(client)

    assert asyncio.run(main())
    assert memory.get(team, user="alice") == before
    for written in folder.rglob("*"):  # (what a tool wrote: a pack is a zip)
        if written.is_file() and zipfile.is_zipfile(written):
            with zipfile.ZipFile(written) as pack:
                assert all(MARKER.encode() not in pack.read(n) for n in pack.namelist())
        elif written.is_file():
            assert MARKER.encode() not in written.read_bytes()
