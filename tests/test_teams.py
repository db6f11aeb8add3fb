"""A team across three faces: two people (alice, bob) and three agents (ci-bot and review-bot
with keys of their own over HTTP, planner over MCP) share the space "payments" and keep
private memories. The space is made and granted on the command line; an agent's write
reaches a teammate's briefing marked with the space and the agent; a revoked grant holds on
the next request."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from mcp import Client as MCPClient
from mcp.types import Implementation

from salience import Client, Config, Memory, NotFoundError
from salience.cli import cli
from salience.mcp_server import create_mcp_server
from salience.server.app import create_app
from tests.embedder import WordHashEmbedder
from tests.loopback import local_client


def _cli(home: Path, *args: str) -> str:
    result = CliRunner(env={"SALIENCE_SIGNAL_GATE": "0", "SALIENCE_EMBEDDER": "none"}).invoke(
        cli, [*args, "--home", str(home)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    return result.stdout


def _key(home: Path, user: str, *extra: str) -> str:
    made = json.loads(_cli(home, "keys", "create", "--user", user, *extra, "--json"))
    return str(made["key"])


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    _cli(home, "space", "create", "payments", "--user", "alice")
    _cli(home, "space", "grant", "payments", "bob", "write", "--user", "alice")
    return home


def test_a_team_shares_a_space_across_three_faces(home: Path) -> None:
    agents = ("--source", "agent")
    ci_bot = _key(home, "alice", *agents, "--agent", "ci-bot")
    review_bot = _key(home, "bob", *agents, "--agent", "review-bot")
    alice_key, bob_key = _key(home, "alice"), _key(home, "bob")
    config = Config(home=home, signal_gate=False)
    with (
        Memory.open(config=config, embedder=WordHashEmbedder()) as memory,
        local_client(create_app(memory)) as http,
    ):
        url = "http://127.0.0.1"
        ci = Client(url, api_key=ci_bot, http=http)
        review = Client(url, api_key=review_bot, http=http)
        alice, bob = (
            Client(url, api_key=alice_key, http=http),
            Client(url, api_key=bob_key, http=http),
        )

        ci.remember(
            "the payments deploy pipeline runs the ledger migrations first", space="payments"
        )
        review.remember("refunds over 500 euros need a second reviewer", space="payments")
        alice.remember("alice keeps her payments notes in the blue notebook", source="user")
        bob.remember("bob is on call for payments the first week of December", source="user")

        async def planner(session: MCPClient) -> None:
            made = await session.call_tool(
                "remember",
                {
                    "content": "the payouts batch moves to Tuesdays next quarter",
                    "space": "payments",
                },
            )
            assert not made.is_error, made.content

        async def plan() -> None:
            server = create_mcp_server(memory, user="bob")
            info = Implementation(name="planner", version="1.0")
            async with MCPClient(server, client_info=info) as session:
                await planner(session)

        asyncio.run(plan())

        bobs = bob.briefing().text
        assert "[payments] [agent ci-bot] the payments deploy pipeline runs the ledger" in bobs
        assert "[payments] [agent planner] the payouts batch moves to Tuesdays" in bobs
        assert "- bob is on call for payments" in bobs
        assert "blue notebook" not in bobs  # (alice's private memory)
        alices = alice.briefing().text
        assert "[payments] [agent review-bot] refunds over 500 euros" in alices
        assert "bob is on call" not in alices
        hits = bob.search("ledger migrations deploy pipeline")
        top = hits[0].record
        assert (top.space, top.author, top.agent) == ("payments", "alice", "ci-bot")

        _cli(home, "space", "revoke", "payments", "bob", "--user", "alice")
        assert all(h.record.space is None for h in bob.search("ledger migrations pipeline"))
        assert "[payments]" not in bob.briefing().text
        with pytest.raises(NotFoundError):
            review.remember("review-bot tries to write after the revoke", space="payments")
        assert "bob is on call" in bob.briefing().text  # (his own memories stay his)
