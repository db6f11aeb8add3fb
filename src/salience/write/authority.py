"""The write authority: every change to a memory passes here, whichever verb and face it
came from, and nothing else may change a memory row (:mod:`salience.stores.grant`).

It decides from three things: **who writes** (the channel's ceiling,
:data:`salience.models.CEILING`: a person, an agent, or a source from outside), **whose
memory it is** (its standing: the trust of its ``source``) and **what changes** (the verb and
the fields). The rules are data, :data:`VERBS` and :data:`FIELDS`, and docs/security.md's table
is generated from them (:func:`rules_table`), so the docs cannot drift from the code:

- A writer below a memory's standing changes nothing of it in place (content, title,
  priority, enabled, type, importance, tags, ...), and neither forgets nor purges it. It may
  supersede it (the new version is the writer's: its source, marked, screened and held like
  any write of that source) and give feedback on it.
- The tags salience owns (``quarantine``, ``stale`` and their ``:<why>`` forms, and a
  ``source:<source>`` tag claiming more than the memory's own source) are never set or
  removed by a caller: those a caller names are dropped, those a memory has are kept, and
  the result says so.
- Only a person (the library, the CLI, a key made ``--source user``) releases quarantine
  (approve, reject) or confirms a stale memory; a held memory is let in by approving it,
  never by an update of ``enabled`` or a successor written from below.
- Sources are claimed up to the ceiling, pins are the user's own, and text from below the
  user that reads as an order is held, read as it was written (hidden characters and all).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING

from salience import telemetry
from salience.errors import ConflictError, ForbiddenError
from salience.models import CEILING, PERSON, TRUST, MemoryRecord, standing
from salience.stores.grant import granted

if TYPE_CHECKING:
    from salience.stores.base import StagedRow, Store

ANY, STANDING, PERSON_ONLY, SALIENCE = "any", "standing", "person", "salience"
"""Who may: any writer that may write at all; a writer at or above the memory's standing; a
person; salience itself (a consequence of another change, never a caller's request)."""

CREATE, CHANGE, DELETE = "create", "change", "delete"

HELD_TAG, STALE_TAG = "quarantine", "stale"


@dataclass(frozen=True)
class Verb:
    """One kind of change: who may make it, what it does to a row, and which fields it may
    touch (None: any field a caller may write)."""

    name: str
    who: str
    does: str
    fields: frozenset[str] | None
    doc: str
    stands: bool  # a caller's values: its source claim, tags, pin and words are decided


_STANDING_VERBS = ("remember", "update", "merge", "import", "summary")


def _verb(name: str, who: str, does: str, changes: str | None, doc: str) -> Verb:
    changed = None if changes is None else frozenset(changes.split())
    return Verb(name, who, does, changed, doc, name in _STANDING_VERBS)


_BOOKKEEPING = frozenset({"updated_at", "revision_count", "access_count", "last_accessed_at"})
_ENDING = "valid_until forget_reason"

FIELDS: dict[str, str] = {
    "content": "what it says",
    "title": "what it says",
    "type": "how it ranks",
    "priority": "how it ranks (a pin: the user's own memories only)",
    "importance": "how it ranks",
    "confidence": "how it ranks",
    "enabled": "whether it is briefed (a held memory: approve only)",
    "tags": "what it is about (salience's own tags: never a caller's)",
    "project": "where it is briefed",
    "topic_key": "what it is about",
    "entities": "what it is about",
    "session_id": "where it was written",
    "derived_from": "what it was built on",
    "source": "who said it (claimed up to the writer's ceiling)",
}
"""The fields a caller may change in place (``update``), and what each decides: each needs
the writer at or above the memory's standing."""

VERBS: dict[str, Verb] = {
    v.name: v
    for v in (
        _verb("remember", ANY, CREATE, None, "write a new memory"),
        _verb("update", STANDING, CHANGE, " ".join(FIELDS), "change fields of a memory in place"),
        _verb("merge", STANDING, CHANGE, "content title", "fold a new write into an older memory"),
        _verb("supersede", ANY, CHANGE, "valid_until", "replace a memory by a new version"),
        _verb(
            "succeed",
            STANDING,
            CHANGE,
            "parent_id",
            "name the memory a newer one replaces (a confirmed update)",
        ),
        _verb("forget", STANDING, CHANGE, _ENDING, "forget a memory (readable in its history)"),
        _verb("purge", STANDING, DELETE, None, "erase a memory for good"),
        _verb("erase-derived", SALIENCE, DELETE, None, "erase what quotes a purged memory"),
        _verb(
            "feedback",
            ANY,
            CHANGE,
            "importance confidence echo_count fizzle_count",
            "say a memory was used or not (echo, fizzle)",
        ),
        _verb(
            "approve", PERSON_ONLY, CHANGE, "enabled tags", "let a held memory out of quarantine"
        ),
        _verb("reject", PERSON_ONLY, CHANGE, _ENDING, "reject a held memory (forgotten)"),
        _verb("confirm", PERSON_ONLY, CHANGE, "tags", "confirm a stale memory is still true"),
        _verb("erase", PERSON_ONLY, DELETE, None, "erase everything of a user"),
        _verb(
            "erase-authored", SALIENCE, DELETE, None, "erase what an erased member wrote in a space"
        ),
        _verb(
            "unname",
            SALIENCE,
            CHANGE,
            "author",
            "erase an erased member's name from what a space kept of theirs",
        ),
        _verb(
            "import", STANDING, CHANGE, None, "import a record (JSON Lines, packs, import --from)"
        ),
        _verb("summary", ANY, CREATE, None, "close a session with a summary"),
        _verb("stale", SALIENCE, CHANGE, "tags", "mark what was built on a changed memory stale"),
        _verb("decay", SALIENCE, CHANGE, "importance", "decay importance with age"),
        _verb("retention", SALIENCE, CHANGE, _ENDING, "forget old unconsolidated observations"),
        _verb(
            "consolidate",
            SALIENCE,
            CHANGE,
            "importance derived_from valid_until",
            "write, boost or replace an insight",
        ),
        _verb("copy", SALIENCE, CREATE, None, "copy a store verbatim (migrate, scratch copies)"),
    )
}
"""Every way a memory changes. A verb not listed here cannot write."""


@dataclass(frozen=True)
class Decision:
    """A change the authority allowed: the stored version it changes (None: a new memory),
    what is stored (None: deleted), and what the writer is told."""

    verb: str
    before: MemoryRecord | None
    after: MemoryRecord | None
    notes: tuple[str, ...] = ()


def writer() -> str:
    """The ceiling of the calling context: the highest source it writes as."""
    return CEILING.get()


def may(verb: str, record: MemoryRecord | None, ceiling: str | None = None) -> bool:
    """Whether the writer (``ceiling``, else the calling context's) may ``verb`` ``record``."""
    who = VERBS[verb].who
    ceiling = ceiling or writer()
    if who == PERSON_ONLY:
        return ceiling == PERSON
    if who == STANDING and record is not None:
        return TRUST[ceiling] >= TRUST.get(record.source, 0)
    return True


def decide(
    verb: str,
    before: MemoryRecord | None,
    after: MemoryRecord | None,
    *,
    words: str | None = None,
    claimed: bool = False,
) -> Decision:
    """Allow ``verb`` to turn ``before`` into ``after`` (or refuse: :class:`ForbiddenError`,
    nothing changed), and say how ``after`` is stored: its claimed source no higher than the
    writer's ceiling, salience's own tags as salience set them, a pin only on the user's own
    memory, and held when ``words`` (its new text, as written) read as an order from below
    the user, or when it follows a held memory and no person wrote it."""
    rule = VERBS[verb]
    require(verb, before)
    if after is None:
        return Decision(verb, before, None)
    if before is not None and rule.does == CHANGE:
        _check_fields(rule, before, after)
    if not rule.stands:
        return Decision(verb, before, after)
    stood, notes = _stand(verb, before, after, words=words, claimed=claimed)
    return Decision(verb, before, stood, notes)


def succession(
    before: MemoryRecord, ended: MemoryRecord, new: MemoryRecord, *, words: str
) -> tuple[Decision, Decision]:
    """A supersession: ``before`` ended, and ``new`` (the writer's, screened as ``words``);
    a successor of a held memory stays held unless a person wrote it."""
    end = decide("supersede", before, ended)
    made = decide("remember", None, new, words=words, claimed=True)
    if _is_held(before) and writer() != PERSON and made.after and not _is_held(made.after):
        note = f"held in quarantine as the memory it replaces ({before.id}) is held"
        made = replace(made, after=_hold(made.after, _held_family(before)))
        made = replace(made, notes=(*made.notes, note))
    return end, made


def require(verb: str, before: MemoryRecord | None) -> None:
    """Refuse at once (:class:`ForbiddenError`) if the writer may not ``verb`` ``before``: a
    verb asks before it does any other work, so that the refusal is what the writer hears."""
    if not may(verb, before):
        raise _refusal(VERBS[verb], before)


def _refusal(rule: Verb, before: MemoryRecord | None) -> ForbiddenError:
    memory_id = None if before is None else before.id
    who = _a(writer())
    if rule.who == PERSON_ONLY:
        return ForbiddenError(
            f"only a person may {rule.doc}: {who}'s key or tool cannot", memory_id=memory_id
        )
    assert before is not None
    whose = "the user's own" if before.source == PERSON else f"{_a(before.source)}'s"
    return ForbiddenError(
        f"memory {before.id} is {whose}, above what {who} may change: it may supersede it "
        f"(the new version is its own) or give feedback, not {rule.name} it",
        memory_id=memory_id,
    )


def _a(source: str) -> str:
    return ("an " if source in ("agent", "import") else "a ") + source


def _check_fields(rule: Verb, before: MemoryRecord, after: MemoryRecord) -> None:
    changed = {
        f.name for f in fields(MemoryRecord) if getattr(before, f.name) != getattr(after, f.name)
    } - _BOOKKEEPING
    if after.user != before.user or after.id != before.id:
        raise ForbiddenError("a memory never changes hands or ids", memory_id=before.id)
    if rule.fields is not None and not changed <= rule.fields:
        extra = ", ".join(sorted(changed - rule.fields))
        raise ForbiddenError(f"{rule.name} cannot change {extra}", memory_id=before.id)
    if "enabled" in changed and _is_held(before) and rule.name != "approve":
        raise ConflictError(
            f"memory {before.id} is held in quarantine: a person lets it in by approving it "
            "(salience quarantine approve ID), not by enabling it",
            memory_id=before.id,
        )


def _stand(
    verb: str,
    before: MemoryRecord | None,
    after: MemoryRecord,
    *,
    words: str | None,
    claimed: bool,
) -> tuple[MemoryRecord, tuple[str, ...]]:
    from salience.write import quarantine  # (its patterns compile on first use: writes only)

    notes: list[str] = []
    if claimed:
        source, lowered = standing(after.source)
        if lowered is not None:
            after = replace(after, source=source)
            notes.append(lowered)
    after, dropped = _owned_tags(verb, before, after)
    if dropped:
        notes.append(
            f"tags salience sets itself were not changed by this write: {', '.join(dropped)}"
        )
    if after.source != PERSON and after.priority != 0.0:
        after = replace(after, priority=0.0)
        notes.append(pin_note(after.source))
    if before is not None and _is_held(before) and verb not in ("approve", "reject"):
        after = replace(after, enabled=False)  # (its quarantine tags were kept above)
    retitled = before is None or after.title != before.title
    title = after.title if words is not None or retitled else None  # (new words are read)
    held = quarantine.held_by(after.source, words, title)
    if held is not None:
        after = quarantine.hold(after, held)
        notes.append(quarantine.held_note(held))
    elif _is_held(after):  # an import of a held record stays held
        after = replace(after, enabled=False)
    return after, tuple(notes)


def pin_note(source: str) -> str:
    """What a write's result says when its priority was dropped."""
    return (
        f"priority pins the user's own memories only: this {source!r} memory is ranked by "
        "its score (priority 0)"
    )


def is_owned_tag(tag: str, ceiling: str) -> bool:
    """Whether ``tag`` is beyond what a writer of ``ceiling`` may set or remove: a
    quarantine or stale mark (salience's alone), or a ``source:<source>`` tag claiming more
    than the writer is (aide reads ``source:user`` as the user's own word)."""
    name, _, value = tag.partition(":")
    if name in (HELD_TAG, STALE_TAG):
        return True
    return name == "source" and value in TRUST and TRUST[value] > TRUST[ceiling]


def _owned_tags(
    verb: str, before: MemoryRecord | None, after: MemoryRecord
) -> tuple[MemoryRecord, tuple[str, ...]]:
    """``after`` with the tags beyond the writer as they were (``before``'s; none for a new
    memory, but an import keeps the quarantine and stale marks of the store it came from:
    they only hold back), and those a caller named that were dropped or kept."""
    ceiling = writer()
    given = [t for t in after.tags if is_owned_tag(t, ceiling)]
    if before is not None:
        had = [t for t in before.tags if is_owned_tag(t, ceiling)]
    else:
        marks = verb == "import"
        had = [t for t in given if marks and t.partition(":")[0] in (HELD_TAG, STALE_TAG)]
    mine = [t for t in after.tags if not is_owned_tag(t, ceiling)]
    tags = tuple(dict.fromkeys([*mine, *had]))
    changed = sorted(set(given) ^ set(had))
    return (after if tags == after.tags else replace(after, tags=tags)), tuple(changed)


def _is_held(record: MemoryRecord) -> bool:
    return not record.enabled and HELD_TAG in record.tags


def _held_family(record: MemoryRecord) -> str:
    return next((t.split(":", 1)[1] for t in record.tags if t.startswith(f"{HELD_TAG}:")), "")


def _hold(record: MemoryRecord, family: str) -> MemoryRecord:
    marks = (HELD_TAG, f"{HELD_TAG}:{family}") if family else (HELD_TAG,)
    added = tuple(t for t in marks if t not in record.tags)
    return replace(record, enabled=False, tags=(*record.tags, *added))


@dataclass(frozen=True)
class Staged:
    """The rows of new memories the authority allowed (:meth:`Authority.stage`)."""

    rows: tuple[StagedRow, ...]


class Authority:
    """The one gate to a store's memory rows: it writes the decisions :func:`decide` made,
    and nothing else writes them."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def write(self, *decisions: Decision) -> None:
        """Store each decision: a new row, an overwritten one, or a deleted one."""
        for decision in decisions:
            with granted(decision.verb), telemetry.span("write", kind=decision.verb):
                if decision.after is None:
                    assert decision.before is not None
                    self._store.delete(decision.before.id)
                elif decision.before is None:
                    self._store.insert(decision.after)
                else:
                    self._store.replace(decision.after)

    @staticmethod
    def stage(decisions: Sequence[Decision]) -> Staged:
        """New memories' rows made ahead of :meth:`write_new` (outside the write lock)."""
        from salience.stores.rows import stage

        assert all(d.before is None and d.after is not None for d in decisions)
        return Staged(tuple(stage(d.after) for d in decisions if d.after is not None))

    def write_new(self, staged: Staged) -> None:
        """Store many new memories at once (an import), in order, atomically."""
        with granted("import"), telemetry.span("write", kind="import", rows=len(staged.rows)):
            self._store.insert_many(staged.rows)

    def erase_user(self, user: str) -> dict[str, int]:
        """Everything ``user`` ever stored goes (a person's decision only)."""
        require("erase", None)
        with granted("erase"):
            return self._store.erase_user(user)

    @contextmanager
    def copying(self) -> Iterator[None]:
        """Rows copied verbatim into another store (migrate, a scratch copy)."""
        with granted("copy"):
            yield
