"""The MCP face: ``salience mcp`` (stdio) and :func:`create_mcp_server`, on the official SDK.

The SDK is imported when a server is made (:mod:`.app`), not when this package is: the CLI
reads the tool sets' names (:mod:`.registry`) on every call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from salience.mcp_server.app import create_mcp_server

__all__ = ["create_mcp_server"]


def __getattr__(name: str) -> object:
    """``create_mcp_server``, imported on first use (with the SDK)."""
    if name == "create_mcp_server":
        from salience.mcp_server.app import create_mcp_server

        return create_mcp_server
    raise AttributeError(f"module 'salience.mcp_server' has no attribute {name!r}")
