"""What every MCP tool shares: the engine, who it acts for, and errors an agent can act on.

A tool is a thin shell: it checks nothing the engine checks, makes one engine call, and maps
the result. Any failure is a tool error (``isError``) with the library's message, which names
fields, kinds and positions but never a refused text; nothing reaches the transport.

Free-text parameters carry no length bounds in their schemas on purpose: the SDK's own
validation error repeats the value it refused, and a value can hold a secret. The engine
checks their lengths instead, and its messages never repeat a value.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, InputRequiredResult, TextContent, ToolAnnotations
from mcp.types import Tool as MCPTool

from salience.engine.degraded import listening
from salience.engine.memory import Memory
from salience.errors import SalienceError
from salience.models import WriteResult, channel
from salience.models.spaces import NO_REACH, REACH, check_agent

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
CHANGE = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False
)

CALLER: ContextVar[str | None] = ContextVar("salience_mcp_caller", default=None)
"""The user an MCP request over HTTP acts for (set from its API key); None over stdio."""
READ_ONLY: ContextVar[bool] = ContextVar("salience_mcp_read_only", default=False)
"""Whether that request's key is read-only."""


@dataclass
class Shell:
    """One engine, the user the tools act for, and the profile and project they default to.

    Over HTTP the user is the request's (:data:`CALLER`, from its key); otherwise
    ``default_user``.
    """

    memory: Memory
    default_user: str
    profile: str | None = None
    project: str | None = None
    agent: str | None = None  # the agent its writes name (else the MCP client's name)

    @property
    def user(self) -> str:
        """Whom the current tool call acts for."""
        return CALLER.get() or self.default_user

    def run(self, call: Callable[[Memory], T]) -> T:
        """``call(memory)`` as an agent's (a write claims at most ``source="agent"``: see
        :mod:`salience.models`); a library error becomes a tool error."""
        try:
            with channel("agent"):
                return call(self.memory)
        except SalienceError as exc:
            raise ToolError(str(exc)) from None

    @property
    def touch(self) -> bool | None:
        """A recall's ``touch``: a read-only key's recall counts no access (it changes
        nothing); otherwise the engine's default."""
        return False if READ_ONLY.get() else None

    def may_write(self) -> None:
        """Refuse a write made with a read-only key."""
        if READ_ONLY.get():
            raise ToolError("this API key is read-only: it can recall, not write")

    def write(self, call: Callable[[Memory], WriteResult]) -> WriteResult:
        """A write; a refused one is a tool error naming the gate and why."""
        self.may_write()
        result = self.run(call)
        if not result.ok:
            raise ToolError(
                f"rejected by the {result.gate} gate: {result.reason}. Nothing was stored; "
                "rephrase without the refused part (or, for the signal gate, pass force)."
            )
        return result


SHELL: ContextVar[Shell] = ContextVar("salience_mcp_shell")
"""The shell of the server whose tool is being called (set by :class:`SayingServer`)."""


def current() -> Shell:
    """The shell the tool being called acts through: its server's engine, user and defaults
    (a tool called outside a server is told where its shell comes from)."""
    shell = SHELL.get(None)
    if shell is None:
        raise ToolError(
            "this tool runs inside a server made by create_mcp_server (or with SHELL set)"
        )
    return shell


@dataclass(frozen=True)
class Tool:
    """One MCP tool: a module-level function (its name, parameters and docstring are the
    tool's) and the options it is registered with."""

    function: Callable[..., Any]
    options: dict[str, Any]

    @property
    def name(self) -> str:
        """The tool's name."""
        return self.function.__name__


class ToolSet:
    """A module's tools, in the order they are declared (``@TOOLS.tool(...)``). The tool
    sets a server can serve, and which modules make each, are listed in
    :mod:`salience.mcp_server.registry`."""

    def __init__(self) -> None:
        self.tools: list[Tool] = []

    def tool(self, **options: Any) -> Callable[[F], F]:
        """Declare the function below as a tool, registered with ``options``."""

        def declare(function: F) -> F:
            self.tools.append(Tool(function, options))
            return function

        return declare

    def add_to(self, server: MCPServer) -> None:
        """Register every tool on ``server``."""
        for tool in self.tools:
            server.tool(**tool.options)(tool.function)


class SayingServer(MCPServer):
    """An MCP server that calls its tools through its :class:`Shell` (:func:`current`), and
    whose tool results say how a recall made for them ran short: a text block per cause
    (``degraded: ... (fix: ...)``) after the tool's own content, which keeps its shape (an
    original's tools answer as the original did)."""

    def __init__(self, shell: Shell, name: str, **options: Any) -> None:
        super().__init__(name, **options)
        self.shell = shell

    async def list_tools(self) -> list[MCPTool]:
        """The tools, and on each that takes a ``space``, the spaces its caller may use
        (their grants as of this request: a tool list read later says what holds then)."""
        tools = await super().list_tools()
        try:
            granted = self.shell.memory.spaces(user=self.shell.user)
        except SalienceError:
            granted = []
        if not granted:
            return tools
        named = ", ".join(f"{x.name} ({x.right})" for x in granted)
        return [
            t.model_copy(update={"description": f"{t.description} Your spaces: {named}."})
            if "space" in (t.input_schema.get("properties") or {})
            else t
            for t in tools
        ]

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        token = SHELL.set(self.shell)
        reach = REACH.get() or NO_REACH  # (over HTTP: the key's; its agent decides)
        if reach.agent is None:
            agent = self.shell.agent or client_name(context)
            reach = replace(reach, agent=agent)
        reached = REACH.set(reach)
        try:
            with listening() as heard:
                result = await super().call_tool(name, arguments, context)
        finally:
            REACH.reset(reached)
            SHELL.reset(token)
        if heard and isinstance(result, CallToolResult):
            said = [TextContent(type="text", text=note.line()) for note in heard]
            result = result.model_copy(update={"content": [*result.content, *said]})
        return result


def client_name(context: Context[Any, Any] | None) -> str | None:
    """The name the MCP client gave itself when it connected (``claude-code``), if it is an
    agent's name (:func:`~salience.models.spaces.check_agent`); the agent its writes name."""
    try:
        params = context.session.client_params if context is not None else None
        name = params.client_info.name if params is not None else None
        return check_agent(name) if name else None
    except (AttributeError, LookupError, RuntimeError, SalienceError):
        return None


def text_result(call: Callable[[], str], *, prefix: str = "Error: ") -> CallToolResult:
    """A text tool's answer: ``call()``'s text, or a tool error whose text starts with
    ``prefix`` (the originals' markdown tools answer errors that way)."""
    try:
        return CallToolResult(content=[TextContent(type="text", text=call())])
    except ToolError as exc:
        failure = TextContent(type="text", text=f"{prefix}{exc}")
        return CallToolResult(content=[failure], is_error=True)
