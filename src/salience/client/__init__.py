"""``salience.Client``: the HTTP API with :class:`salience.Memory`'s verbs and return types.

An application moves from the embedded engine to a server by changing one line::

    memory = Memory.open()                                   # embedded
    memory = Client("http://127.0.0.1:8377", api_key=KEY)    # a salience server

Results are the library's own values (:class:`MemoryRecord`, :class:`WriteResult`,
:class:`Hit`, :class:`Briefing`, ...); errors are the library's :class:`SalienceError`
subclasses, :class:`RemoteError` (and :class:`AccessError` for 401 / 403) where there is no
closer one. A refused write is a ``rejected`` :class:`WriteResult`, as in the library.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from salience.client.operations import Operations
from salience.client.sharing import Sharing
from salience.client.spaces import Spaces
from salience.client.transport import iso
from salience.errors import InvalidInputError
from salience.models import (
    AuditEntry,
    Briefing,
    BriefingLog,
    BriefingSection,
    ConsolidationReport,
    DayCount,
    EvalReport,
    ImportResult,
    MaintenanceReport,
    ManifestEntry,
    MemoryGraph,
    MemoryRecord,
    Recalled,
    SessionStart,
    Stats,
    UpdateLink,
    Variant,
    WriteResult,
)
from salience.scores import ContextScore
from salience.wire import decode as wire
from salience.wire.record import briefing_log_of, eval_of


class Client(Sharing, Operations, Spaces):
    """A salience server, as a :class:`Memory` (see the module docstring). Only what needs
    the local store has no counterpart: ``open``, ``config``, ``store``, ``vectors``,
    ``profile`` and ``now``."""

    # -- writes ---------------------------------------------------------------------------------

    def remember(
        self,
        content: str,
        *,
        profile: str | None = None,
        force: bool = False,
        space: str | None = None,
        **fields: Any,
    ) -> WriteResult:
        """Store a memory (see :meth:`salience.Memory.remember`); ``space``: into a space."""
        body = {"content": content, "profile": profile, "force": force, "space": space, **fields}
        return self._write("POST", "/v1/memories", json=wire.present(body))

    def update(self, memory_id: str, **changes: Any) -> WriteResult:
        """Change fields of a memory in place."""
        return self._write("PATCH", f"/v1/memories/{memory_id}", json=wire.present(changes))

    def supersede(self, old_id: str, content: str, **fields: Any) -> WriteResult:
        """Replace a memory with a new version."""
        body = wire.present({"content": content, **fields})
        return self._write("POST", f"/v1/memories/{old_id}/supersede", json=body)

    def forget(self, memory_id: str, reason: str = "forgotten on request") -> WriteResult:
        """Forget a memory softly."""
        return self._write("POST", f"/v1/memories/{memory_id}/forget", json={"reason": reason})

    def purge(self, memory_id: str) -> WriteResult:
        """Delete a memory for good."""
        return self._write("DELETE", f"/v1/memories/{memory_id}")

    def quarantined(self) -> builtins.list[MemoryRecord]:
        """The user's memories held in quarantine, newest first."""
        return [wire.record(r) for r in self._json("GET", "/v1/quarantine")]

    def approve(self, memory_id: str) -> WriteResult:
        """Let a held memory into briefings."""
        return self._write("POST", f"/v1/quarantine/{memory_id}/approve")

    def reject(self, memory_id: str) -> WriteResult:
        """Forget a held memory."""
        return self._write("POST", f"/v1/quarantine/{memory_id}/reject")

    def stale(self) -> builtins.list[MemoryRecord]:
        """The user's memories gone stale (derived from one that changed), newest first."""
        return [wire.record(r) for r in self._json("GET", "/v1/stale")]

    def confirm(self, memory_id: str) -> WriteResult:
        """A stale memory is still true: clear its mark."""
        return self._write("POST", f"/v1/stale/{memory_id}/confirm")

    def updates(self, *, state: str = "open") -> builtins.list[UpdateLink]:
        """The user's update links in ``state`` (open, confirmed, dismissed, all)."""
        return [wire.update(x) for x in self._json("GET", "/v1/updates", params={"state": state})]

    def confirm_update(self, new_id: str, old_id: str) -> WriteResult:
        """The newer memory replaces the older (a supersession)."""
        return self._write("POST", f"/v1/updates/{new_id}/{old_id}/confirm")

    def dismiss_update(self, new_id: str, old_id: str) -> UpdateLink:
        """Not an update: the pair is never found again."""
        return wire.update(self._json("POST", f"/v1/updates/{new_id}/{old_id}/dismiss"))

    def feedback(self, memory_id: str, *, used: bool) -> WriteResult:
        """The memory helped (echo) or did not (fizzle)."""
        return self._write("POST", f"/v1/memories/{memory_id}/feedback", json={"used": used})

    def session_start(self, *, profile: str | None = None) -> SessionStart:
        """Resume or open the user's session."""
        data = self._json("POST", "/v1/sessions/start", params=wire.present({"profile": profile}))
        return SessionStart(
            data["session_id"],
            data["is_new"],
            tuple(wire.record(r) for r in data["summaries"]),
            tuple(wire.ranked(r) for r in data["memories"]),
            data["closed_session_id"],
        )

    def session_end(self, summary: str) -> WriteResult:
        """Close the user's session with a summary."""
        return self._write("POST", "/v1/sessions/end", json={"summary": summary})

    def import_(self, lines: Iterable[str]) -> ImportResult:
        """Import JSON Lines, all or nothing."""
        body = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
        data = self._job(
            "POST",
            "/v1/import",
            content=body.encode("utf-8"),
            headers={"Content-Type": "application/x-ndjson"},
        )
        return ImportResult(
            data["created"], data["updated"], data["unchanged"], data.get("renamed", 0)
        )

    # -- reads ----------------------------------------------------------------------------------

    def get(self, memory_id: str) -> MemoryRecord:
        """One memory, whatever its status."""
        return wire.record(self._json("GET", f"/v1/memories/{memory_id}"))

    def list(
        self,
        *,
        project: str | None = None,
        type: str | None = None,
        tags: Iterable[str] = (),
        session_id: str | None = None,
        entity: str | None = None,
        include_superseded: bool = False,
        include_forgotten: bool = False,
        limit: int | None = None,
        offset: int = 0,
        space: str | None = None,
        agent: str | None = None,
    ) -> builtins.list[MemoryRecord]:
        """The user's memories (a space's), newest first (every page up to ``limit``)."""
        status = wire.status(include_superseded, include_forgotten)
        named = {"project": project, "type": type, "session_id": session_id, "entity": entity}
        params: dict[str, Any] = wire.present({**named, "space": space, "agent": agent})
        params.update(status=status, tag=builtins.list(tags))
        out: builtins.list[MemoryRecord] = []
        while limit is None or len(out) < limit:
            page = min(1000, limit - len(out)) if limit is not None else 1000
            chunk = self._json(
                "GET", "/v1/memories", params={**params, "limit": page, "offset": offset}
            )
            out += [wire.record(r) for r in chunk]
            offset += len(chunk)
            if len(chunk) < page:
                break
        return out

    def history(self, memory_id: str) -> builtins.list[MemoryRecord]:
        """The version chain, newest first."""
        return [wire.record(r) for r in self._json("GET", f"/v1/memories/{memory_id}/history")]

    def derived_from_this(self, memory_id: str) -> builtins.list[MemoryRecord]:
        """The insights derived from a memory."""
        return [wire.record(r) for r in self._json("GET", f"/v1/memories/{memory_id}/derived")]

    def search(
        self,
        query: str,
        limit: int = 10,
        *,
        profile: str | None = None,
        project: str | None = None,
        types: Iterable[str] = (),
        types_exclude: Iterable[str] = (),
        tags: Iterable[str] = (),
        as_of: datetime | None = None,
        touch: bool | None = None,
        space: str | None = None,
        agent: str | None = None,
    ) -> Recalled:
        """Recall memories for a query (the user's and every space it reads; ``space``: that
        space's only), each hit explained, and how the recall ran short (``degraded``)."""
        body = {
            "query": query,
            "limit": limit,
            "profile": profile,
            "project": project,
            "types": builtins.list(types),
            "types_exclude": builtins.list(types_exclude),
            "tags": builtins.list(tags),
            "as_of": iso(as_of),
            "touch": touch,
            "space": space,
            "agent": agent,
        }
        return wire.recalled(self._json("POST", "/v1/search", json=wire.present(body)))

    def rank(
        self,
        profile: str | None = None,
        *,
        project: str | None = None,
        as_of: datetime | None = None,
        limit: int | None = None,
    ) -> builtins.list[tuple[MemoryRecord, ContextScore]]:
        """Current memories by context score, best first."""
        params = {
            "profile": profile,
            "project": project,
            "as_of": iso(as_of),
            "limit": limit or 1000,
        }
        return [wire.ranked(r) for r in self._json("GET", "/v1/rank", params=wire.present(params))]

    def briefing(
        self,
        profile: str | None = None,
        *,
        project: str | None = None,
        session_id: str | None = None,
        budget: int | None = None,
        as_of: datetime | None = None,
        space: str | None = None,
    ) -> Briefing:
        """The text to inject at session start, with its manifest."""
        body = {
            "profile": profile,
            "project": project,
            "session_id": session_id,
            "budget": budget,
            "as_of": iso(as_of),
            "space": space,
        }
        data = self._json("POST", "/v1/briefing", json=wire.present(body))
        return Briefing(
            data["profile"],
            data["text"],
            tuple(
                BriefingSection(s["title"], tuple(s["lines"]), tuple(s["ids"]))
                for s in data["sections"]
            ),
            [ManifestEntry(**entry) for entry in data["manifest"]],
            datetime.fromisoformat(data["as_of"]),
            data["overflow"],
        )

    def entities(
        self, *, project: str | None = None, top: int | None = None
    ) -> builtins.list[tuple[str, int]]:
        """Entities named by current memories, with how many mention each."""
        params = wire.present({"project": project, "top": top or 1000})
        return [
            (e["entity"], e["memories"]) for e in self._json("GET", "/v1/entities", params=params)
        ]

    def log(
        self,
        memory_id: str | None = None,
        *,
        limit: int | None = None,
        space: str | None = None,
        agent: str | None = None,
    ) -> builtins.list[AuditEntry]:
        """The user's part of the audit log (a space's), newest first."""
        named = {"memory_id": memory_id, "space": space, "agent": agent}
        params = wire.present({**named, "limit": limit or 1000})
        return [
            AuditEntry(
                datetime.fromisoformat(e["at"]),
                e["memory_id"],
                e["action"],
                e["actor"],
                e["detail"],
                e["seq"],
                e["user"],
            )
            for e in self._json("GET", "/v1/audit", params=params)
        ]

    def evaluate(
        self,
        variants: Sequence[Variant] = (),
        *,
        per_kind: int = 50,
        entities: bool = False,
        save: bool = False,
    ) -> EvalReport:
        """Recall measured on the user's own memories (see :meth:`salience.Memory.evaluate`);
        the server compares the current configuration with one alternative at most."""
        if len(variants) > 1:
            raise InvalidInputError(
                "the HTTP API evaluates one alternative at a time", field="variants"
            )
        body: dict[str, Any] = {"probes": per_kind, "entities": entities, "save": save}
        for variant in variants:
            body |= {
                "against_label": variant.label,
                "against_profile": variant.profile,
                "against_as_of": iso(variant.as_of),
                "against_recall_prior": variant.recall_prior,
                "against_embedder": variant.embedder,
                "against_settings": dict(variant.settings) or None,
            }
        return eval_of(self._json("POST", "/v1/eval", json=wire.present(body)))

    def briefing_log(self, *, limit: int = 50) -> BriefingLog:
        """What each session was given and what became of it (newest first)."""
        return briefing_log_of(self._json("GET", "/v1/briefings/log", params={"limit": limit}))

    def stats(self) -> Stats:
        """Counts of the user's memories."""
        data = self._json("GET", "/v1/stats")
        return Stats(
            path="",
            schema=data["schema_version"],
            total=data["total"],
            by_status=data["by_status"],
            by_type=data["by_type"],
            by_user=data["by_user"],
            by_project=data["by_project"],
            size_bytes=data["size_bytes"],
            erasure_pending=data.get("erasure_pending"),
        )

    def consolidate(
        self, *, dry_run: bool = False, as_of: datetime | None = None
    ) -> ConsolidationReport:
        """Groups of 3+ tag-sharing observations become insights (see
        :meth:`salience.Memory.consolidate`)."""
        body = wire.present({"dry_run": dry_run, "as_of": iso(as_of)})
        return wire.consolidation(self._job("POST", "/v1/consolidate", json=body))

    def maintain(
        self, *, dry_run: bool = False, as_of: datetime | None = None
    ) -> MaintenanceReport:
        """Decay, retention and index cleaning (an admin key, or local mode)."""
        body = wire.present({"dry_run": dry_run, "as_of": iso(as_of)})
        return wire.maintenance(self._json("POST", "/v1/maintain", json=body))

    def activity(self, *, days: int = 30) -> builtins.list[DayCount]:
        """Memories created per UTC day, the last ``days`` days, oldest first."""
        return wire.days(self._json("GET", "/v1/activity", params={"days": days}))

    def graph(
        self, *, limit: int = 500, type: str | None = None, project: str | None = None
    ) -> MemoryGraph:
        """The newest ``limit`` memories, their entities and the links among them."""
        params = wire.present({"limit": limit, "type": type, "project": project})
        data = self._json("GET", "/v1/graph", params=params)
        wanted = {n["id"] for n in data["nodes"] if n["kind"] == "memory"}
        found: dict[str, MemoryRecord] = {}
        offset = 0
        while len(found) < len(wanted):  # the nodes' records, a page of every status at a time
            page = self.list(
                type=type,
                project=project,
                include_superseded=True,
                include_forgotten=True,
                limit=1000,
                offset=offset,
            )
            found |= {r.id: r for r in page if r.id in wanted}
            if len(page) < 1000:
                break
            offset += 1000
        shown = list(found.values()) + [self.get(i) for i in wanted - found.keys()]
        return wire.graph(data, {r.id: r for r in shown})
