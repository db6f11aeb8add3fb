"""The MCP face: ``salience mcp`` (stdio) and :func:`create_mcp_server`, on the official SDK.

The SDK is imported when a server is made, not when this package is: the CLI reads the tool
sets' names (:mod:`.registry`) on every call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from salience.mcp_server.registry import DEFAULT

if TYPE_CHECKING:
    from mcp.server import MCPServer

    from salience.engine.memory import Memory


def create_mcp_server(
    memory: Memory,
    *,
    tools: str = DEFAULT,
    user: str | None = None,
    profile: str | None = None,
    project: str | None = None,
) -> MCPServer:
    """An MCP server over ``memory`` with one tool set (see :func:`.app.create_mcp_server`)."""
    from salience.mcp_server.app import create_mcp_server as create

    return create(memory, tools=tools, user=user, profile=profile, project=project)
