"""The MCP tool sets a server can serve: the one list of them.

Each set is made of modules that declare their tools at module level
(``TOOLS = ToolSet()``, ``@TOOLS.tool(...)``: :mod:`salience.mcp_server.shell`). An original's
set scores with its own profile (``profile``: it must be in :mod:`salience.profiles`, and its
modules' ``PROFILE`` says the same; ``tests/mcp_server/test_registry.py`` checks both). This
module imports no SDK, so ``salience mcp --tools`` lists the sets without loading one.

Adding a tool set: its module, and one line below.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from salience.errors import InvalidInputError

if TYPE_CHECKING:
    from salience.mcp_server.shell import ToolSet


@dataclass(frozen=True)
class ToolSetSpec:
    """What a tool set is made of and how it is served."""

    modules: tuple[str, ...]
    """The modules whose ``TOOLS`` it serves, in order."""
    profile: str | None
    """The scoring profile its tools use (None: the configured one)."""
    server: str
    """The MCP server's name (what a client shows)."""


TOOL_SETS: dict[str, ToolSetSpec] = {
    "salience": ToolSetSpec(
        ("salience.mcp_server.native", "salience.mcp_server.native_updates"), None, "salience"
    ),
    "aide": ToolSetSpec(("salience.mcp_server.aide",), "aide", "aide"),
    "eidet": ToolSetSpec(("salience.mcp_server.eidet",), "eidet", "eidet"),
    "ilab": ToolSetSpec(("salience.mcp_server.ilab",), "ilab", "ilab"),
    "talome": ToolSetSpec(("salience.mcp_server.talome",), "talome", "talome"),
    "rae": ToolSetSpec(("salience.mcp_server.rae",), "rae", "rae-memory"),
}
"""``--tools``: salience's own set, or one original's (same names, parameters and results)."""
DEFAULT = "salience"


def spec(name: str) -> ToolSetSpec:
    """The tool set called ``name``; an error naming the known ones otherwise."""
    found = TOOL_SETS.get(name)
    if found is None:
        known = ", ".join(TOOL_SETS)
        raise InvalidInputError(f"unknown tool set {name!r}; known: {known}", field="tools")
    return found


def tool_sets(name: str) -> list[ToolSet]:
    """The ``TOOLS`` of each module of the set called ``name`` (imported now)."""
    return [importlib.import_module(m).TOOLS for m in spec(name).modules]
