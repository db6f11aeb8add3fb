"""Talome's MCP tools: remember, recall, forget, update_memory, list_memories, on the
``talome`` profile.

Where the original silently skips a near-duplicate (bigram Dice > 0.80), its own document
says to update the existing memory: salience does, and says so in the answer.
"""

from __future__ import annotations

import json
from typing import Annotated, Literal

from mcp.types import CallToolResult
from pydantic import Field

from salience.mcp_server.shell import CHANGE, READ, WRITE, ToolSet, current, text_result
from salience.models import Outcome

TOOLS = ToolSet()

PROFILE = "talome"
Type = Literal["preference", "fact", "context", "correction"]


@TOOLS.tool(annotations=WRITE, structured_output=False)
def remember(content: str, type: Type = "fact") -> CallToolResult:
    """Remember one sentence about the user or the system."""
    shell = current()

    def answer() -> str:
        result = shell.write(
            lambda m: m.remember(content, profile=PROFILE, user=shell.user, type=type, force=True)
        )
        if result.outcome is Outcome.UPDATED:
            return f'Remembered: "{content}" (updated the similar memory {result.id})'
        if result.outcome is Outcome.DUPLICATE:
            return f'Already remembered: "{content}" ({result.id})'
        return f'Remembered: "{content}"'

    return text_result(answer)


@TOOLS.tool(annotations=READ, structured_output=False)
def recall(query: str) -> CallToolResult:
    """Recall memories matching a query, best first."""
    shell = current()

    def answer() -> str:
        hits = shell.run(
            lambda m: m.search(query, 10, profile=PROFILE, user=shell.user, touch=shell.touch)
        )
        if not hits:
            return "No memories found matching that query."
        return "\n".join(f"{h.rank}. [{h.record.type}] {h.record.content}" for h in hits)

    return text_result(answer)


@TOOLS.tool(annotations=CHANGE, structured_output=False)
def forget(id: str) -> CallToolResult:
    """Delete a memory."""
    shell = current()

    def answer() -> str:
        shell.write(lambda m: m.purge(id, user=shell.user))
        return f"Memory {id} deleted."

    return text_result(answer)


@TOOLS.tool(annotations=CHANGE, structured_output=False)
def update_memory(
    id: str,
    content: str | None = None,
    type: Type | None = None,
    confidence: Annotated[float, Field(ge=0, le=1)] | None = None,
) -> CallToolResult:
    """Change a memory's content, type or confidence."""
    shell = current()

    def answer() -> str:
        changes = {"content": content, "type": type, "confidence": confidence}
        changes = {k: v for k, v in changes.items() if v is not None}
        if not changes:
            return json.dumps({"success": False, "summary": "nothing to update"})
        shell.write(lambda m: m.update(id, user=shell.user, **changes))
        return json.dumps({"success": True, "summary": f"updated {', '.join(changes)}"})

    return text_result(answer)


@TOOLS.tool(annotations=READ, structured_output=False)
def list_memories(
    type: Type | None = None, limit: Annotated[int, Field(ge=1, le=1000)] = 20
) -> CallToolResult:
    """List memories, newest first."""
    shell = current()

    def answer() -> str:
        records = shell.run(lambda m: m.list(user=shell.user, type=type, limit=limit))
        memories = [
            {
                "id": r.id,
                "type": r.type,
                "content": r.content,
                "confidence": r.confidence,
                "accessCount": r.access_count,
                "createdAt": r.created_at.isoformat(),
            }
            for r in records
        ]
        summary = f"{len(memories)} memories" + (f" of type {type}" if type else "")
        return json.dumps({"memories": memories, "count": len(memories), "summary": summary})

    return text_result(answer)
