"""The tool-set registry: every set's modules, profile and tools, and tools one by one."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from salience import Memory
from salience.cli.app import cli
from salience.errors import InvalidInputError
from salience.mcp_server import native
from salience.mcp_server.registry import DEFAULT, TOOL_SETS, spec, tool_sets
from salience.mcp_server.shell import SHELL, Shell
from salience.profiles import PROFILES


@pytest.mark.parametrize("name", sorted(TOOL_SETS))
def test_every_set_scores_with_a_profile_that_exists(name: str) -> None:
    chosen = TOOL_SETS[name]
    assert chosen.profile is None or chosen.profile in PROFILES
    for module in chosen.modules:  # a module's own PROFILE says the same
        assert getattr(importlib.import_module(module), "PROFILE", chosen.profile) == chosen.profile


@pytest.mark.parametrize("name", sorted(TOOL_SETS))
def test_every_tool_is_a_module_level_function_with_a_unique_name(name: str) -> None:
    declared = [t for toolset in tool_sets(name) for t in toolset.tools]
    assert declared, f"tool set {name!r} declares no tool"
    names = [t.name for t in declared]
    assert len(names) == len(set(names)), names
    for module, toolset in zip(spec(name).modules, tool_sets(name), strict=True):
        for tool in toolset.tools:  # importable, walkable, callable one by one
            assert getattr(importlib.import_module(module), tool.name) is tool.function
            assert tool.function.__doc__, f"{tool.name} has no description"


def test_an_unknown_set_is_refused_with_the_known_ones() -> None:
    with pytest.raises(InvalidInputError, match="unknown tool set 'mem0'; known: salience, aide"):
        spec("mem0")


def test_the_cli_offers_exactly_the_registry_s_sets() -> None:
    from salience.cli.agent import mcp

    option = next(p for p in mcp.params if p.name == "tools")
    assert list(option.type.choices) == list(TOOL_SETS)  # type: ignore[attr-defined]
    assert option.default == DEFAULT
    shown = CliRunner().invoke(cli, ["mcp", "--help"]).output
    assert all(name in shown for name in TOOL_SETS)


def test_a_tool_is_called_on_its_own_through_the_shell_set_for_it(tmp_path: Path) -> None:
    with Memory.open(tmp_path, embedder=None) as memory:
        token = SHELL.set(Shell(memory, "alice"))
        try:
            native.remember("The staging API listens on port 8080 behind the gateway")
            found = native.recall("which port does staging listen on")
        finally:
            SHELL.reset(token)
        assert memory.list(user="alice")[0].content.startswith("The staging API")
    assert "8080" in str(found.content)


def test_a_tool_called_outside_a_server_says_where_its_shell_comes_from() -> None:
    from mcp.server.mcpserver.exceptions import ToolError

    with pytest.raises(ToolError, match="inside a server made by create_mcp_server"):
        native.stats()
