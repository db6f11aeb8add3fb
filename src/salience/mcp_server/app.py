"""The MCP server: one tool set over a memory, with the briefing as a prompt and a resource."""

from __future__ import annotations

from mcp.server import MCPServer

from salience import __version__
from salience.engine.memory import Memory
from salience.mcp_server.registry import DEFAULT, spec, tool_sets
from salience.mcp_server.shell import SayingServer, Shell

INSTRUCTIONS = """salience is your memory across sessions. The loop:
1. At session start, read `briefing` (or the `briefing` prompt): what you knew before.
2. Before answering from memory, `recall` with a question in words.
3. When you learn something worth keeping (a fact, a decision and why, a gotcha, a
   preference), `remember` it in a sentence or two. Secrets are refused, never stored.
4. After using recalled memories, give `feedback` (used: true or false).
5. When something you remembered is no longer true, `supersede` it; when it was wrong,
   `forget` it. At the end, `session_end` with a summary."""


def create_mcp_server(
    memory: Memory,
    *,
    tools: str = DEFAULT,
    user: str | None = None,
    profile: str | None = None,
    project: str | None = None,
) -> MCPServer:
    """An MCP server over ``memory`` with one tool set, acting for ``user`` (default: the
    configured user; over HTTP, each request's key's user), with ``profile`` and ``project``
    as the tools' defaults. The SDK runs each tool call on a thread of its own: calls run
    side by side, as a :class:`~salience.engine.memory.Memory` allows."""
    chosen = spec(tools)
    if profile is None:
        profile = chosen.profile  # an original's tools score as the original does
    shell = Shell(memory, user or memory.config.user, profile, project)
    server = SayingServer(shell, chosen.server, instructions=INSTRUCTIONS, version=__version__)
    for declared in tool_sets(tools):
        declared.add_to(server)

    @server.prompt(name="briefing", description="What to know at session start (the briefing).")
    def briefing_prompt() -> str:
        return shell.run(
            lambda m: (
                m.briefing(profile, user=shell.user, project=project, record=shell.touch).context
            )
        )

    @server.resource("salience://briefing", name="briefing", mime_type="text/markdown")
    def briefing_resource() -> str:
        """The briefing, exactly as it would be injected at session start."""
        return shell.run(
            lambda m: (
                m.briefing(profile, user=shell.user, project=project, record=shell.touch).context
            )
        )

    return server
