"""The MCP server over streamable HTTP at /mcp inside a real ``salience serve``: keys as
bearer tokens, each key's user the tenant."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.mcp_server.test_native import TOOLS, _structured
from tests.server.test_process import _salience, serving

pytestmark = [pytest.mark.process]


def _over_http(
    url: str, key: str | None, session: Callable[[Client], Awaitable[Any]], **options: Any
) -> Any:
    async def main() -> Any:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as http,
            Client(streamable_http_client(url, http_client=http), **options) as client,
        ):
            return await session(client)

    return asyncio.run(main())


def test_mcp_over_http_in_local_mode(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _salience("remember", "The staging API listens on port 8080", "--home", str(home))

    async def session(client: Client) -> None:
        assert {t.name for t in (await client.list_tools()).tools} == TOOLS
        hits = _structured(await client.call_tool("recall", {"query": "staging port"}))["hits"]
        assert hits[0]["record"]["content"] == "The staging API listens on port 8080"

    with serving(home) as base:
        _over_http(f"{base}/mcp", None, session)
        _over_http(f"{base}/mcp", None, session, mode="legacy")


def test_each_key_is_its_own_tenant_over_mcp(tmp_path: Path) -> None:
    home = tmp_path / "home"
    keys = {}
    for name, extra in (("alice", ()), ("bob", ()), ("reader", ("--read-only",))):
        user = "alice" if name == "reader" else name
        made = _salience("keys", "create", "--user", user, *extra, "--home", str(home))
        keys[name] = made.stdout.strip()
    with serving(home) as base:
        url = f"{base}/mcp"

        async def alice(client: Client) -> str:
            made = _structured(
                await client.call_tool(
                    "remember", {"content": "ALICEMARKER the vault is in eu-west-1"}
                )
            )
            return str(made["id"])

        alice_id = _over_http(url, keys["alice"], alice)

        async def bob(client: Client) -> None:
            for name, args in (
                ("recall", {"query": "vault eu-west-1 ALICEMARKER"}),
                ("list", {"status": "all"}),
                ("briefing", {}),
                ("stats", {}),
                ("entities", {}),
            ):
                result = await client.call_tool(name, args)
                assert "ALICEMARKER" not in json.dumps(result.model_dump()), name
            for name, args in (
                ("history", {"memory_id": alice_id}),
                ("forget", {"memory_id": alice_id}),
                ("feedback", {"memory_id": alice_id, "used": False}),
                ("supersede", {"memory_id": alice_id, "content": "bob was here"}),
            ):
                result = await client.call_tool(name, args)
                assert result.is_error, name
                assert "ALICEMARKER" not in json.dumps(result.model_dump())

        _over_http(url, keys["bob"], bob)

        async def reader(client: Client) -> None:
            refused = await client.call_tool(
                "remember", {"content": "a reader tries to write this"}
            )
            assert refused.is_error
            assert "read-only" in refused.content[0].text  # type: ignore[union-attr]
            hits = _structured(await client.call_tool("recall", {"query": "vault"}))["hits"]
            assert "ALICEMARKER" in hits[0]["record"]["content"]

        _over_http(url, keys["reader"], reader)
        unauthenticated = httpx2.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert unauthenticated.status_code == 401


def _arguments(schema: dict[str, Any], memory_id: str) -> dict[str, Any]:
    """Arguments a tool accepts, made from its input schema (every required one)."""
    made: dict[str, Any] = {}
    for name in schema.get("required", []):
        node = schema["properties"][name]
        kind = node.get("type") or next(
            (o.get("type") for o in node.get("anyOf", []) if o.get("type") != "null"), "string"
        )
        if kind == "string":
            made[name] = memory_id if name.endswith("id") else "vault eu-west-1 deploys"
        else:
            made[name] = {"integer": 5, "number": 0.5, "boolean": False, "array": []}[kind]
    return made


def test_a_read_only_key_changes_nothing_over_mcp(tmp_path: Path) -> None:
    """Every native tool, called with a read-only key: writes are tool errors and reads count
    no access, open no session and write no audit entry."""
    from salience import Memory
    from tests.server.conftest import fingerprint

    home = tmp_path / "home"
    made = _salience("keys", "create", "--user", "alice", "--read-only", "--home", str(home))
    key = made.stdout.strip()
    for text in ("The vault is in eu-west-1", "Deploys of the vault go through CI"):
        assert _salience("remember", text, "--user", "alice", "--home", str(home)).returncode == 0
    with Memory.open(home) as memory:
        before = fingerprint(memory)
        memory_id = memory.list(user="alice")[0].id
    with serving(home) as base:

        async def reader(client: Client) -> list[str]:
            called = []
            for tool in (await client.list_tools()).tools:
                await client.call_tool(tool.name, _arguments(tool.input_schema, memory_id))
                called.append(tool.name)
            return called

        called = _over_http(f"{base}/mcp", key, reader)
        assert set(called) == TOOLS
        with Memory.open(home) as memory:
            assert fingerprint(memory) == before
