"""``Memory.import_from``: every memory another system keeps, brought over in one call
(:mod:`salience.sharing.importers` reads them).

Each memory passes the gates any write passes: a secret refuses that memory (named in the
report by its kind, never stored), a text the user already has is merged into it (counted,
not doubled). The rest is imported all or nothing, through :meth:`import_`, under ids made
from the source's own (:func:`salience.ids.stable_ulid`), so a second run adds nothing.
"""

from __future__ import annotations

import builtins
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from salience import budget
from salience.engine.importing import Importing
from salience.errors import InvalidInputError
from salience.ids import stable_ulid
from salience.models import MemoryRecord, UserScope, channel
from salience.sharing import jsonl
from salience.stores.base import MemoryFilter
from salience.text import content_hash
from salience.write.records import validate_field

if TYPE_CHECKING:
    from salience.models.reports import MigrationReport
    from salience.sharing.importers import Harvest, Item
    from salience.write.gates.pipeline import Screened

__all__ = ["Migrating"]  # (and SYSTEMS, below)


def __getattr__(name: str) -> tuple[str, ...]:
    """``SYSTEMS``, read from the importers when first asked for: they load a YAML parser
    and a dozen readers (~37 ms) that a process answering a briefing never needs."""
    if name == "SYSTEMS":
        from salience.sharing.importers import SYSTEMS

        return SYSTEMS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Migrating(Importing):
    """import_from: another system's memories, mapped, screened, deduplicated, imported."""

    def import_from(
        self,
        system: str,
        path: str | Path,
        *,
        dry_run: bool = False,
        user: UserScope = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> MigrationReport:
        """Import every memory ``system`` keeps at ``path`` (its store, read-only, or its
        export, or RAE's database by ``postgresql://`` URL; see
        ``salience.sharing.importers.SYSTEMS``) as the user's; with :data:`ALL_USERS`, each
        as its source user's (mem0's ``user_id``, RAE's tenant; the default user where the
        source names none). ``dry_run`` reports what would be imported and changes nothing.

        The read is bounded (:mod:`salience.budget`: records, bytes, time in a job, memory):
        past a limit it stops with an ``OverLimitError`` naming the setting, having imported
        nothing."""
        from salience.models.reports import MigrationReport
        from salience.sharing.importers import harvest

        scope = self._scope(user)
        with budget.spending(self._config) as spend:
            found = harvest(system, path)
        if scope is None:  # (every user's: a record whose owner is unknown has none to go to)
            _keep_owned(found)
        owners = {
            item.external_id: scope or _user_named(item.source_user) or self._config.user
            for item in found.items
        }
        ids = {
            item.external_id: stable_ulid(
                item.created_at, owners[item.external_id], item.external_id
            )
            for item in found.items
        }
        ends = {  # a version another replaced ends when its successor begins
            item.supersedes: item.created_at for item in found.items if item.supersedes
        }
        now = self.now()
        records: builtins.list[MemoryRecord] = []
        refused: builtins.list[tuple[str, str]] = []
        merged: builtins.list[tuple[str, str]] = []
        texts: dict[str, str] = {}
        written: dict[str, str] = {}  # each record's text as the source wrote it
        from salience.write.gates.pipeline import screen  # (the gates compile on first use)

        largest = self._config.max_content_bytes
        for item in found.items:
            spend.check()
            if len(item.content.encode()) > largest:  # (one too long is named, not fatal)
                why = f"its text is longer than {largest:,} bytes (max_content_bytes)"
                found.skipped.append((item.external_id, why))
                continue
            screened = screen(item.content, title=item.title, tags=item.tags)
            if screened.rejected:
                refused.append((item.external_id, str(screened.reason)))
                continue
            owner = owners[item.external_id]
            record = self._imported(item, screened, owner, ids, ends.get(item.external_id), system)
            if record.is_current(now):
                twin = self._twin(record, texts)
                if twin is not None:
                    merged.append((item.external_id, twin))
                    continue
                texts[f"{record.user}\0{content_hash(record.content)}"] = record.id
            records.append(record)
            written[record.id] = item.content
        kept = {r.id for r in records}
        records = [_within(r, kept) for r in records]
        report = MigrationReport(
            system=found.system,
            dry_run=dry_run,
            found=len(found.items),
            by_type=dict(sorted(Counter(r.type for r in records).items())),
            merged=tuple(merged),
            refused=tuple(refused),
            skipped=tuple(found.skipped),
            unmappable=dict(sorted((k, n) for k, n in found.unmappable.items() if n > 0)),
        )
        if dry_run or not records:
            return report
        with channel("import"):  # (screened for orders as written: hidden characters too)
            done = self._import(
                [jsonl.dump(r) for r in records],
                None,
                scope=scope,
                progress=progress,
                written=[written[r.id] for r in records],
            )
        return MigrationReport(
            **{
                **report.__dict__,
                "created": done.created,
                "updated": done.updated,
                "unchanged": done.unchanged,
            }
        )

    def _twin(self, record: MemoryRecord, texts: dict[str, str]) -> str | None:
        """The id of a current memory of the user (stored, or earlier in this import) with
        the same text, other than this record's own."""
        key = content_hash(record.content)
        if f"{record.user}\0{key}" in texts:
            return texts[f"{record.user}\0{key}"]
        flt = MemoryFilter(as_of=self.now(), user=record.user, content_hash=key)
        return next((r.id for r in self._store.list(flt, 2) if r.id != record.id), None)

    @staticmethod
    def _imported(
        item: Item,
        screened: Screened,
        owner: str,
        ids: dict[str, str],
        ended: datetime | None,
        system: str,
    ) -> MemoryRecord:
        """The record an item becomes: the user's, its text screened, its origin tagged
        (``from:SYSTEM``, ``origin:SYSTEM:ID``), a replaced version ending when the next began."""
        origin = [f"from:{system}", f"origin:{item.external_id}"]
        mapped = _user_named(item.source_user) == owner
        who = [f"source-user:{item.source_user}"] if item.source_user and not mapped else []
        return MemoryRecord(
            id=ids[item.external_id],
            content=screened.content,
            type=item.type,
            created_at=item.created_at,
            updated_at=max(item.updated_at or item.created_at, item.created_at),
            title=screened.title,
            tags=tuple(dict.fromkeys([*screened.tags, *origin, *who])),
            user=owner,
            project=item.project,
            topic_key=item.topic_key,
            source="import",
            importance=0.5 if item.importance is None else item.importance,
            confidence=0.5 if item.confidence is None else item.confidence,
            priority=0.0 if item.priority is None else item.priority,
            access_count=item.access_count,
            revision_count=max(1, item.revision_count),
            last_accessed_at=item.last_accessed_at,
            valid_until=item.valid_until or ended,
            parent_id=ids.get(item.supersedes) if item.supersedes else None,
            forget_reason=item.forgotten,
            session_id=item.session_id,
            entities=tuple(dict.fromkeys(item.entities)),
            derived_from=tuple(ids[d] for d in item.derived_from if d in ids),
        )


def _keep_owned(found: Harvest) -> None:
    """Leave out (as skipped, with why) the records whose owner the source does not keep:
    imported for every user, they would be handed to the default user."""
    kept = [item for item in found.items if item.owner_known]
    found.skipped += [
        (
            item.external_id,
            f"its owner is unknown ({found.system} does not keep it): import "
            "it for one user with --user NAME",
        )
        for item in found.items
        if not item.owner_known
    ]
    found.items = kept


def _user_named(name: str | None) -> str | None:
    """A source's user as a salience user, if it can be one (short text, no control
    characters); else None (the memory stays the importer's, tagged ``source-user:``)."""
    if not name:
        return None
    try:
        checked = validate_field("user", name)
    except InvalidInputError:
        return None
    return str(checked)


def _within(record: MemoryRecord, kept: set[str]) -> MemoryRecord:
    """The record without links to memories this import leaves out (refused, merged): a
    version whose predecessor was refused starts its chain."""
    parent = record.parent_id if record.parent_id in kept else None
    derived = tuple(d for d in record.derived_from if d in kept)
    if parent == record.parent_id and derived == record.derived_from:
        return record
    return replace(record, parent_id=parent, derived_from=derived)
