"""eidet's classic thirteen MCP tools (``eidet_*``), text results, on the ``eidet`` profile.

``eidet_intake`` reads markdown files and ``eidet_pack_*`` read and write pack files on the
server's machine: offered over stdio only (over HTTP the native tool set is served).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult
from pydantic import Field

from salience.mcp_server.eidet_shapes import consolidated, exported, imported, maintained
from salience.mcp_server.shell import CHANGE, READ, WRITE, Shell, ToolSet, current, text_result
from salience.models import MemoryRecord, Outcome, PackIdentity

TOOLS = ToolSet()

PROFILE = "eidet"
Type = Literal["observation", "insight", "procedure", "heuristic"]
Provenance = Literal["user_stated", "agent_inferred", "tool_output"]
SOURCES = {"user_stated": "user", "agent_inferred": "agent", "tool_output": "tool"}
LETTER = {"observation": "O", "insight": "I", "procedure": "P", "heuristic": "H"}


def one_line(record: MemoryRecord) -> str:
    """``[I] text`` as eidet lists a memory."""
    flat = " ".join(record.content.split())
    return f"[{LETTER.get(record.type, '?')}] {flat if len(flat) <= 160 else flat[:159] + '…'}"


@TOOLS.tool(annotations=WRITE, structured_output=False)
def eidet_store(
    content: str,
    type: Type = "observation",
    tags: list[str] | None = None,
    importance: Annotated[float, Field(ge=0, le=1)] = 0.5,
    supersedes: str | None = None,
    provenance: Provenance | None = None,
) -> CallToolResult:
    """Store a memory (at least 20 characters). A near-duplicate is an error naming the
    existing id; so is a gate's refusal."""
    shell = current()

    def answer() -> str:
        fields: dict[str, Any] = {"type": type, "tags": tags or [], "importance": importance}
        if provenance is not None:
            fields["source"] = SOURCES[provenance]
        twin = shell.run(lambda m: m.duplicate_of(content, user=shell.user))
        if twin is not None and not supersedes:
            raise ToolError(f"near-duplicate of existing memory {twin.id}")
        if supersedes:
            result = shell.write(
                lambda m: m.supersede(supersedes, content, user=shell.user, **fields)
            )
        else:
            result = shell.write(
                lambda m: m.remember(content, profile=PROFILE, user=shell.user, **fields)
            )
        if result.outcome is Outcome.DUPLICATE:
            raise ToolError(f"near-duplicate of existing memory {result.id}")
        return f"Stored: {result.id}"

    return text_result(answer)


@TOOLS.tool(annotations=READ, structured_output=False)
def eidet_recall(
    query: str,
    type: Type | None = None,
    tags: list[str] | None = None,
    limit: Annotated[int, Field(ge=1, le=50)] = 10,
    include_expired: bool = False,
) -> CallToolResult:
    """Recall memories (full text and vectors), best first, with their ids and scores."""
    shell = current()

    def answer() -> str:
        hits = shell.run(
            lambda m: m.search(
                query,
                limit,
                profile=PROFILE,
                user=shell.user,
                type=type,
                tags=tags or (),
                touch=shell.touch,
            )
        )
        if include_expired:
            known = {h.record.id for h in hits}
            expired = [
                r
                for r in shell.run(
                    lambda m: m.list(
                        user=shell.user, include_superseded=True, include_forgotten=True
                    )
                )
                if r.id not in known and query.casefold() in r.content.casefold()
            ]
            extra = [f"{one_line(r)}\n  id={r.id} expired" for r in expired[: limit - len(hits)]]
        else:
            extra = []
        if not hits and not extra:
            return "No memories found."
        lines = [
            f"{one_line(h.record)}\n  id={h.record.id} importance={h.record.importance:.2f} "
            f"score={h.score:.4f}"
            for h in hits
        ]
        return "\n".join(lines + extra)

    return text_result(answer)


@TOOLS.tool(annotations=READ, structured_output=False)
def eidet_context(max_tokens: Annotated[int, Field(ge=50, le=100_000)] = 600) -> CallToolResult:
    """The L0 line and the L1 memories, as injected at session start."""
    shell = current()
    return text_result(
        lambda: (
            shell.run(
                lambda m: m.briefing(
                    PROFILE, user=shell.user, budget=max_tokens, record=shell.touch
                )
            ).text
            or "No memories yet."
        )
    )


@TOOLS.tool(annotations=CHANGE, structured_output=False)
def eidet_forget(id: str, reason: str = "forgotten on request") -> CallToolResult:
    """Forget a memory softly (its validity ends; audited)."""
    shell = current()

    def answer() -> str:
        shell.write(lambda m: m.forget(id, reason, user=shell.user))
        return f"Forgotten: {id}"

    return text_result(answer)


@TOOLS.tool(annotations=WRITE, structured_output=False)
def eidet_feedback(id: str, used: bool) -> CallToolResult:
    """Echo (used) or fizzle (not used) a memory."""
    shell = current()

    def answer() -> str:
        shell.write(lambda m: m.feedback(id, used=used, user=shell.user))
        return json.dumps({"applied": True, "id": id, "used": used})

    return text_result(answer)


@TOOLS.tool(annotations=READ, structured_output=False)
def eidet_history(id: str) -> CallToolResult:
    """A memory's versions, newest first."""
    shell = current()

    def answer() -> str:
        chain = shell.run(lambda m: m.history(id, user=shell.user))
        now = shell.memory.now()
        return "\n".join(f"{r.id} ({r.status(now).value}) {one_line(r)}" for r in chain)

    return text_result(answer)


@TOOLS.tool(annotations=CHANGE, structured_output=False)
def eidet_edit(
    id: str,
    content: str | None = None,
    tags: list[str] | None = None,
    importance: Annotated[float, Field(ge=0, le=1)] | None = None,
    confidence: Annotated[float, Field(ge=0, le=1)] | None = None,
    type: Type | None = None,
) -> CallToolResult:
    """Edit a memory: new content makes a new version; other fields change in place."""
    shell = current()

    def answer() -> str:
        changes = {
            "tags": tags,
            "importance": importance,
            "confidence": confidence,
            "type": type,
        }
        changes = {k: v for k, v in changes.items() if v is not None}
        if content is not None:
            result = shell.write(lambda m: m.supersede(id, content, user=shell.user, **changes))
        else:
            result = shell.write(lambda m: m.update(id, user=shell.user, **changes))
        return json.dumps({"updated": True, "id": result.id})

    return text_result(answer)


@TOOLS.tool(annotations=WRITE, structured_output=False)
def eidet_link(
    target_repo: str, relation: str, target_memory_id: str | None = None
) -> CallToolResult:
    """Link this store to another repository (or one of its memories)."""
    shell = current()

    def answer() -> str:
        derived = [target_memory_id] if target_memory_id else []
        result = shell.write(
            lambda m: m.remember(
                f"Linked to {target_repo}: {relation}",
                profile=PROFILE,
                user=shell.user,
                tags=["link", f"repo:{target_repo}", f"relation:{relation}"],
                derived_from=derived,
                force=True,
            )
        )
        return f"Linked: {result.id}"

    return text_result(answer)


@TOOLS.tool(annotations=WRITE, structured_output=False)
def eidet_consolidate(dry_run: bool = False) -> CallToolResult:
    """Groups of observations sharing tags become insights (or boost a similar one)."""
    shell = current()

    def answer() -> str:
        if not dry_run:
            shell.may_write()
        report = shell.run(lambda m: m.consolidate(dry_run=dry_run, user=shell.user))
        return json.dumps(consolidated(report))

    return text_result(answer)


@TOOLS.tool(annotations=WRITE, structured_output=False)
def eidet_maintenance(dry_run: bool = False) -> CallToolResult:
    """Importance decay, retention and index cleaning (a report)."""
    shell = current()

    def answer() -> str:
        if not dry_run:
            shell.may_write()
        report = shell.run(lambda m: m.maintain(dry_run=dry_run))
        return json.dumps(maintained(report))

    return text_result(answer)


@TOOLS.tool(annotations=WRITE, structured_output=False)
def eidet_intake(
    path: str,
    pattern: str = "*.md",
    recursive: bool = True,
    importance: Annotated[float, Field(ge=0, le=1)] = 0.6,
    tags: list[str] | None = None,
    dry_run: bool = False,
) -> CallToolResult:
    """Memories from markdown files: one per paragraph; counts new and skipped."""
    shell = current()

    def answer() -> str:
        root = Path(path).expanduser()
        if not root.exists():
            raise ToolError(f"{root}: no such file or directory")
        files = (
            sorted(root.rglob(pattern) if recursive else root.glob(pattern))
            if root.is_dir()
            else [root]
        )
        new = skipped = 0
        for file in files:
            file_tags = [*(tags or []), f"file:{file.name}"]
            for part in _paragraphs(file):
                if dry_run or _intake_one(shell, part, importance, file_tags):
                    new += 1
                else:
                    skipped += 1
        return json.dumps({"files": len(files), "new": new, "skipped": skipped, "dryRun": dry_run})

    return text_result(answer)


@TOOLS.tool(annotations=WRITE, structured_output=False)
def eidet_pack_export(
    pack_id: str,
    name: str,
    version: str,
    types: list[str] | None = None,
    tags: list[str] | None = None,
    output_path: str | None = None,
) -> CallToolResult:
    """Export matching memories as a knowledge pack file."""
    shell = current()

    def answer() -> str:
        if types and len(types) > 1:
            raise ToolError("export one type at a time (or none)")
        target = Path(output_path or f"{pack_id}-{version}.pack").expanduser()
        identity = PackIdentity(pack_id, name, version)
        manifest = shell.run(
            lambda m: m.export_pack(
                target,
                tags=tags or (),
                type=types[0] if types else None,
                user=shell.user,
                identity=identity,
            )
        )
        return json.dumps(exported(manifest, target))

    return text_result(answer)


@TOOLS.tool(annotations=WRITE, structured_output=False)
def eidet_pack_import(path: str) -> CallToolResult:
    """Import a knowledge pack and mount it as a read-only base layer."""
    shell = current()

    def answer() -> str:
        shell.may_write()
        source = Path(path).expanduser()
        done = shell.run(lambda m: m.import_pack(source, mount_as="base"))
        return json.dumps(imported(done, source))

    return text_result(answer)


def _intake_one(shell: Shell, text: str, importance: float, tags: list[str]) -> bool:
    """Remember one paragraph; whether it was new (a refused or known one is skipped)."""
    result = shell.run(
        lambda m: m.remember(
            text, profile=PROFILE, user=shell.user, importance=importance, tags=tags
        )
    )
    return result.outcome is Outcome.CREATED


def _paragraphs(file: Path) -> list[str]:
    """A markdown file's paragraphs of 20 characters or more, each led by its heading."""
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    out, heading = [], ""
    for block in (" ".join(b.split()) for b in text.split("\n\n")):
        if block.startswith("#"):
            heading = block.lstrip("#").strip()
        elif len(block) >= 20:
            out.append(f"{heading}: {block}" if heading else block)
    return out
