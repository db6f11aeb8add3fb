"""The engine: :class:`Memory`, the one object every face (CLI, MCP, HTTP) calls.

It validates input, keeps the bookkeeping fields (ids, timestamps, counters, supersession)
right, and delegates persistence to a :class:`~salience.stores.base.Store`.
"""

from __future__ import annotations

import builtins
import json
from collections.abc import Iterable, Iterator
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

from salience.clock import Clock, system_clock
from salience.config import DB_FILENAME, Config
from salience.errors import (
    ConfigError,
    ConflictError,
    ImportFormatError,
    InvalidInputError,
    NotFoundError,
)
from salience.ids import new_ulid
from salience.models import (
    Hit,
    ImportResult,
    MemoryRecord,
    Outcome,
    Stats,
    Status,
    WriteResult,
)
from salience.records import (
    WRITABLE_FIELDS,
    build_record,
    from_json_dict,
    to_json_dict,
    validate_content,
    validate_field,
    with_changes,
)
from salience.stores.base import MemoryFilter, Store

DEFAULT_TYPE = "observation"
DEFAULT_FORGET_REASON = "forgotten on request"


def _resolve_sqlite_path(target: str | Path | None, config: Config) -> Path:
    if target is None:
        return config.db_path
    text = str(target)
    if "://" in text:
        scheme = text.split("://", 1)[0].lower()
        if scheme in ("postgres", "postgresql"):
            raise ConfigError(
                "PostgreSQL stores are not available in this version of salience; "
                "use a SQLite path or sqlite:///path"
            )
        if scheme != "sqlite":
            raise ConfigError(f"unsupported store URL scheme {scheme!r}; supported: sqlite")
        text = text.split("://", 1)[1]
    path = Path(text).expanduser()
    return path / DB_FILENAME if path.is_dir() else path


class Memory:
    """A memory store with the verbs agents need: remember, search, update, supersede, forget."""

    def __init__(
        self, store: Store, *, config: Config | None = None, clock: Clock = system_clock
    ) -> None:
        self._store = store
        self._config = config or Config.from_env()
        self._clock = clock

    @classmethod
    def open(
        cls,
        path_or_url: str | Path | None = None,
        *,
        config: Config | None = None,
        clock: Clock = system_clock,
    ) -> Memory:
        """Open (creating if needed) the store at a path, a directory, or a ``sqlite://`` URL.

        With no argument, the default file ``$SALIENCE_HOME/salience.db`` is used.
        """
        from salience.stores.sqlite import SQLiteStore

        cfg = config or Config.from_env()
        path = _resolve_sqlite_path(path_or_url, cfg)
        return cls(SQLiteStore(path, busy_timeout_ms=cfg.busy_timeout_ms), config=cfg, clock=clock)

    @property
    def store(self) -> Store:
        """The store this engine writes to."""
        return self._store

    @property
    def config(self) -> Config:
        """The settings in force."""
        return self._config

    def now(self) -> datetime:
        """The engine's current time (injectable through ``clock``)."""
        return self._clock()

    def close(self) -> None:
        """Close the store."""
        self._store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- writes ---------------------------------------------------------------------------------

    def remember(self, content: str, **fields: Any) -> WriteResult:
        """Store a new memory. ``fields`` are record fields (type, tags, importance, ...)."""
        now = self.now()
        values = self._writable(fields)
        values.setdefault("type", DEFAULT_TYPE)
        values.update(id=new_ulid(now), created_at=now, updated_at=now)
        record = build_record(content, max_bytes=self._config.max_content_bytes, values=values)
        self._store.insert(record)
        return WriteResult(Outcome.CREATED, record.id, record=record)

    def get(self, memory_id: str) -> MemoryRecord:
        """The memory with this id, whatever its status; :class:`NotFoundError` if none."""
        record = self._store.get(memory_id)
        if record is None:
            raise NotFoundError(memory_id)
        return record

    def update(self, memory_id: str, **changes: Any) -> WriteResult:
        """Change fields of a current memory in place; new content counts a revision."""
        if not changes:
            raise InvalidInputError("nothing to update: name at least one field")
        content = changes.pop("content", None)
        values = self._writable(changes)
        if content is not None:
            validate_content(content, self._config.max_content_bytes)
        with self._store.transaction():
            old = self._current(memory_id, "update")
            now = self.now()
            new = with_changes(old, values)
            revisions = old.revision_count
            if content is not None and content != old.content:
                new = replace(new, content=content)
                revisions += 1
            new = replace(new, updated_at=now, revision_count=revisions)
            self._store.replace(new)
        return WriteResult(Outcome.UPDATED, memory_id, record=new)

    def supersede(self, old_id: str, content: str, **fields: Any) -> WriteResult:
        """Replace a current memory with a new version; the old one stays readable in history.

        The new memory inherits the old one's fields unless ``fields`` overrides them.
        """
        values = self._writable(fields)
        with self._store.transaction():
            old = self._current(old_id, "supersede")
            now = self.now()
            inherited = {name: getattr(old, name) for name in WRITABLE_FIELDS}
            inherited["derived_from"] = ()
            inherited.update(values)
            inherited.update(id=new_ulid(now), created_at=now, updated_at=now, parent_id=old.id)
            new = build_record(content, max_bytes=self._config.max_content_bytes, values=inherited)
            self._store.replace(replace(old, valid_until=now))
            self._store.insert(new)
        return WriteResult(Outcome.CREATED, new.id, record=new)

    def forget(self, memory_id: str, reason: str = DEFAULT_FORGET_REASON) -> WriteResult:
        """Forget softly: the memory leaves recall and briefings but stays readable."""
        if not isinstance(reason, str) or not reason.strip():
            raise InvalidInputError("a reason to forget must be given", field="reason")
        with self._store.transaction():
            old = self.get(memory_id)
            if old.forget_reason is not None:
                raise ConflictError(f"memory {memory_id} is already forgotten", memory_id=memory_id)
            now = self.now()
            until = now if old.valid_until is None or old.valid_until > now else old.valid_until
            new = with_changes(old, {"forget_reason": reason})
            new = replace(new, valid_until=until, updated_at=now)
            self._store.replace(new)
        return WriteResult(Outcome.UPDATED, memory_id, record=new)

    def purge(self, memory_id: str) -> WriteResult:
        """Delete a memory for good, with its index entries. Cannot be undone."""
        if not self._store.delete(memory_id):
            raise NotFoundError(memory_id)
        return WriteResult(Outcome.DELETED, memory_id)

    def _writable(self, fields: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(fields) - set(WRITABLE_FIELDS))
        if unknown:
            raise InvalidInputError(
                f"unknown or read-only field(s): {', '.join(unknown)}", field=unknown[0]
            )
        return dict(fields)

    def _current(self, memory_id: str, verb: str) -> MemoryRecord:
        record = self.get(memory_id)
        status = record.status(self.now())
        if status is not Status.CURRENT:
            raise ConflictError(
                f"cannot {verb} memory {memory_id}: it is {status.value}", memory_id=memory_id
            )
        return record

    # -- reads ----------------------------------------------------------------------------------

    def list(
        self,
        *,
        user: str | None = None,
        project: str | None = None,
        type: str | None = None,
        tags: Iterable[str] = (),
        session_id: str | None = None,
        entity: str | None = None,
        include_superseded: bool = False,
        include_forgotten: bool = False,
        limit: int | None = None,
    ) -> list[MemoryRecord]:
        """Memories matching every given filter, newest first."""
        if limit is not None and limit < 1:
            raise InvalidInputError("limit must be at least 1", field="limit")
        flt = MemoryFilter(
            as_of=self.now(),
            user=user,
            project=project,
            type=type,
            tags=tuple(tags),
            session_id=session_id,
            entity=entity,
            include_superseded=include_superseded,
            include_forgotten=include_forgotten,
        )
        return self._store.list(flt, limit)

    def search(
        self,
        query: str,
        limit: int = 10,
        *,
        user: str | None = None,
        project: str | None = None,
        type: str | None = None,
        tags: Iterable[str] = (),
    ) -> builtins.list[Hit]:
        """Full-text search of current memories (BM25); any text is a valid query."""
        if not isinstance(query, str) or not query.strip():
            raise InvalidInputError("the query is empty", field="query")
        if limit < 1:
            raise InvalidInputError("limit must be at least 1", field="limit")
        flt = MemoryFilter(
            as_of=self.now(), user=user, project=project, type=type, tags=tuple(tags)
        )
        found = self._store.search(query, flt, limit)
        return [Hit(record, score, rank) for rank, (record, score) in enumerate(found, 1)]

    def history(self, memory_id: str) -> builtins.list[MemoryRecord]:
        """The whole supersession chain this memory belongs to, newest first (cycle-safe)."""
        newest = self.get(memory_id)
        seen = {newest.id}
        while successors := [s for s in self._store.successors(newest.id) if s.id not in seen]:
            newest = successors[-1]
            seen.add(newest.id)
        chain = [newest]
        visited = {newest.id}
        while chain[-1].parent_id and chain[-1].parent_id not in visited:
            parent = self._store.get(chain[-1].parent_id)
            if parent is None:
                break
            visited.add(parent.id)
            chain.append(parent)
        return chain

    def stats(self) -> Stats:
        """Counts of memories by status, type, user and project."""
        return self._store.stats(self.now())

    # -- export / import ------------------------------------------------------------------------

    def export_lines(self) -> Iterator[str]:
        """Every record (superseded and forgotten too) as one JSON line each, in id order."""
        for record in self._store.iter_all():
            yield json.dumps(to_json_dict(record), ensure_ascii=False, separators=(",", ":"))

    def export(self, out: TextIO) -> int:
        """Write :meth:`export_lines` to ``out``; return how many records were written."""
        count = 0
        for line in self.export_lines():
            out.write(line + "\n")
            count += 1
        return count

    def import_(self, lines: Iterable[str]) -> ImportResult:
        """Import JSON Lines, all or nothing: a bad line refuses the whole import.

        A record whose id exists replaces it (counted as updated, or unchanged if identical).
        Missing ``id``, ``type`` and times are filled in, so hand-written files work.
        """
        records = self._parse_import(lines)
        created = updated = unchanged = 0
        with self._store.transaction():
            for record in records:
                existing = self._store.get(record.id)
                if existing is None:
                    self._store.insert(record)
                    created += 1
                elif existing == record:
                    unchanged += 1
                else:
                    self._store.replace(record)
                    updated += 1
        return ImportResult(created=created, updated=updated, unchanged=unchanged)

    def _parse_import(self, lines: Iterable[str]) -> builtins.list[MemoryRecord]:
        records: builtins.list[MemoryRecord] = []
        seen: dict[str, int] = {}
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            record = self._parse_import_line(line, number)
            if record.id in seen:
                raise ImportFormatError(
                    f"id {record.id} already appeared on line {seen[record.id]}",
                    line=number,
                    field="id",
                )
            seen[record.id] = number
            records.append(record)
        return records

    def _parse_import_line(self, line: str, number: int) -> MemoryRecord:
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ImportFormatError(f"not valid JSON ({exc.msg})", line=number) from None
        if not isinstance(data, dict):
            raise ImportFormatError("expected a JSON object", line=number)
        now = self.now()
        data.setdefault("type", DEFAULT_TYPE)
        data.setdefault("created_at", now)
        data.setdefault("updated_at", data["created_at"])
        try:
            if "id" not in data:
                created = validate_field("created_at", data["created_at"])
                assert isinstance(created, datetime)
                data["id"] = new_ulid(created)
            return from_json_dict(data, max_bytes=self._config.max_content_bytes)
        except InvalidInputError as exc:
            raise ImportFormatError(str(exc), line=number, field=exc.field) from None
