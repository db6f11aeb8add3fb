"""aide's MCP tools: memory_search, memory_list, memory_add and its decisions, in its
markdown, on the ``aide`` profile (errors are tool errors whose text starts ``Error: ``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Annotated

from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult
from pydantic import Field

from salience.mcp_server.shell import READ, WRITE, ToolSet, current, text_result
from salience.models import Decision, MemoryRecord

TOOLS = ToolSet()

PROFILE = "aide"


def _line(record: MemoryRecord) -> str:
    tags = f" _(tags: {', '.join(record.tags)})_" if record.tags else ""
    return f"- **[{record.created_at:%Y-%m-%d %H:%M:%S}]** {record.content}{tags}"


def memories_markdown(records: Sequence[MemoryRecord]) -> str:
    """aide's answer: ``# Memories`` and a ``## <Category>`` group per category."""
    if not records:
        return "No memories found."
    groups: dict[str, list[MemoryRecord]] = {}
    for record in records:
        groups.setdefault(record.type, []).append(record)
    out = ["# Memories"]
    for category, members in groups.items():
        out += ["", f"## {category.capitalize()}", *(_line(r) for r in members)]
    return "\n".join(out)


def decision_markdown(decision: Decision, heading: str) -> str:
    """One decision as aide shows it."""
    lines = [heading, "", f"**Decision:** {decision.decision}"]
    if decision.rationale:
        lines += ["", f"**Rationale:** {decision.rationale}"]
    if decision.precedence:
        lines += ["", f"**Precedence:** {decision.precedence}"]
    return "\n".join(lines)


CATEGORIES = (
    "abandoned",
    "blocker",
    "issue",
    "gotcha",
    "discovery",
    "decision",
    "learning",
    "pattern",
    "session",
)
"""aide's nine memory categories (FACES.md), in its own order."""


@TOOLS.tool(annotations=READ, structured_output=False)
def memory_search(
    query: str,
    limit: Annotated[int, Field(ge=1, le=100)] = 10,
    category: str | None = None,
) -> CallToolResult:
    """Search memories (full text, aide's scores); results grouped by category."""
    shell = current()

    def answer() -> str:
        hits = shell.run(
            lambda m: m.search(
                query,
                limit,
                profile=PROFILE,
                user=shell.user,
                project=shell.project,
                types=[category] if category else (),
                touch=shell.touch,
            )
        )
        return memories_markdown([h.record for h in hits])

    return text_result(answer)


@TOOLS.tool(annotations=READ, structured_output=False)
def memory_list(
    category: str | None = None, limit: Annotated[int, Field(ge=1, le=1000)] = 50
) -> CallToolResult:
    """List memories, newest first, grouped by category."""
    shell = current()
    return text_result(
        lambda: memories_markdown(
            shell.run(lambda m: m.list(user=shell.user, type=category, limit=limit))
        )
    )


@TOOLS.tool(annotations=WRITE, structured_output=False)
def memory_add(
    content: str, category: str = "learning", tags: list[str] | None = None
) -> CallToolResult:
    """Store a memory (a learning, gotcha, pattern, ...); answers its id as JSON."""
    shell = current()

    def answer() -> str:
        if category not in CATEGORIES:
            raise ToolError(
                f"unknown category {category!r}; aide's categories are " + ", ".join(CATEGORIES)
            )
        result = shell.write(
            lambda m: m.remember(
                content,
                profile=PROFILE,
                user=shell.user,
                type=category,
                tags=tags or [],
                force=True,
            )
        )
        status = "stored" if result.outcome.value in ("created", "updated") else "duplicate"
        record = result.record
        return json.dumps(
            {
                "id": result.id,
                "category": category,
                "content": content if record is None else record.content,
                "tags": list(tags or []) if record is None else list(record.tags),
                "status": status,
            }
        )

    return text_result(answer)


@TOOLS.tool(annotations=READ, structured_output=False)
def decision_get(topic: str) -> CallToolResult:
    """The current decision on a topic (kebab-case)."""
    shell = current()

    def answer() -> str:
        found = shell.run(lambda m: m.decisions(user=shell.user))
        current = next((d for d in found if d.topic == topic), None)
        if current is None:
            return f"No decision found for topic: {topic}"
        return decision_markdown(current, f"# Decision: {topic}")

    return text_result(answer)


@TOOLS.tool(annotations=READ, structured_output=False)
def decision_history(topic: str) -> CallToolResult:
    """Every decision on a topic, oldest first; the last is current."""
    shell = current()

    def answer() -> str:
        if not any(d.topic == topic for d in shell.run(lambda m: m.decisions(user=shell.user))):
            return f"No decision found for topic: {topic}"
        history = shell.run(lambda m: m.decision_history(topic, user=shell.user))
        parts = [f"# Decision history: {topic}"]
        for n, d in enumerate(history, 1):
            parts.append(decision_markdown(d, f"## {n}. {d.memory.created_at:%Y-%m-%d %H:%M:%S}"))
        return "\n\n".join(parts)

    return text_result(answer)


@TOOLS.tool(annotations=READ, structured_output=False)
def decision_list() -> CallToolResult:
    """The latest decision of every topic."""
    shell = current()

    def answer() -> str:
        found = shell.run(lambda m: m.decisions(user=shell.user))
        if not found:
            return "No decisions recorded."
        return "\n".join(["# Decisions", ""] + [f"- **{d.topic}**: {d.decision}" for d in found])

    return text_result(answer)
