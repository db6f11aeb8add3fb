"""salience's own MCP tools, driven by the official SDK's client: in process, over stdio
(a real ``salience mcp`` subprocess) and with the older initialize handshake."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from salience import Memory
from salience.mcp_server import create_mcp_server
from salience.mcp_server.app import INSTRUCTIONS
from salience.models import NOTES

SECRET = "ghp_" + "Zq8Rt2Lm5Xw9Kp3Vn7Bc1Hd4Fj6Gs0Ay2Eu"
TOOLS = {
    "remember",
    "recall",
    "spaces",
    "briefing",
    "feedback",
    "update",
    "supersede",
    "forget",
    "history",
    "session_start",
    "session_end",
    "list",
    "entities",
    "stats",
    "stale",
    "briefing_log",
    "updates",
    "confirm_update",
    "dismiss_update",
}
READ_ONLY = {
    "recall",
    "spaces",
    "briefing",
    "history",
    "list",
    "entities",
    "stats",
    "stale",
    "briefing_log",
    "updates",
}


def _run(server: Any, session: Callable[[Client], Awaitable[None]], **options: Any) -> None:
    async def main() -> None:
        async with Client(server, **options) as client:
            await session(client)

    asyncio.run(main())


def _structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    data: dict[str, Any] = result.structured_content
    return data


def test_the_tools_are_listed_with_schemas_and_hints(memory: Memory) -> None:
    async def session(client: Client) -> None:
        listed = (await client.list_tools()).tools
        assert {t.name for t in listed} == TOOLS
        for tool in listed:
            assert tool.description, tool.name
            assert len(tool.description) > 40, tool.name
            assert tool.output_schema is not None, tool.name
            assert tool.annotations is not None
            assert tool.annotations.read_only_hint is (tool.name in READ_ONLY), tool.name
        remember = next(t for t in listed if t.name == "remember")
        assert remember.input_schema["required"] == ["content"]
        importance = remember.input_schema["properties"]["importance"]
        assert "maximum" in json.dumps(importance)

    _run(create_mcp_server(memory), session)


def test_every_tool_works_on_a_real_store(memory: Memory) -> None:
    async def session(client: Client) -> None:
        made = _structured(
            await client.call_tool(
                "remember",
                {
                    "content": "Deploys go through ops/deploy.sh, never by hand",
                    "tags": ["project:api"],
                },
            )
        )
        assert made["outcome"] == "created"
        memory_id = made["id"]
        again = _structured(
            await client.call_tool(
                "remember", {"content": "deploys go through ops/deploy.sh, never by hand"}
            )
        )
        assert (again["outcome"], again["id"]) == ("duplicate", memory_id)
        recalled = await client.call_tool("recall", {"query": "how do we deploy", "explain": True})
        hits = _structured(recalled)["hits"]
        assert hits[0]["record"]["id"] == memory_id  # the wire's hit, as POST /v1/search has it
        assert hits[0]["breakdown"]
        brief = json.loads(recalled.content[0].text)["hits"]  # what the model reads: compact
        assert (brief[0]["id"], brief[0]["content"]) == (memory_id, hits[0]["record"]["content"])
        assert brief[0]["explanation"]["breakdown"] == hits[0]["breakdown"]
        assert "access_count" not in brief[0]
        assert len(recalled.content[0].text) < len(json.dumps(_structured(recalled))) / 2
        assert (
            _structured(await client.call_tool("feedback", {"memory_id": memory_id, "used": True}))[
                "record"
            ]["importance"]
            == 0.55
        )
        updated = _structured(
            await client.call_tool("update", {"memory_id": memory_id, "tags": ["project:ops"]})
        )
        assert updated["record"]["tags"] == ["project:ops"]
        new = _structured(
            await client.call_tool(
                "supersede",
                {"memory_id": memory_id, "content": "Deploys go through GitHub Actions now"},
            )
        )
        history = await client.call_tool("history", {"memory_id": new["id"]})
        chain = _structured(history)["memories"]
        assert [m["id"] for m in chain] == [new["id"], memory_id]
        assert "revision_count" in chain[0]  # the wire's full memory
        assert [m["id"] for m in json.loads(history.content[0].text)["memories"]] == [
            new["id"],
            memory_id,
        ]
        listed = _structured(await client.call_tool("list", {}))["memories"]
        assert [m["id"] for m in listed] == [new["id"]]
        assert _structured(await client.call_tool("entities", {}))["entities"]
        assert _structured(await client.call_tool("stats", {}))["total"] == 2
        brief = _structured(await client.call_tool("briefing", {}))
        assert "GitHub Actions" in brief["text"]
        started = _structured(await client.call_tool("session_start", {}))
        assert started["is_new"]
        ended = _structured(
            await client.call_tool("session_end", {"summary": "Moved deploys to CI"})
        )
        assert ended["record"]["session_id"] == started["session_id"]
        forgotten = _structured(
            await client.call_tool("forget", {"memory_id": new["id"], "reason": "wrong"})
        )
        assert forgotten["outcome"] == "forgotten"
        prompt = await client.get_prompt("briefing")
        assert NOTES in json.dumps(prompt.messages[0].model_dump())
        resource = await client.read_resource("salience://briefing")
        assert NOTES in json.dumps(resource.contents[0].model_dump())

    _run(create_mcp_server(memory), session)


def test_errors_are_tool_errors_an_agent_can_act_on(memory: Memory, home: Path) -> None:
    async def session(client: Client) -> None:
        refused = await client.call_tool("remember", {"content": f"the deploy token is {SECRET}"})
        assert refused.is_error
        text = json.dumps([c.model_dump() for c in refused.content])
        assert "secret gate" in text
        assert SECRET not in text
        missing = await client.call_tool("history", {"memory_id": "01ARZ3NDEKTSV4RRFFQ69G5FAV"})
        assert missing.is_error
        assert "no memory with id" in missing.content[0].text  # type: ignore[union-attr]
        bad = await client.call_tool("recall", {"query": "x", "limit": 0})
        assert bad.is_error
        long = await client.call_tool("remember", {"content": SECRET + "x" * 70_000})
        assert long.is_error
        assert SECRET not in json.dumps([c.model_dump() for c in long.content])

    _run(create_mcp_server(memory), session)
    stored = b"".join(p.read_bytes() for p in home.iterdir() if p.name.startswith("salience.db"))
    assert SECRET.encode() not in stored
    assert memory.list() == []


def test_the_server_tells_an_agent_the_loop(memory: Memory) -> None:
    assert "briefing" in INSTRUCTIONS
    assert "recall" in INSTRUCTIONS
    assert "feedback" in INSTRUCTIONS
    server = create_mcp_server(memory)
    assert server.instructions == INSTRUCTIONS


def _stdio(home: Path, *args: str) -> StdioServerParameters:
    env = {**os.environ, "SALIENCE_EMBEDDER": "none", "SALIENCE_HOME": str(home)}
    return StdioServerParameters(
        command=sys.executable, args=["-m", "salience", "mcp", *args], env=env
    )


@pytest.mark.process
@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_over_stdio_as_a_desktop_host_runs_it(tmp_path: Path, mode: str) -> None:
    home = tmp_path / "home"

    async def session(client: Client) -> None:
        assert {t.name for t in (await client.list_tools()).tools} == TOOLS
        made = _structured(
            await client.call_tool("remember", {"content": "The staging API listens on port 8080"})
        )
        assert made["outcome"] == "created"
        hits = _structured(await client.call_tool("recall", {"query": "staging port"}))["hits"]
        assert hits[0]["record"]["content"] == "The staging API listens on port 8080"

    _run(_stdio(home), session, mode=mode)
    with Memory.open(home, embedder=None) as memory:
        assert [r.content for r in memory.list()] == ["The staging API listens on port 8080"]


def test_stale_is_listed_and_only_a_person_confirms(memory: Memory) -> None:
    source = "01JS0000000000000000000031"
    lines = [
        json.dumps({"id": source, "content": "the north crane is rated for 40 tonnes"}),
        json.dumps({"content": "crane summary: 40 t", "type": "insight", "derived_from": [source]}),
    ]
    memory.import_(lines)

    async def session(client: Client) -> None:
        await client.call_tool("forget", {"memory_id": source, "reason": "sold"})
        listed = await client.call_tool("stale", {})
        assert not listed.is_error
        marked = listed.structured_content["memories"]  # type: ignore[index]
        assert [m["content"] for m in marked] == ["crane summary: 40 t"]
        tools = {t.name for t in (await client.list_tools()).tools}
        assert "confirm" not in tools  # an agent does not confirm what went stale: a person
        memory.confirm(marked[0]["id"])  # (the library: a person at the machine)
        again = await client.call_tool("stale", {})
        assert again.structured_content["memories"] == []  # type: ignore[index]

    _run(create_mcp_server(memory), session)


def test_a_learned_explanation_is_compact_for_an_agent() -> None:
    from salience.mcp_server.briefs import learned_brief as _learned
    from salience.models import Learned

    terms = (
        ("lexical", 1.0, 0.5),
        ("context", 0.8, 5.0),
        ("length", 4.0, -1.0),
        ("asks", 1.0, 0.1),
    )
    compact = _learned(Learned(0.61, 0.0, terms, 3.6, -1.0, 3.6, 2))
    assert compact == {
        "before": 0.61,
        "logit": 3.6,
        "largest": {"context": 4.0, "length": -4.0, "lexical": 0.5},
        "session": 2,
    }
    assert _learned(None) is None


def test_updates_are_listed_and_decided_through_tools(memory: Memory) -> None:
    old = memory.remember("The nightly backup runs at 2am.")
    new = memory.remember("The nightly backup runs at 4am now.")
    other_old = memory.remember("The team standup happens in room 4B.")
    other_new = memory.remember("The team standup happens in room 2A now.")

    async def session(client: Client) -> None:
        listed = _structured(await client.call_tool("updates", {}))["updates"]
        assert {(x["new_id"], x["old_id"]) for x in listed} == {
            (new.id, old.id),
            (other_new.id, other_old.id),
        }
        confirmed = await client.call_tool("confirm_update", {"new_id": new.id, "old_id": old.id})
        assert _structured(confirmed)["outcome"] == "updated"
        pair = {"new_id": other_new.id, "old_id": other_old.id}
        dismissed = _structured(await client.call_tool("dismiss_update", pair))
        assert dismissed["state"] == "dismissed"
        every = _structured(await client.call_tool("updates", {"state": "all"}))["updates"]
        assert sorted(x["state"] for x in every) == ["confirmed", "dismissed"]
        again = await client.call_tool("confirm_update", {"new_id": new.id, "old_id": old.id})
        assert again.is_error

    _run(create_mcp_server(memory), session)
