"""The engine: :class:`Memory`, the one object every face (CLI, MCP, HTTP) calls.

It validates input, keeps the bookkeeping fields (ids, timestamps, counters, supersession)
right, and delegates persistence to a :class:`~salience.stores.base.Store`. The verbs live in
three places: writes, recall, briefings and sessions here; feedback, maintenance and
consolidation in :mod:`salience.engine.lifecycle`; export, import, layers and packs in
:mod:`salience.engine.sharing`. Their shared state and helpers are :mod:`salience.engine.core`.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from salience.briefing.policies import Briefing, BriefingRequest
from salience.briefing.sessions import (
    RECENT_SUMMARIES,
    START_MEMORIES,
    SUMMARY_TYPE,
    SessionStart,
    automatic_summary,
    is_stale,
)
from salience.briefing.snapshot import Vanished
from salience.clock import Clock, system_clock
from salience.config import DB_FILENAME, Config
from salience.embeddings import Embedder
from salience.engine.core import changed_fields
from salience.engine.lifecycle import Lifecycle
from salience.engine.sharing import Sharing
from salience.errors import (
    ConfigError,
    ConflictError,
    InvalidInputError,
    NotFoundError,
)
from salience.ids import new_ulid
from salience.models import (
    LOCAL_LAYER,
    AuditEntry,
    Hit,
    MemoryRecord,
    Outcome,
    Session,
    Stats,
    WriteResult,
)
from salience.profiles import Profile
from salience.profiles.base import RecallPlan
from salience.scores import ContextScore
from salience.search.fusion import LEXICAL, Candidate, fuse, rank_candidates, spread_context
from salience.sharing.layers import Layer
from salience.stores.base import MemoryFilter
from salience.text import content_hash
from salience.write.dedup import (
    BIGRAM_DICE,
    DICE_WINDOW,
    EXACT_HASH,
    SEMANTIC,
    TOPIC_UPSERT,
    is_near_duplicate,
)
from salience.write.entities import MAX_ENTITIES, extract_entities
from salience.write.gates.pipeline import Screened, screen
from salience.write.records import (
    WRITABLE_FIELDS,
    build_record,
    validate_content,
    validate_field,
    with_changes,
)

if TYPE_CHECKING:
    from salience.lifecycle.llm import Summarizer
    from salience.search.vectors import Vector, Vectors

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


class Memory(Lifecycle, Sharing):
    """A memory store with the verbs agents need: remember, search, update, supersede, forget."""

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
            self._audit("update", memory_id, "caller", **changed_fields(old, new))
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

    def purge(self, memory_id: str) -> WriteResult:
        """Delete a memory for good, with its index entries. Cannot be undone."""
        with self._store.transaction():
            self._local(memory_id, "purge")
            if not self._store.delete(memory_id):
                raise NotFoundError(memory_id)
            self._audit("purge", memory_id, "caller")
        return WriteResult(Outcome.DELETED, memory_id)

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
            vector, sources = self._vector_hits(query, flt, plan, limit, layers, lambda: lexical)
        else:
            # Full-text search runs in a worker while this thread embeds the query and scans
            # the vectors: SQLite, onnxruntime and NumPy all release the GIL. The vector
            # index is brought up to date first and held, so this thread does not wait on
            # the connection the worker is using. (With feedback, the vector scan waits for
            # the full-text hits; they are usually found before the query is embedded.)
            with self.vectors.held():
                pending = self._worker().submit(full_text)
                try:
                    vector, sources = self._vector_hits(
                        query, flt, plan, limit, layers, pending.result
                    )
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
        self,
        query: str,
        flt: MemoryFilter,
        plan: RecallPlan,
        limit: int,
        layers: Sequence[Layer],
        lexical: Callable[[], builtins.list[tuple[MemoryRecord, float]]],
    ) -> tuple[
        builtins.list[tuple[MemoryRecord, float]], builtins.list[tuple[Layer | None, Vectors]]
    ]:
        """Vector hits from the local store and every layer with vectors of this embedder
        (a layer embedded by another model is searched by full text only), and those sources.
        ``lexical`` gives the full-text hits, for the plan's feedback (called only then)."""
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
        asked = query_vector = embedded[0]
        if plan.feedback_weight > 0 and plan.feedback_count > 0:
            query_vector = self._feedback(asked, lexical(), plan, sources)
        found: builtins.list[tuple[MemoryRecord, float]] = []
        for layer, vectors in sources:
            hits = vectors.search(
                query_vector,
                flt,
                plan.vector_count(limit),
                min_similarity=plan.vector_min,
                neighbour_weight=plan.neighbour_weight,
                floor_query=None if query_vector is asked else asked,
            )
            pairs = [(hit.record, hit.similarity) for hit in hits]
            found += pairs if layer is None else layer.pairs(pairs)
        return found, sources

    def _feedback(
        self,
        query_vector: Vector,
        lexical: Sequence[tuple[MemoryRecord, float]],
        plan: RecallPlan,
        sources: Sequence[tuple[Layer | None, Vectors]],
    ) -> Vector:
        """The query vector moved toward the stored vectors of its best full-text hits."""
        from salience.search.vectors import moved_toward

        by_layer = {LOCAL_LAYER if s is None else s.name: v for s, v in sources}
        best = sorted(lexical, key=lambda pair: -pair[1])[: plan.feedback_count]
        examples = []
        for record, _ in best:
            vectors = by_layer.get(record.layer)
            stored = vectors.stored([record.id]) if vectors is not None else {}
            if record.id in stored:
                examples.append(stored[record.id])
        return moved_toward(query_vector, examples, plan.feedback_weight)

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
        request = BriefingRequest(now, user, project, session_id, budget)
        for attempt in range(3):
            candidates = self._briefings.candidates(user, self._mounted(), now)
            try:
                return rules.briefing(candidates, request, self._settings)
            except Vanished:
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

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

    def reindex(self, *, progress: Callable[[int, int], None] | None = None) -> int:
        """Embed every memory that lacks a vector; after an embedder change, all of them."""
        return self.vectors.reindex(progress=progress)


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
