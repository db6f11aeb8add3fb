"""Write verbs of :class:`~salience.engine.memory.Memory`: remember, update, supersede
(forget and purge: :mod:`.forgetting`).

Every write passes the gates (:mod:`salience.write.gates`), then the profile's duplicate
rules (:mod:`salience.write.dedup`), then the write authority
(:mod:`salience.write.authority`), and answers a :class:`WriteResult`: it is never dropped.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from salience import telemetry
from salience.engine.core import changed_fields
from salience.engine.scrubbing import Scrubbing
from salience.engine.updating import Updating
from salience.errors import InvalidInputError
from salience.ids import new_ulid
from salience.models import (
    MemoryRecord,
    Outcome,
    UpdateLink,
    UserScope,
    WriteResult,
)
from salience.models.spaces import WRITE
from salience.profiles import Profile
from salience.stores.base import MemoryFilter
from salience.text import content_hash
from salience.write.authority import (
    Decision,
    decide,
    is_owned_tag,
    may,
    require,
    succession,
    writer,
)
from salience.write.dedup import (
    BIGRAM_DICE,
    DICE_WINDOW,
    EXACT_HASH,
    SEMANTIC,
    TOPIC_UPSERT,
    is_near_duplicate,
)
from salience.write.records import (
    WRITABLE_FIELDS,
    build_record,
    validate_content,
    validate_field,
    with_changes,
)

if TYPE_CHECKING:
    from salience.embeddings.arrays import Vector
    from salience.write.gates.pipeline import Screened

# The gates, quarantine and entities are imported by the verbs (their patterns compile slowly).


class Writes(Updating, Scrubbing):
    """The verbs that add or change memories."""

    @telemetry.traced("remember")
    def remember(
        self,
        content: str,
        *,
        profile: str | None = None,
        force: bool = False,
        space: str | None = None,
        **fields: Any,
    ) -> WriteResult:
        """Store a new memory. ``fields`` are record fields (type, tags, importance, ...);
        ``space`` writes it into a space the user may write to (the user is its ``author``);
        ``agent`` names the agent that writes (a key or MCP session that names one decides).

        The write passes privacy redaction and the secret scanner (always), the signal gate
        (unless ``force`` or the ``signal_gate`` setting is off: the result's notes say so),
        then the profile's duplicate rules, which may turn it into ``updated`` or
        ``duplicate``. Entities are extracted from the cleaned text.
        """
        rules = self.profile(profile)
        now = self.now()
        owner, values = self._placed(fields, space)
        values.setdefault("type", rules.default_type)
        values = {name: validate_field(name, value) for name, value in values.items()}
        validate_content(content, self._config.max_content_bytes)  # bad input before any gate
        signal = self._config.signal_gate and not force
        telemetry.note(profile=rules.name, tenant=owner, content_bytes=len(content))
        screened = self._screen(content, values, signal=signal)
        source = str(values.get("source", "agent"))
        if screened.rejected:
            telemetry.note(outcome="rejected")
            return self._rejected(rejection(screened), source, owner)
        notes = screened.notes + _bypass_notes(force, self._config.signal_gate)
        if values["type"] in rules.reserved_types:
            reason = f"type {values['type']!r} is reserved by the {rules.name} profile"
            rejected = WriteResult(Outcome.REJECTED, None, reason=reason, gate="profile")
            return replace(self._rejected(rejected, source, owner), notes=notes)
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
        from salience.write import quarantine

        decision = decide("remember", None, record, words=content, claimed=True)  # as written
        record = decision.after or record
        notes += decision.notes
        held = quarantine.is_held(record)
        vector, found = self._embedded_and_looked(record, held, now)  # (before the lock)
        with self._store.transaction():
            result = None if held else self._deduplicate(record, rules, now, vector)
            if result is not None and result.outcome is Outcome.CREATED:  # (not merged)
                notes += result.notes
                result = None
            if result is None:
                result = self._create(decision, vector, found, now)
            elif result.outcome is Outcome.UPDATED and result.id is not None:
                self._put_vector(result.id, vector)
            action = {"created": "create", "updated": "merge"}.get(
                result.outcome.value, "duplicate"
            )
            detail = {"type": record.type} if action == "create" else {"reason": result.reason}
            if held and action == "create":
                detail["quarantine"] = quarantine.family(record)
            self._audit(action, result.id, record.source, owner, **detail)
            if record.session_id:
                self._store.touch_session(record.session_id, now)
        if SEMANTIC in rules.dedup and vector is None:
            notes += ("semantic dedup skipped: no embedder (SALIENCE_EMBEDDER=none)",)
        self._settle_after_write()  # (a pending erasure: retried now)
        telemetry.note(outcome=result.outcome.value, updates=len(result.updates), held=held)
        return replace(result, notes=notes)

    def _placed(self, fields: dict[str, Any], space: str | None) -> tuple[str, dict[str, Any]]:
        """Whose a new memory is (the user's, or ``space``'s: then the user is its author,
        holding the write right) and its values, with the agent that writes it."""
        scope = self._one_user(fields.pop("user", None), "remember")
        agent = self._agent(fields.pop("agent", None))
        values = self._writable(fields)
        owner = self._acting_on(scope, space, WRITE)
        assert owner is not None
        values.update(user=owner, agent=agent, author=None if space is None else scope)
        return owner, values

    def _create(
        self, decision: Decision, vector: Vector | None, found: list[UpdateLink], now: datetime
    ) -> WriteResult:
        """Inside the write's transaction: store the new memory and its vector, and keep the
        updates of older memories it was found to make (looked for before the lock)."""
        record = decision.after
        assert record is not None
        self._authority.write(decision)
        self._put_vector(record.id, vector)
        updates = self._keep_updates(record, found, now)
        if any(x.state == "confirmed" for x in updates):  # (it now names what it replaced)
            record = self._store.get(record.id) or record
        return WriteResult(Outcome.CREATED, record.id, record=record, updates=updates)

    def _screen(self, content: str, values: dict[str, Any], *, signal: bool) -> Screened:
        """Run the gates over the text fields in ``values``; write the cleaned ones back."""
        from salience.write.entities import extract_entities
        from salience.write.gates.pipeline import screen

        tags = validate_field("tags", values.get("tags", ()))
        title = validate_field("title", values.get("title"))
        screened = screen(
            content,
            title=title if isinstance(title, str) else None,
            tags=tags if isinstance(tags, tuple) else (),
            memory_type=str(values.get("type", "")),
            signal=signal,
            fields={name: values.get(name) for name in _SCANNED_FIELDS},
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
        """Update ``old`` in place with ``new``'s text: one more revision, fresh ``updated_at``.
        A memory above the writer's standing is not rewritten: the write is stored as a
        memory of its own (``created``, its notes say why)."""
        if not may("merge", old):
            note = (
                f"not merged into {old.id} ({why}): it is a {old.source}'s memory, above what "
                "this writer may change; stored as a memory of its own"
            )
            return WriteResult(Outcome.CREATED, None, notes=(note,))
        merged = replace(
            old,
            content=new.content,
            title=new.title or old.title,
            revision_count=old.revision_count + 1,
            updated_at=now,
        )
        decision = decide("merge", old, merged)
        self._authority.write(decision)
        merged = decision.after or merged
        return WriteResult(Outcome.UPDATED, old.id, reason=f"merged: {why}", record=merged)

    def update(self, memory_id: str, *, user: UserScope = None, **changes: Any) -> WriteResult:
        """Change fields of one of the user's current memories in place (``user`` names who
        acts: a memory never changes hands).

        New content replaces the old text (which is not kept: :meth:`supersede` keeps
        versions) and counts a revision; content equal to another current memory of the user
        is a ``duplicate`` and changes nothing.
        """
        scope = self._scope(user)
        if not changes:
            raise InvalidInputError("nothing to update: name at least one field")
        content = changes.pop("content", None)
        values = self._writable(changes)
        if content is not None:
            validate_content(content, self._config.max_content_bytes)
        written = content  # as written, hidden characters too: what quarantine reads
        said: tuple[str, ...] = ()  # the screen's notes (hidden characters removed)
        if content is not None or values:
            current = self._local(memory_id, "update", scope)
            require("update", current)
            text = current.content if content is None else content
            values.setdefault("tags", current.tags)
            if content is None:
                values.setdefault("entities", current.entities)
            screened = self._screen(text, values, signal=False)
            if screened.rejected:
                return self._rejected(rejection(screened), "caller", current.user)
            if content is not None:
                content, said = screened.content, screened.notes
        vector = None if content is None else self._embed_one(content)
        with self._store.transaction():
            old = self._current(memory_id, "update", scope)
            now = self.now()
            if content is not None and content != old.content:
                twin = self._same_content(content, old.user, now, besides=old.id)
                if twin is not None:
                    return _duplicate(twin)
            new = with_changes(old, values)
            revisions = old.revision_count
            if content is not None and content != old.content:
                new = replace(new, content=content)
                revisions += 1
                self._put_vector(memory_id, vector)
            new = replace(new, updated_at=now, revision_count=revisions)
            changed = content is not None and content != old.content
            decision = decide(
                "update", old, new, words=written if changed else None, claimed="source" in values
            )
            self._authority.write(decision)
            new, standing = decision.after or new, decision.notes
            if "importance" in values:  # a person set it: decay starts again from here
                self._store.set_importance_base(memory_id, new.importance, now)
            self._audit("update", memory_id, "caller", old.user, **changed_fields(old, new))
            if changed:
                self._stale_after(old, "updated")
        if content is not None and changed:
            self._link(memory_id, new.user, "updated")
        self._settle_after_write()  # (a pending erasure: retried now)
        return WriteResult(Outcome.UPDATED, memory_id, record=new, notes=said + standing)

    def supersede(
        self, old_id: str, content: str, *, user: UserScope = None, **fields: Any
    ) -> WriteResult:
        """Replace one of the user's current memories with a new version; the old one stays
        readable in history.

        The new memory inherits the old one's fields unless ``fields`` overrides them. Content
        equal to another current memory of the user is a ``duplicate`` and changes nothing.
        """
        scope = self._scope(user)
        agent = self._agent(fields.pop("agent", None))
        values = self._writable(fields)
        validate_content(content, self._config.max_content_bytes)
        written = content  # as written, hidden characters too: what quarantine reads
        with self._store.transaction():
            old = self._current(old_id, "supersede", scope)
            values.update(agent=agent, author=scope if old.space is not None else None)
            now = self.now()
            inherited = {name: getattr(old, name) for name in WRITABLE_FIELDS}
            own_tags = tuple(t for t in old.tags if not is_owned_tag(t, writer()))
            inherited.update(derived_from=(), entities=values.pop("entities", ()), tags=own_tags)
            inherited.update(enabled=True)  # (a held predecessor's hold: the authority's)
            inherited.update(values)
            screened = self._screen(content, inherited, signal=False)
            if screened.rejected:
                return self._rejected(rejection(screened), "caller", old.user)
            content = screened.content
            twin = self._same_content(content, old.user, now, besides=old.id)
            if twin is not None:
                return _duplicate(twin)
            inherited.update(id=new_ulid(now), created_at=now, updated_at=now, parent_id=old.id)
            new = build_record(content, max_bytes=self._config.max_content_bytes, values=inherited)
            ended, made = succession(old, replace(old, valid_until=now), new, words=written)
            self._authority.write(ended, made)  # the new words are the caller's
            new, standing = made.after or new, made.notes
            self._put_vector(new.id, self._embed_one(new.content))
            self._audit("supersede", old.id, "caller", old.user, by=new.id)
            self._stale_after(old, "superseded")
            self._audit("create", new.id, new.source, new.user, type=new.type, supersedes=old.id)
        self._link(old.id, old.user, "superseded")
        notes = screened.notes + standing
        self._settle_after_write()  # (a pending erasure: retried now)
        return WriteResult(Outcome.CREATED, new.id, record=new, notes=notes)

    def duplicate_of(self, content: str, *, user: UserScope = None) -> MemoryRecord | None:
        """The user's current memory with this content (after case and space normalisation),
        if any: what a store that refuses duplicates checks first."""
        return self._same_content(content, self._one_user(user, "a lookup"), self.now(), besides="")

    def _same_content(
        self, content: str, user: str, now: datetime, *, besides: str
    ) -> MemoryRecord | None:
        """Another current memory of ``user`` with this content (after normalisation)."""
        flt = MemoryFilter(as_of=now, user=user, content_hash=content_hash(content))
        return next((r for r in self._store.list(flt, 2) if r.id != besides), None)


_SCANNED_FIELDS = ("type", "user", "project", "topic_key", "session_id", "agent")
"""Free-text fields besides content, title and tags: the secret scanner reads them too."""


def _duplicate(twin: MemoryRecord) -> WriteResult:
    reason = f"same content as {twin.id} (after case/space normalisation); nothing changed"
    return WriteResult(Outcome.DUPLICATE, twin.id, reason, record=twin)


def rejection(screened: Screened) -> WriteResult:
    """The result of a write the gates refused: the gate, its reason and notes."""
    return WriteResult(
        Outcome.REJECTED, None, reason=screened.reason, gate=screened.gate, notes=screened.notes
    )


def _bypass_notes(force: bool, gate_on: bool) -> tuple[str, ...]:
    if not gate_on:
        return ("signal gate off by setting (SALIENCE_SIGNAL_GATE)",)
    return ("signal gate bypassed (force)",) if force else ()


def _merge_entities(given: tuple[str, ...], found: tuple[str, ...]) -> tuple[str, ...]:
    """Given entities first, then extracted ones not already named (case-insensitively)."""
    from salience.write.entities import MAX_ENTITIES

    seen = {name.casefold() for name in given}
    merged = list(given)
    for name in found:
        if name.casefold() not in seen:
            seen.add(name.casefold())
            merged.append(name)
    return tuple(merged[:MAX_ENTITIES])
