"""The engine: :class:`Memory`, the one object every face (CLI, MCP, HTTP) calls.

It validates input, keeps the bookkeeping fields (ids, timestamps, counters, supersession)
right, and delegates persistence to a :class:`~salience.stores.base.Store`.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, TextIO

from salience import jsonl
from salience.briefing import Briefing, BriefingRequest
from salience.clock import Clock, system_clock
from salience.config import DB_FILENAME, Config
from salience.consolidation import (
    BOOST_PER_MEMBER,
    BOOST_SIMILARITY,
    EXTRACTIVE,
    INSIGHT_CONFIDENCE,
    LLM,
    MIN_GROUP,
    ConsolidationReport,
    GroupPlan,
    group_by_tags,
    insight_importance,
    representative,
    summarize,
    union_tags,
)
from salience.dedup import (
    BIGRAM_DICE,
    DICE_WINDOW,
    EXACT_HASH,
    SEMANTIC,
    TOPIC_UPSERT,
    is_near_duplicate,
)
from salience.embeddings import Embedder, load_embedder
from salience.entities import MAX_ENTITIES, extract_entities
from salience.errors import (
    ConfigError,
    ConflictError,
    ImportFormatError,
    InvalidInputError,
    LayerError,
    NotFoundError,
    ReadOnlyLayerError,
)
from salience.feedback import apply_feedback
from salience.gates.pipeline import Screened, screen
from salience.ids import new_ulid
from salience.layers import Layer, check_kind, check_name, new_mount, open_layer, relabel
from salience.maintenance import (
    OBSERVATION,
    ImportanceChange,
    MaintenanceReport,
    decayed_importance,
    retention_due,
)
from salience.models import (
    LOCAL_LAYER,
    AuditEntry,
    Hit,
    ImportResult,
    LayerMount,
    MemoryRecord,
    Outcome,
    Session,
    Stats,
    Status,
    WriteResult,
)
from salience.packs import PackImport, PackManifest, pack_name, read_pack, write_pack
from salience.profiles import Profile, ProfileSettings, get_profile
from salience.profiles.base import RecallPlan
from salience.recall import LEXICAL, Candidate, fuse, rank_candidates, spread_context
from salience.records import (
    WRITABLE_FIELDS,
    build_record,
    validate_content,
    validate_field,
    with_changes,
)
from salience.scoring.scores import ContextScore
from salience.sessions import (
    RECENT_SUMMARIES,
    START_MEMORIES,
    SUMMARY_TYPE,
    SessionStart,
    automatic_summary,
    is_stale,
)
from salience.stores.base import MemoryFilter, Store
from salience.text import content_hash

if TYPE_CHECKING:
    from salience.embeddings.arrays import Matrix
    from salience.llm import Summarizer
    from salience.vectors import Vector, Vectors

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
        self,
        store: Store,
        *,
        config: Config | None = None,
        clock: Clock = system_clock,
        embedder: Embedder | Literal["config"] | None = "config",
        llm: Summarizer | Literal["config"] | None = "config",
    ) -> None:
        self._store = store
        self._llm = llm  # loaded from the config on first use: only consolidation needs it
        self._config = config or Config.from_env()
        self._clock = clock
        self._settings = ProfileSettings.from_config(self._config)
        get_profile(self._config.profile)  # an unknown default profile fails here, clearly
        self._embedder = load_embedder(self._config) if embedder == "config" else embedder
        self._vector_store: Vectors | None = None  # built on first use: NumPy loads lazily
        self._pool: ThreadPoolExecutor | None = None
        self._open_layers: dict[str, Layer] = {}  # mounted layers opened so far, by name

    @classmethod
    def open(
        cls,
        path_or_url: str | Path | None = None,
        *,
        config: Config | None = None,
        clock: Clock = system_clock,
        embedder: Embedder | Literal["config"] | None = "config",
        llm: Summarizer | Literal["config"] | None = "config",
    ) -> Memory:
        """Open (creating if needed) the store at a path, a directory, or a ``sqlite://`` URL.

        With no argument, the default file ``$SALIENCE_HOME/salience.db`` is used. The
        embedder comes from the configuration unless one (or None) is given.
        """
        from salience.stores.sqlite import SQLiteStore

        cfg = config or Config.from_env()
        path = _resolve_sqlite_path(path_or_url, cfg)
        store = SQLiteStore(path, busy_timeout_ms=cfg.busy_timeout_ms)
        return cls(store, config=cfg, clock=clock, embedder=embedder, llm=llm)

    @property
    def store(self) -> Store:
        """The store this engine writes to."""
        return self._store

    @property
    def vectors(self) -> Vectors:
        """The store's embeddings and the embedder that makes them."""
        if self._vector_store is None:
            from salience.ann import UsearchIndex
            from salience.vectors import Vectors

            ann = None
            if self._config.vector_index == "usearch":
                ann = UsearchIndex(Path(self._store.location + ".usearch"))
            self._vector_store = Vectors(self._store, self._embedder, ann)
        return self._vector_store

    @property
    def config(self) -> Config:
        """The settings in force."""
        return self._config

    def now(self) -> datetime:
        """The engine's current time (injectable through ``clock``)."""
        return self._clock()

    def profile(self, name: str | None = None) -> Profile:
        """The named profile, or the configured default (``SALIENCE_PROFILE``)."""
        return get_profile(name or self._config.profile)

    def close(self) -> None:
        """Persist the approximate index (if any), then close the store."""
        try:
            if self._vector_store is not None:
                self._vector_store.close()
        finally:
            if self._pool is not None:
                self._pool.shutdown(wait=True)
                self._pool = None
            for layer in self._open_layers.values():
                layer.close()
            self._open_layers.clear()
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

    def remember(
        self, content: str, *, profile: str | None = None, force: bool = False, **fields: Any
    ) -> WriteResult:
        """Store a new memory. ``fields`` are record fields (type, tags, importance, ...).

        The write passes privacy redaction and the secret scanner (always), the signal gate
        (unless ``force`` or the ``signal_gate`` setting is off: the result's notes say so),
        then the profile's duplicate rules, which may turn it into ``updated`` or
        ``duplicate``. Entities are extracted from the cleaned text.
        """
        rules = self.profile(profile)
        now = self.now()
        values = self._writable(fields)
        values.setdefault("type", rules.default_type)
        values = {name: validate_field(name, value) for name, value in values.items()}
        validate_content(content, self._config.max_content_bytes)  # bad input before any gate
        signal = self._config.signal_gate and not force
        screened = self._screen(content, values, signal=signal)
        source = str(values.get("source", "agent"))
        if screened.rejected:
            return self._rejected(_rejection(screened), source)
        notes = screened.notes + _bypass_notes(force, self._config.signal_gate)
        if values["type"] in rules.reserved_types:
            reason = f"type {values['type']!r} is reserved by the {rules.name} profile"
            rejected = WriteResult(Outcome.REJECTED, None, reason=reason, gate="profile")
            return replace(self._rejected(rejected, source), notes=notes)
        if "confidence" not in values:
            default = rules.default_confidence(str(values["type"]), values.get("source", "agent"))
            if default is not None:
                values["confidence"] = default
        values.update(id=new_ulid(now), created_at=now, updated_at=now)
        record = build_record(
            screened.content,
            max_bytes=self._config.max_content_bytes,
            values=values,
            validated=True,  # every value above was validated or made here
        )
        vector = self._embed_one(record.content)
        with self._store.transaction():
            result = self._deduplicate(record, rules, now, vector)
            if result is None:
                self._store.insert(record)
                self._put_vector(record.id, vector)
                result = WriteResult(Outcome.CREATED, record.id, record=record)
            elif result.outcome is Outcome.UPDATED and result.id is not None:
                self._put_vector(result.id, vector)
            action = {"created": "create", "updated": "merge"}.get(
                result.outcome.value, "duplicate"
            )
            detail = {"type": record.type} if action == "create" else {"reason": result.reason}
            self._audit(action, result.id, source, **detail)
            if record.session_id:
                self._store.touch_session(record.session_id, now)
        if SEMANTIC in rules.dedup and vector is None:
            notes += ("semantic dedup skipped: no embedder (SALIENCE_EMBEDDER=none)",)
        return replace(result, notes=notes)

    def _audit(self, action: str, memory_id: str | None, actor: str, **detail: Any) -> None:
        """Append one audit entry (joins the caller's transaction)."""
        self._store.append_audit([AuditEntry(self.now(), memory_id, action, actor, detail)])

    def _rejected(self, result: WriteResult, actor: str) -> WriteResult:
        """Log a refused write (gate and reason: never the refused text) and return it."""
        self._audit("reject", None, actor, gate=result.gate, reason=result.reason)
        return result

    def _embed_one(self, text: str) -> Vector | None:
        if self._embedder is None:
            return None
        matrix = self.vectors.embed([text])
        return None if matrix is None else matrix[0]

    def _put_vector(self, memory_id: str, vector: Vector | None) -> None:
        if vector is not None:
            self.vectors.put(memory_id, vector)

    def _screen(self, content: str, values: dict[str, Any], *, signal: bool) -> Screened:
        """Run the gates over the text fields in ``values``; write the cleaned ones back."""
        tags = validate_field("tags", values.get("tags", ()))
        title = validate_field("title", values.get("title"))
        screened = screen(
            content,
            title=title if isinstance(title, str) else None,
            tags=tags if isinstance(tags, tuple) else (),
            memory_type=str(values.get("type", "")),
            signal=signal,
        )
        if not screened.rejected:
            values["tags"] = screened.tags
            if screened.title is not None:
                values["title"] = screened.title
            given = validate_field("entities", values.get("entities", ()))
            assert isinstance(given, tuple)
            values["entities"] = _merge_entities(given, extract_entities(screened.content))
        return screened

    def _deduplicate(
        self, new: MemoryRecord, rules: Profile, now: datetime, vector: Vector | None
    ) -> WriteResult | None:
        """Apply the profile's duplicate rules in order; None if the write is a new memory."""
        for rule in rules.dedup:
            if rule == SEMANTIC and vector is not None:
                threshold = self._config.rae_dedup_threshold
                flt = MemoryFilter(as_of=now, user=new.user)
                for hit in self.vectors.search(vector, flt, 1, min_similarity=threshold):
                    reason = (
                        f"semantic similarity {hit.similarity:.3f} >= {threshold:g} "
                        f"to {hit.record.id}"
                    )
                    return WriteResult(Outcome.DUPLICATE, hit.record.id, reason, record=hit.record)
            if rule == TOPIC_UPSERT and new.topic_key:
                flt = MemoryFilter(as_of=now, user=new.user, topic_key=new.topic_key)
                if found := self._store.list(flt, 1):
                    return self._absorb(found[0], new, now, f"same topic_key {new.topic_key!r}")
            elif rule == EXACT_HASH:
                flt = MemoryFilter(as_of=now, user=new.user, content_hash=content_hash(new.content))
                if found := self._store.list(flt, 1):
                    reason = f"same content as {found[0].id} (after case/space normalisation)"
                    return WriteResult(Outcome.DUPLICATE, found[0].id, reason, record=found[0])
            elif rule == BIGRAM_DICE:
                flt = MemoryFilter(as_of=now, user=new.user, type=new.type)
                for old in self._store.list(flt, DICE_WINDOW):
                    if is_near_duplicate(new.content, old.content):
                        return self._absorb(old, new, now, "bigram Dice > 0.80")
        return None

    def _absorb(self, old: MemoryRecord, new: MemoryRecord, now: datetime, why: str) -> WriteResult:
        """Update ``old`` in place with ``new``'s text: one more revision, fresh ``updated_at``."""
        merged = replace(
            old,
            content=new.content,
            title=new.title or old.title,
            revision_count=old.revision_count + 1,
            updated_at=now,
        )
        self._store.replace(merged)
        return WriteResult(Outcome.UPDATED, old.id, reason=f"merged: {why}", record=merged)

    def get(self, memory_id: str) -> MemoryRecord:
        """The memory with this id, whatever its status, local or from a mounted layer
        (``layer`` names it); :class:`NotFoundError` if none."""
        record = self._store.get(memory_id)
        if record is not None:
            return record
        for layer in self._mounted():
            found = layer.store.get(memory_id)
            if found is not None:
                return relabel(found, layer.name)
        raise NotFoundError(memory_id)

    def _local(self, memory_id: str, verb: str) -> MemoryRecord:
        """A memory of the local layer, the only one writes may touch; a memory of a mounted
        layer is refused with :class:`ReadOnlyLayerError`."""
        record = self._store.get(memory_id)
        if record is not None:
            return record
        for layer in self._mounted():
            if layer.store.get(memory_id) is not None:
                raise layer.refuse(memory_id, verb)
        raise NotFoundError(memory_id)

    def update(self, memory_id: str, **changes: Any) -> WriteResult:
        """Change fields of a current memory in place; new content counts a revision."""
        if not changes:
            raise InvalidInputError("nothing to update: name at least one field")
        content = changes.pop("content", None)
        values = self._writable(changes)
        if content is not None:
            validate_content(content, self._config.max_content_bytes)
        if content is not None or "title" in values or "tags" in values:
            current = self._local(memory_id, "update")
            text = current.content if content is None else content
            values.setdefault("tags", current.tags)
            if content is None:
                values.setdefault("entities", current.entities)
            screened = self._screen(text, values, signal=False)
            if screened.rejected:
                return self._rejected(_rejection(screened), "caller")
            if content is not None:
                content = screened.content
        vector = None if content is None else self._embed_one(content)
        with self._store.transaction():
            old = self._current(memory_id, "update")
            now = self.now()
            new = with_changes(old, values)
            revisions = old.revision_count
            if content is not None and content != old.content:
                new = replace(new, content=content)
                revisions += 1
                self._put_vector(memory_id, vector)
            new = replace(new, updated_at=now, revision_count=revisions)
            self._store.replace(new)
            if "importance" in values:  # a person set it: decay starts again from here
                self._store.set_importance_base(memory_id, new.importance, now)
            self._audit("update", memory_id, "caller", **_changes(old, new))
        return WriteResult(Outcome.UPDATED, memory_id, record=new)

    def supersede(self, old_id: str, content: str, **fields: Any) -> WriteResult:
        """Replace a current memory with a new version; the old one stays readable in history.

        The new memory inherits the old one's fields unless ``fields`` overrides them.
        """
        values = self._writable(fields)
        validate_content(content, self._config.max_content_bytes)
        with self._store.transaction():
            old = self._current(old_id, "supersede")
            now = self.now()
            inherited = {name: getattr(old, name) for name in WRITABLE_FIELDS}
            inherited.update(derived_from=(), entities=values.pop("entities", ()))
            inherited.update(values)
            screened = self._screen(content, inherited, signal=False)
            if screened.rejected:
                return self._rejected(_rejection(screened), "caller")
            content = screened.content
            inherited.update(id=new_ulid(now), created_at=now, updated_at=now, parent_id=old.id)
            new = build_record(content, max_bytes=self._config.max_content_bytes, values=inherited)
            self._store.replace(replace(old, valid_until=now))
            self._store.insert(new)
            self._put_vector(new.id, self._embed_one(new.content))
            self._audit("supersede", old.id, "caller", by=new.id)
            self._audit("create", new.id, new.source, type=new.type, supersedes=old.id)
        return WriteResult(Outcome.CREATED, new.id, record=new)

    def forget(self, memory_id: str, reason: str = DEFAULT_FORGET_REASON) -> WriteResult:
        """Forget softly: the memory leaves recall and briefings but stays readable."""
        if not isinstance(reason, str) or not reason.strip():
            raise InvalidInputError("a reason to forget must be given", field="reason")
        with self._store.transaction():
            old = self._local(memory_id, "forget")
            if old.forget_reason is not None:
                raise ConflictError(f"memory {memory_id} is already forgotten", memory_id=memory_id)
            now = self.now()
            until = now if old.valid_until is None or old.valid_until > now else old.valid_until
            new = with_changes(old, {"forget_reason": reason})
            new = replace(new, valid_until=until, updated_at=now)
            self._store.replace(new)
            self._audit("forget", memory_id, "caller", reason=reason)
        return WriteResult(Outcome.UPDATED, memory_id, record=new)

    def feedback(self, memory_id: str, *, used: bool) -> WriteResult:
        """Record whether a memory was used (echo) or not (fizzle): see :mod:`salience.feedback`.

        The result's reason says what changed (importance and confidence, before and after).
        """
        if not isinstance(used, bool):
            raise InvalidInputError("used must be true or false", field="used")
        with self._store.transaction():
            old = self._current(memory_id, "give feedback on")
            now = self.now()
            new = apply_feedback(old, used=used, now=now)
            self._store.replace(new)
            self._store.set_importance_base(memory_id, new.importance, now)
            self._audit(
                "feedback",
                memory_id,
                "caller",
                used=used,
                importance=[old.importance, new.importance],
                confidence=[old.confidence, new.confidence],
            )
        kind = "echo (used)" if used else "fizzle (not used)"
        reason = (
            f"{kind}: importance {old.importance:.2f} -> {new.importance:.2f}, "
            f"confidence {old.confidence:.2f} -> {new.confidence:.2f}"
        )
        return WriteResult(Outcome.UPDATED, memory_id, reason=reason, record=new)

    def maintain(
        self, *, dry_run: bool = False, as_of: datetime | None = None
    ) -> MaintenanceReport:
        """Decay importance (FadeMem, idempotent), apply retention if configured, and clean
        orphaned index rows. ``dry_run`` reports the same plan and changes nothing."""
        now = as_of or self.now()
        decayed: builtins.list[ImportanceChange] = []
        forgotten: builtins.list[str] = []
        days = self._config.retention_days
        with self._store.transaction():
            records = self._store.list(MemoryFilter(as_of=now), None)
            bases = self._store.importance_bases()
            consolidated = {source for r in self._store.iter_all() for source in r.derived_from}
            for record in records:
                if record.layer != "local":
                    continue
                if (
                    record.type == OBSERVATION
                    and record.id not in consolidated
                    and retention_due(record.created_at, now, days)
                ):
                    forgotten.append(record.id)
                    if not dry_run:
                        reason = (
                            f"retention: observation older than {days} days, never consolidated"
                        )
                        gone = with_changes(record, {"forget_reason": reason})
                        self._store.replace(replace(gone, valid_until=now))
                        self._audit("retention", record.id, "maintenance", reason=reason)
                    continue
                base, set_at = bases.get(record.id, (record.importance, record.created_at))
                value = decayed_importance(base, set_at, record.type, record.confidence, now)
                if abs(value - record.importance) > 1e-12:
                    decayed.append(ImportanceChange(record.id, record.importance, value))
                    if not dry_run:
                        if record.id not in bases:
                            self._store.set_importance_base(record.id, base, set_at)
                        self._store.replace(replace(record, importance=value))
                        self._audit(
                            "decay", record.id, "maintenance", importance=[record.importance, value]
                        )
            orphans = self._store.orphans(delete=not dry_run)
            if orphans and not dry_run:
                self._audit("orphans", None, "maintenance", removed=orphans)
        return MaintenanceReport(dry_run, tuple(decayed), tuple(forgotten), orphans)

    def consolidate(
        self, *, dry_run: bool = False, as_of: datetime | None = None
    ) -> ConsolidationReport:
        """Turn groups of 3+ tag-sharing observations into insights (see
        :mod:`salience.consolidation`); idempotent. ``dry_run`` returns the plan only."""
        now = as_of or self.now()
        plans: builtins.list[GroupPlan] = []
        with self._store.transaction():
            done = {source for r in self._store.iter_all() for source in r.derived_from}
            candidates = [
                r
                for r in self._store.list(MemoryFilter(as_of=now, enabled_only=True), None)
                if r.type == OBSERVATION and r.layer == "local" and r.id not in done
            ]
            candidates.sort(key=lambda r: r.id)
            users = sorted({r.user for r in candidates})
            for user in users:
                mine = [r for r in candidates if r.user == user]
                for group in group_by_tags(mine):
                    if len(group) >= MIN_GROUP:
                        plans.append(self._consolidate_group(group, now, dry_run=dry_run))
        return ConsolidationReport(dry_run, tuple(plans), len(candidates))

    def _consolidate_group(
        self, group: builtins.list[MemoryRecord], now: datetime, *, dry_run: bool
    ) -> GroupPlan:
        members = tuple(r.id for r in group)
        target: tuple[MemoryRecord, float] | None = None
        if self._embedder is not None:
            centre = self.vectors.centroid(members)
            if centre is not None:
                flt = MemoryFilter(as_of=now, user=group[0].user, type="insight")
                for hit in self.vectors.search(centre, flt, 1, min_similarity=BOOST_SIMILARITY):
                    if hit.similarity > BOOST_SIMILARITY and hit.record.layer == "local":
                        target = (hit.record, hit.similarity)
        if target is not None:
            insight, similarity = target
            importance = min(1.0, insight.importance + BOOST_PER_MEMBER * len(group))
            if not dry_run:
                links = insight.derived_from + tuple(
                    m for m in members if m not in insight.derived_from
                )
                self._store.replace(replace(insight, importance=importance, derived_from=links))
                self._audit(
                    "consolidate",
                    insight.id,
                    "consolidation",
                    plan="boost",
                    members=list(members),
                    importance=[insight.importance, importance],
                )
            return GroupPlan(members, "boost", insight.id, insight.content, importance, similarity)
        source = representative(group)
        importance = insight_importance(group)
        summary = summarize(
            group, self._summarizer(), max_bytes=self._config.max_content_bytes, dry_run=dry_run
        )
        if dry_run:
            return GroupPlan(
                members,
                "create",
                None,
                summary.content,
                importance,
                None,
                summary.method,
                summary.note,
            )
        values = {
            "id": new_ulid(now),
            "type": "insight",
            "user": source.user,
            "project": source.project,
            "source": "consolidation",
            "importance": importance,
            "confidence": INSIGHT_CONFIDENCE,
            "tags": list(union_tags(group)),
            "derived_from": list(members),
            "entities": list(
                source.entities
                if summary.method == EXTRACTIVE
                else extract_entities(summary.content)
            ),
            "created_at": now,
            "updated_at": now,
        }
        insight = build_record(
            summary.content, max_bytes=self._config.max_content_bytes, values=values
        )
        self._store.insert(insight)
        self._put_vector(insight.id, self._embed_one(insight.content))
        detail: dict[str, Any] = {"plan": "create", "members": list(members)}
        detail["summary"] = summary.method
        llm = self._summarizer()
        if summary.method == LLM and llm is not None:
            detail["llm"] = llm.identity
        if summary.note:
            detail["note"] = summary.note
        self._audit("consolidate", insight.id, "consolidation", **detail)
        return GroupPlan(
            members,
            "create",
            insight.id,
            insight.content,
            importance,
            None,
            summary.method,
            summary.note,
        )

    def _summarizer(self) -> Summarizer | None:
        """The configured LLM for consolidation summaries (None: extractive only)."""
        if self._llm == "config":
            from salience.llm import load_llm

            self._llm = load_llm(self._config)
        return self._llm

    def derived_from_this(self, memory_id: str) -> builtins.list[MemoryRecord]:
        """Memories (insights) that list ``memory_id`` in their ``derived_from``: the link back."""
        self.get(memory_id)
        return [r for r in self._store.iter_all() if memory_id in r.derived_from]

    def purge(self, memory_id: str) -> WriteResult:
        """Delete a memory for good, with its index entries. Cannot be undone."""
        with self._store.transaction():
            self._local(memory_id, "purge")
            if not self._store.delete(memory_id):
                raise NotFoundError(memory_id)
            self._audit("purge", memory_id, "caller")
        return WriteResult(Outcome.DELETED, memory_id)

    def _writable(self, fields: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(fields) - set(WRITABLE_FIELDS))
        if unknown:
            raise InvalidInputError(
                f"unknown or read-only field(s): {', '.join(unknown)}", field=unknown[0]
            )
        layer = fields.get("layer", LOCAL_LAYER)
        if layer != LOCAL_LAYER:
            raise ReadOnlyLayerError(
                f"writes always go to the local layer; layer {layer!r} is read-only"
            )
        return dict(fields)

    def _current(self, memory_id: str, verb: str) -> MemoryRecord:
        record = self._local(memory_id, verb)
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
        profile: str | None = None,
        user: str | None = None,
        project: str | None = None,
        type: str | None = None,
        tags: Iterable[str] = (),
        as_of: datetime | None = None,
        touch: bool = True,
        types: Iterable[str] = (),
        types_exclude: Iterable[str] = (),
    ) -> builtins.list[Hit]:
        """Recall current memories for a query, ranked by the profile's search score.

        Any text is a valid query. ``types`` keeps only those types, ``types_exclude`` drops
        them (not both). Profiles that count accesses bump the local hits returned
        (``touch=False`` looks without counting, for evaluations).
        """
        if not isinstance(query, str) or not query.strip():
            raise InvalidInputError("the query is empty", field="query")
        if limit < 1:
            raise InvalidInputError("limit must be at least 1", field="limit")
        types, types_exclude = tuple(types), tuple(types_exclude)
        if types and types_exclude:
            raise InvalidInputError("give types or types_exclude, not both", field="types_exclude")
        rules = self.profile(profile)
        plan = rules.recall
        now = as_of or self.now()
        flt = MemoryFilter(
            as_of=now,
            user=user,
            project=project,
            type=type,
            types=types,
            types_exclude=types_exclude,
            tags=tuple(tags),
        )
        layers = self._mounted()
        text = query.strip()
        if len(text) < plan.substring_below:
            found = self._store.substring(text, flt, limit)
            for layer in layers:
                found += layer.records(layer.store.substring(text, flt, limit))
            candidates = fuse(plan, [(r, 1.0) for r in found], ())
        else:
            candidates = self._candidates(query, flt, plan, limit, layers)
        hits = rank_candidates(candidates, rules, now, self._settings, limit)
        if rules.bump_on_recall and touch:
            self._store.touch([h.record.id for h in hits if h.record.layer == LOCAL_LAYER], now)
        return hits

    def _candidates(
        self, query: str, flt: MemoryFilter, plan: RecallPlan, limit: int, layers: Sequence[Layer]
    ) -> builtins.list[Candidate]:
        """Full-text and vector candidates from every layer, fused by the profile's plan."""

        def full_text() -> builtins.list[tuple[MemoryRecord, float]]:
            count = plan.lexical_count(limit)
            found = self._store.search(query, flt, count, dated=plan.dated)
            for layer in layers:
                found += layer.pairs(layer.store.search(query, flt, count, dated=plan.dated))
            return found

        vector: builtins.list[tuple[MemoryRecord, float]] = []
        sources: builtins.list[tuple[Layer | None, Vectors]] = []
        if plan.fusion == LEXICAL or not plan.vector_count(limit) or self._embedder is None:
            lexical = full_text()
        elif self._store.in_transaction():  # a worker would wait on this thread's own lock
            lexical = full_text()
            vector, sources = self._vector_hits(query, flt, plan, limit, layers)
        else:
            # Full-text search runs in a worker while this thread embeds the query and scans
            # the vectors: SQLite, onnxruntime and NumPy all release the GIL.
            pending = self._worker().submit(full_text)
            try:
                vector, sources = self._vector_hits(query, flt, plan, limit, layers)
            finally:
                lexical = pending.result()
        candidates = fuse(plan, lexical, vector)
        if plan.context_weight and vector:
            neighbours: dict[str, tuple[str | None, str | None]] = {}
            for source, vectors in sources:
                name = LOCAL_LAYER if source is None else source.name
                ids = [c.record.id for c in candidates if c.record.layer == name]
                neighbours.update(vectors.neighbours(ids))
            candidates = spread_context(candidates, neighbours, plan.context_weight)
        return candidates

    def _vector_hits(
        self, query: str, flt: MemoryFilter, plan: RecallPlan, limit: int, layers: Sequence[Layer]
    ) -> tuple[
        builtins.list[tuple[MemoryRecord, float]], builtins.list[tuple[Layer | None, Vectors]]
    ]:
        """Vector hits from the local store and every layer with vectors of this embedder
        (a layer embedded by another model is searched by full text only), and those sources."""
        sources: builtins.list[tuple[Layer | None, Vectors]] = []
        if self.vectors.count():
            sources.append((None, self.vectors))
        for mounted in layers:
            vectors = self._layer_vectors(mounted)
            if vectors is not None:
                sources.append((mounted, vectors))
        if not sources:
            return [], []
        embedded = self.vectors.embed([query])
        assert embedded is not None
        query_vector = embedded[0]
        found: builtins.list[tuple[MemoryRecord, float]] = []
        for layer, vectors in sources:
            hits = vectors.search(
                query_vector,
                flt,
                plan.vector_count(limit),
                min_similarity=plan.vector_min,
                neighbour_weight=plan.neighbour_weight,
            )
            pairs = [(hit.record, hit.similarity) for hit in hits]
            found += pairs if layer is None else layer.pairs(pairs)
        return found, sources

    def _layer_vectors(self, layer: Layer) -> Vectors | None:
        """The layer's vectors if they were made by this engine's embedder, else None."""
        if self._embedder is None:
            return None
        if layer.vectors is None:
            from salience.vectors import Vectors

            layer.vectors = Vectors(layer.store, self._embedder)
        stored = layer.vectors.stored_identity()
        if stored != self._embedder.identity or not layer.vectors.count():
            return None
        return layer.vectors

    def _worker(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="salience-fts")
        return self._pool

    def rank(
        self,
        profile: str | None = None,
        *,
        user: str | None = None,
        project: str | None = None,
        as_of: datetime | None = None,
        limit: int | None = None,
    ) -> builtins.list[tuple[MemoryRecord, ContextScore]]:
        """Current, enabled memories by the profile's context score, best first (ties by id)."""
        rules = self.profile(profile)
        now = as_of or self.now()
        records = self._store.list(MemoryFilter(as_of=now, user=user, project=project), None)
        scored = [(r, rules.context_score(r, now, self._settings)) for r in records if r.enabled]
        scored.sort(key=lambda pair: (-pair[1].value, pair[0].id))
        return scored if limit is None else scored[:limit]

    def briefing(
        self,
        profile: str | None = None,
        *,
        user: str = "default",
        project: str | None = None,
        session_id: str | None = None,
        budget: int | None = None,
        as_of: datetime | None = None,
    ) -> Briefing:
        """The text to inject at session start, with a manifest of every candidate's fate."""
        if budget is not None and budget < 1:
            raise InvalidInputError("budget must be at least 1 token", field="budget")
        rules = self.profile(profile)
        now = as_of or self.now()
        flt = MemoryFilter(as_of=now, user=user, include_superseded=True)
        request = BriefingRequest(now, user, project, session_id, budget)
        candidates = self._store.list(flt, None)
        for layer in self._mounted():
            candidates += layer.records(layer.store.list(flt, None))
        return rules.briefing(candidates, request, self._settings)

    # -- layers ---------------------------------------------------------------------------------

    def layers(self) -> builtins.list[LayerMount]:
        """The read-only layers mounted beside the local store, by name."""
        return self._store.layers()

    def mount(self, path: str | Path, *, kind: str, name: str | None = None) -> LayerMount:
        """Mount another salience store read-only as a ``shared`` or ``base`` layer.

        The name defaults to the kind. The store must open (read-only) now; recall and
        briefings search it from then on, in every process that opens this store.
        """
        with self._store.transaction():
            mount = new_mount(
                path,
                kind,
                name,
                local=self._store.location,
                mounted=self._store.layers(),
                now=self.now(),
            )
            open_layer(mount, self._config.busy_timeout_ms).close()
            self._store.mount_layer(mount)
            self._audit("mount", None, "caller", name=mount.name, kind=mount.kind, path=mount.path)
        return mount

    def unmount(self, name: str) -> LayerMount:
        """Stop searching a mounted layer (its file is left as it is)."""
        with self._store.transaction():
            mounts = {m.name: m for m in self._store.layers()}
            if name not in mounts:
                known = ", ".join(mounts) or "none"
                raise LayerError(f"no layer named {name!r} is mounted (mounted: {known})")
            self._store.unmount_layer(name)
            self._audit("unmount", None, "caller", name=name, path=mounts[name].path)
        opened = self._open_layers.pop(name, None)
        if opened is not None:
            opened.close()
        return mounts[name]

    def _mounted(self) -> builtins.list[Layer]:
        """The mounted layers, open (re-read from the store: another process may have changed
        them). A layer that cannot be opened is a :class:`LayerError` naming it."""
        mounts = self._store.layers()
        current = {m.name: m for m in mounts}
        for name, layer in builtins.list(self._open_layers.items()):
            if current.get(name) != layer.mount:
                layer.close()
                del self._open_layers[name]
        for mount in mounts:
            if mount.name not in self._open_layers:
                store = open_layer(mount, self._config.busy_timeout_ms)
                self._open_layers[mount.name] = Layer(mount, store)
        return [self._open_layers[m.name] for m in mounts]

    # -- sessions -------------------------------------------------------------------------------

    def session_start(
        self, user: str = "default", *, profile: str | None = None, as_of: datetime | None = None
    ) -> SessionStart:
        """Reuse the user's session if active in the last 24 h, else close it and open one."""
        now = as_of or self.now()
        closed = None
        with self._store.transaction():
            session = self._store.open_session(user)
            if session is not None and not is_stale(session, now):
                session = replace(session, last_active_at=now)
                self._store.save_session(session)
                is_new = False
            else:
                if session is not None:
                    members = self._store.list(MemoryFilter(as_of=now, session_id=session.id), None)
                    self._close(session, automatic_summary(session, members), "system", now)
                    closed = session.id
                session = Session(new_ulid(now), user, now, now)
                self._store.save_session(session)
                is_new = True
        summaries = self._store.list(
            MemoryFilter(as_of=now, user=user, type=SUMMARY_TYPE), RECENT_SUMMARIES
        )
        ranked = [p for p in self.rank(profile, user=user, as_of=now) if p[0].type != SUMMARY_TYPE]
        return SessionStart(
            session.id, is_new, tuple(summaries), tuple(ranked[:START_MEMORIES]), closed
        )

    def session_end(self, user: str, summary: str, *, as_of: datetime | None = None) -> WriteResult:
        """Close the user's open session with a summary (stored as a ``summary`` memory)."""
        validate_content(summary, self._config.max_content_bytes)
        screened = screen(summary)
        if screened.rejected:
            return _rejection(screened)
        now = as_of or self.now()
        with self._store.transaction():
            session = self._store.open_session(user)
            if session is None:
                raise ConflictError(f"user {user!r} has no open session; start one first")
            record = self._close(session, screened.content, "agent", now)
        return WriteResult(Outcome.CREATED, record.id, record=record)

    def _close(self, session: Session, summary: str, source: str, now: datetime) -> MemoryRecord:
        values = {
            "id": new_ulid(now),
            "type": SUMMARY_TYPE,
            "user": session.user,
            "source": source,
            "session_id": session.id,
            "tags": [f"session:{session.id}"],
            "created_at": now,
            "updated_at": now,
        }
        record = build_record(summary, max_bytes=self._config.max_content_bytes, values=values)
        self._store.insert(record)
        self._put_vector(record.id, self._embed_one(record.content))
        self._audit("create", record.id, source, type=SUMMARY_TYPE, session=session.id)
        self._store.save_session(replace(session, ended_at=now, summary_id=record.id))
        return record

    def entities(
        self, *, user: str | None = None, project: str | None = None, top: int | None = None
    ) -> builtins.list[tuple[str, int]]:
        """Entities named by current memories, with how many memories mention each."""
        if top is not None and top < 1:
            raise InvalidInputError("top must be at least 1", field="top")
        flt = MemoryFilter(as_of=self.now(), user=user, project=project)
        return self._store.entity_counts(flt, top)

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

    def log(
        self, memory_id: str | None = None, *, limit: int | None = None
    ) -> builtins.list[AuditEntry]:
        """The audit log, newest first; one memory's entries with ``memory_id``."""
        if limit is not None and limit < 1:
            raise InvalidInputError("limit must be at least 1", field="limit")
        return self._store.audit_entries(memory_id, limit)

    def stats(self) -> Stats:
        """Counts of memories by status, type, user and project."""
        return self._store.stats(self.now())

    # -- export / import ------------------------------------------------------------------------

    def export_lines(self) -> Iterator[str]:
        """Every record (superseded and forgotten too) as one JSON line each, in id order."""
        for record in self._store.iter_all():
            yield jsonl.dump(record)

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
        return self._import(lines, None)

    def _import(self, lines: Iterable[str], vectors: Matrix | None) -> ImportResult:
        """:meth:`import_`, with the vectors of the lines (row i for line i + 1) if known."""
        parsed = jsonl.parse(lines, now=self.now(), max_bytes=self._config.max_content_bytes)
        records = [self._screen_import(record, line) for line, record in parsed]
        embedded: Matrix | Sequence[Vector] | None = None
        if self._embedder is not None and vectors is not None:
            embedded = [vectors[line - 1] for line, _ in parsed]
        elif self._embedder is not None:
            embedded = self.vectors.embed([r.content for r in records])
        created = updated = unchanged = 0
        entries: builtins.list[AuditEntry] = []
        now = self.now()
        with self._store.transaction():
            for at, record in enumerate(records):
                vector = None if embedded is None else embedded[at]
                existing = self._store.get(record.id)
                if existing is None:
                    self._store.insert(record)
                    self._put_vector(record.id, vector)
                    entries.append(
                        AuditEntry(now, record.id, "import", "import", {"created": True})
                    )
                    created += 1
                elif existing == record:
                    unchanged += 1
                else:
                    self._store.replace(record)
                    if existing.content != record.content:
                        self._put_vector(record.id, vector)
                    detail = {"created": False, **_changes(existing, record)}
                    entries.append(AuditEntry(now, record.id, "import", "import", detail))
                    updated += 1
            self._store.append_audit(entries)
        return ImportResult(created=created, updated=updated, unchanged=unchanged)

    # -- knowledge packs ------------------------------------------------------------------------

    def export_pack(
        self,
        path: str | Path,
        *,
        tags: Iterable[str] = (),
        type: str | None = None,
        project: str | None = None,
    ) -> PackManifest:
        """Write the current memories matching the filters as a knowledge pack (see
        :mod:`salience.packs`), with their vectors when every one has a vector of one model."""
        tags = tuple(tags)
        now = self.now()
        flt = MemoryFilter(as_of=now, project=project, type=type, tags=tags)
        records = sorted(self._store.list(flt, None), key=lambda r: r.id)
        matrix, identity = self._pack_vectors(records)
        filters = {"tags": list(tags), "type": type, "project": project}
        return write_pack(
            path,
            [jsonl.dump(r) for r in records],
            [r.type for r in records],
            vectors=matrix,
            embedder=identity,
            filters={k: v for k, v in filters.items() if v},
            now=now,
        )

    def _pack_vectors(self, records: Sequence[MemoryRecord]) -> tuple[Matrix | None, str | None]:
        """Every record's vector and the model that made them, or (None, None) if not all
        of them can have one (missing ones are embedded when the configured model made the
        rest)."""
        if not records:
            return None, None
        import numpy as np

        identity = self.vectors.stored_identity()
        if identity is None and self._embedder is None:
            return None, None
        found = self.vectors.stored([r.id for r in records])
        missing = [r for r in records if r.id not in found]
        if missing:
            if self._embedder is None or identity not in (None, self._embedder.identity):
                return None, None
            embedded = self.vectors.embed([r.content for r in missing])
            assert embedded is not None
            found.update(zip((r.id for r in missing), embedded, strict=True))
            identity = self._embedder.identity
        return np.stack([found[r.id] for r in records]), identity

    def import_pack(
        self, path: str | Path, *, mount_as: str | None = None, name: str | None = None
    ) -> PackImport:
        """Import a knowledge pack into the local store (ids kept), or with ``mount_as``
        (``base`` or ``shared``) into a new store beside this one, mounted read-only.

        The pack's vectors are kept when its embedder identity is this engine's; otherwise
        the memories are re-embedded. A damaged or unknown pack changes nothing.
        """
        pack = read_pack(path)
        configured = None if self._embedder is None else self._embedder.identity
        keep = pack.vectors is not None and pack.manifest.embedder == configured
        vectors = pack.vectors if keep else None
        fate = "kept" if keep else "none" if configured is None else "embedded"
        if mount_as is None:
            return PackImport(self._import(pack.lines, vectors), pack.manifest, fate)
        check_kind(mount_as)
        name = check_name(pack_name(path) if name is None else name)
        if any(m.name == name for m in self._store.layers()):
            raise LayerError(
                f"a layer named {name!r} is already mounted; choose another name with --name"
            )
        target = Path(self._store.location).parent / "layers" / f"{name}.db"
        if target.exists():
            raise LayerError(f"{target} exists already; choose another name with --name")
        from salience.stores.sqlite import SQLiteStore

        try:
            store = SQLiteStore(target, busy_timeout_ms=self._config.busy_timeout_ms)
            with Memory(
                store, config=self._config, clock=self._clock, embedder=self._embedder
            ) as m:
                result = m._import(pack.lines, vectors)
            mount = self.mount(target, kind=mount_as, name=name)
        except BaseException:
            for leftover in (target, Path(f"{target}-wal"), Path(f"{target}-shm")):
                leftover.unlink(missing_ok=True)
            raise
        return PackImport(result, pack.manifest, fate, mount)

    def reindex(self, *, progress: Callable[[int, int], None] | None = None) -> int:
        """Embed every memory that lacks a vector; after an embedder change, all of them."""
        return self.vectors.reindex(progress=progress)

    def _screen_import(self, record: MemoryRecord, line: int) -> MemoryRecord:
        """Redact an imported record; a secret in it refuses the whole import."""
        screened = screen(record.content, title=record.title, tags=record.tags)
        if screened.rejected:
            raise ImportFormatError(str(screened.reason), line=line, field="content")
        return replace(record, content=screened.content, title=screened.title, tags=screened.tags)


def _changes(old: MemoryRecord, new: MemoryRecord) -> dict[str, Any]:
    """What differs between two versions: ``field: [before, after]``; content only as
    ``"changed"`` (the audit log never copies memory text)."""
    out: dict[str, Any] = {}
    for name in ("content", "title", *WRITABLE_FIELDS, "revision_count"):
        before, after = getattr(old, name), getattr(new, name)
        if before != after:
            if name in ("content", "title"):
                out[name] = "changed"
            else:
                out[name] = [list(v) if isinstance(v, tuple) else v for v in (before, after)]
    return out


def _rejection(screened: Screened) -> WriteResult:
    return WriteResult(
        Outcome.REJECTED, None, reason=screened.reason, gate=screened.gate, notes=screened.notes
    )


def _bypass_notes(force: bool, gate_on: bool) -> tuple[str, ...]:
    if not gate_on:
        return ("signal gate off by setting (SALIENCE_SIGNAL_GATE)",)
    return ("signal gate bypassed (force)",) if force else ()


def _merge_entities(given: tuple[str, ...], found: tuple[str, ...]) -> tuple[str, ...]:
    """Given entities first, then extracted ones not already named (case-insensitively)."""
    seen = {name.casefold() for name in given}
    merged = list(given)
    for name in found:
        if name.casefold() not in seen:
            seen.add(name.casefold())
            merged.append(name)
    return tuple(merged[:MAX_ENTITIES])
