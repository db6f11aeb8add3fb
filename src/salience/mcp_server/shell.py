"""What every MCP tool shares: the engine, who it acts for, and errors an agent can act on.

A tool is a thin shell: it checks nothing the engine checks, makes one engine call, and maps
the result. Any failure is a tool error (``isError``) with the library's message, which names
fields, kinds and positions but never a refused text; nothing reaches the transport.

Free-text parameters carry no length bounds in their schemas on purpose: the SDK's own
validation error repeats the value it refused, and a value can hold a secret. The engine
checks their lengths instead, and its messages never repeat a value.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from mcp.server.mcpserver.exceptions import ToolError

from salience.engine.memory import Memory
from salience.errors import SalienceError
from salience.models import WriteResult

T = TypeVar("T")


@dataclass
class Shell:
    """One engine, the user the tools act for, and the profile and project they default to."""

    memory: Memory
    user: str
    profile: str | None = None
    project: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def run(self, call: Callable[[Memory], T]) -> T:
        """``call(memory)``, one at a time; a library error becomes a tool error."""
        try:
            with self._lock:
                return call(self.memory)
        except SalienceError as exc:
            raise ToolError(str(exc)) from None

    def write(self, call: Callable[[Memory], WriteResult]) -> WriteResult:
        """A write; a refused one is a tool error naming the gate and why."""
        result = self.run(call)
        if not result.ok:
            raise ToolError(
                f"rejected by the {result.gate} gate: {result.reason}. Nothing was stored; "
                "rephrase without the refused part (or, for the signal gate, pass force)."
            )
        return result
