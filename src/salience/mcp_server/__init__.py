"""The MCP face: ``salience mcp`` (stdio) and :func:`create_mcp_server`, on the official SDK."""

from __future__ import annotations

from mcp.server import MCPServer

from salience import __version__
from salience.engine.memory import Memory
from salience.mcp_server import aide, eidet, ilab, native, rae, talome
from salience.mcp_server.shell import SayingServer, Shell

INSTRUCTIONS = """salience is your memory across sessions. The loop:
1. At session start, read `briefing` (or the `briefing` prompt): what you knew before.
2. Before answering from memory, `recall` with a question in words.
3. When you learn something worth keeping (a fact, a decision and why, a gotcha, a
   preference), `remember` it in a sentence or two. Secrets are refused, never stored.
4. After using recalled memories, give `feedback` (used: true or false).
5. When something you remembered is no longer true, `supersede` it; when it was wrong,
   `forget` it. At the end, `session_end` with a summary."""

TOOL_SETS = {
    "salience": native.register,
    "aide": aide.register,
    "eidet": eidet.register,
    "ilab": ilab.register,
    "talome": talome.register,
    "rae": rae.register,
}
"""``--tools``: salience's own set, or one original's (same names, parameters and results)."""


def create_mcp_server(
    memory: Memory,
    *,
    tools: str = "salience",
    user: str | None = None,
    profile: str | None = None,
    project: str | None = None,
) -> MCPServer:
    """An MCP server over ``memory`` with one tool set, acting for ``user`` (default: the
    configured user; over HTTP, each request's key's user), with ``profile`` and ``project``
    as the tools' defaults. The SDK runs each tool call on a thread of its own: calls run
    side by side, as a :class:`~salience.engine.memory.Memory` allows."""
    if tools not in TOOL_SETS:
        from salience.errors import InvalidInputError

        raise InvalidInputError(
            f"unknown tool set {tools!r}; known: {', '.join(TOOL_SETS)}", field="tools"
        )
    if profile is None and tools != "salience":
        profile = tools  # an original's tools score as the original does
    shell = Shell(memory, user or memory.config.user, profile, project)
    name = "rae-memory" if tools == "rae" else tools if tools != "salience" else "salience"
    server = SayingServer(name, instructions=INSTRUCTIONS, version=__version__)
    TOOL_SETS[tools](server, shell)

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
