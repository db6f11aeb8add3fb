"""RAE's MCP tools (server ``rae-memory``): save_memory, search_memory, get_related_context,
on the ``rae`` profile. RAE's free-text ``source`` and its ``layer`` are kept as tags."""

from __future__ import annotations

import json
from typing import Annotated

from mcp.types import CallToolResult
from pydantic import Field

from salience.engine.memory import Memory
from salience.mcp_server.shell import READ, WRITE, ToolSet, current, text_result
from salience.models import Hit, MemoryRecord

TOOLS = ToolSet()

PROFILE = "rae"


def _results(found: list[tuple[MemoryRecord, float | None]]) -> str:
    return json.dumps(
        {
            "results": [
                {
                    "id": r.id,
                    "content": r.content,
                    "score": score,
                    "importance": r.importance,
                    "tags": list(r.tags),
                    "project": r.project,
                    "timestamp": r.created_at.isoformat(),
                }
                for r, score in found
            ]
        }
    )


def _hits(hits: list[Hit]) -> list[tuple[MemoryRecord, float | None]]:
    return [(h.record, h.score) for h in hits]


@TOOLS.tool(annotations=WRITE, structured_output=False)
def save_memory(
    content: str,
    source: str,
    tags: list[str] | None = None,
    layer: str | None = None,
    importance: Annotated[float, Field(ge=0, le=1)] = 0.5,
    project: str | None = None,
) -> CallToolResult:
    """Save a memory; a near-duplicate (cosine >= 0.95) returns the existing id."""
    shell = current()

    def answer() -> str:
        all_tags = [*(tags or []), f"source:{source}"] + ([f"rae-layer:{layer}"] if layer else [])
        result = shell.write(
            lambda m: m.remember(
                content,
                profile=PROFILE,
                user=shell.user,
                tags=all_tags,
                importance=importance,
                project=project or shell.project,
                force=True,
            )
        )
        message = (
            "duplicate of an existing memory" if result.outcome.value == "duplicate" else "stored"
        )
        return json.dumps({"id": result.id, "message": message})

    return text_result(answer)


@TOOLS.tool(annotations=READ, structured_output=False)
def search_memory(
    query: str, top_k: Annotated[int, Field(ge=1, le=20)] = 5, project: str | None = None
) -> CallToolResult:
    """Search memories by meaning, re-scored by recency, importance and usage."""
    shell = current()
    return text_result(
        lambda: _results(
            _hits(
                shell.run(
                    lambda m: m.search(
                        query,
                        top_k,
                        profile=PROFILE,
                        user=shell.user,
                        project=project or shell.project,
                        touch=shell.touch,
                    )
                )
            )
        )
    )


@TOOLS.tool(annotations=READ, structured_output=False)
def get_related_context(
    file_path: str, include_count: Annotated[int, Field(ge=1, le=50)] = 10
) -> CallToolResult:
    """Memories related to a file: those naming it, then those about it by meaning."""
    shell = current()

    def answer() -> str:
        def related(m: Memory) -> list[tuple[MemoryRecord, float | None]]:
            named: list[tuple[MemoryRecord, float | None]] = [
                (r, None) for r in m.list(user=shell.user, entity=file_path, limit=include_count)
            ]
            seen = {r.id for r, _ in named}
            hits = m.search(
                file_path, include_count, profile=PROFILE, user=shell.user, touch=shell.touch
            )
            more = [(h.record, h.score) for h in hits if h.record.id not in seen]
            return (named + more)[:include_count]

        return _results(shell.run(related))

    return text_result(answer)
