"""Memories as columns: the fields briefings look at, one numpy array each.

A briefing considers every current memory of a user. Building 100k record objects costs
seconds, so briefings read these columns instead (kept current by :mod:`salience.briefing.snapshot`)
and fetch whole records only for the few memories they show.

Times are integer microseconds since the epoch, so ages come out exactly as
``(now - moment).total_seconds()`` does; strings (types, projects, sessions, topics, users)
are small integer codes into shared vocabularies, ``-1`` meaning none.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from salience.lazy import lazy_module
from salience.models import LOCAL_LAYER, MemoryRecord
from salience.models.spaces import SPACE_PREFIX
from salience.text import label, name_key

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Ints = npt.NDArray[np.int64]
    Floats = npt.NDArray[np.float64]
    Flags = npt.NDArray[np.bool_]
else:
    np = lazy_module("numpy")


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
NEVER = 2**63 - 1  # the largest int64
"""``valid_until`` of a memory that has none."""
NONE = -1
"""The code of a missing string."""
SEVERAL = -2
"""The project code of a memory that names more than one project (see ``Columns.several``)."""
UNKNOWN = -3
"""The code looked up for a string no memory has: it matches nothing."""


def micros(moment: datetime) -> int:
    """Whole microseconds since the epoch (exact: datetimes hold microseconds)."""
    return (moment - _EPOCH) // _MICROSECOND


def one_line(record: MemoryRecord) -> str:
    """A memory as one line: its content with spacing folded, led by its title when it has
    one that the content does not start with (``Queue choice: We chose Redis ...``). A
    title alone would brief a titled decision as its name, not what was decided."""
    content = " ".join(record.content.split())
    title = record.title
    if not title or content.casefold().startswith(title.casefold()):
        return content
    return f"{title}: {content}"


def tag_value(tags: Iterable[str], prefix: str) -> str | None:
    """The rest of the first tag starting with ``prefix`` (``session:`` -> the session id)."""
    for tag in tags:
        if tag.startswith(prefix):
            return tag[len(prefix) :]
    return None


def projects_of(record: MemoryRecord) -> frozenset[str]:
    """Every project a memory belongs to: its ``project:`` tags and its project field."""
    named = {t[len("project:") :] for t in record.tags if t.startswith("project:")}
    if record.project:
        named.add(record.project)
    return frozenset(named)


def session_of(record: MemoryRecord) -> str | None:
    """The session a memory belongs to: its first ``session:`` tag, else its session id."""
    tagged = tag_value(record.tags, "session:")
    return record.session_id if tagged is None else tagged


class Vocabulary:
    """Strings as small integer codes, in order of first appearance."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self._codes: dict[str, int] = {}

    def code(self, name: str | None) -> int:
        """The code of ``name`` (added if new); :data:`NONE` for None or an empty string."""
        if not name:
            return NONE
        found = self._codes.get(name)
        if found is None:
            found = self._codes[name] = len(self.names)
            self.names.append(name)
        return found

    def adopt(self, names: list[str]) -> bool:
        """Make ``names`` the codes 0, 1, ... of this vocabulary, if it holds no other
        names (saved columns, read back: one dict built at once, ~10x faster than coding
        each name); whether it now holds exactly them (a repeated or empty name: not)."""
        if self.names:
            return self.names == names
        codes = dict(zip(names, range(len(names)), strict=True))
        if len(codes) != len(names) or "" in codes:
            return False
        self.names, self._codes = list(names), codes
        return True

    def lookup(self, name: str) -> int:
        """The code of ``name`` without adding it; :data:`UNKNOWN` if no memory has it."""
        return self._codes.get(name, UNKNOWN)

    def name(self, code: int) -> str:
        """The string behind a code (>= 0)."""
        return self.names[code]


@dataclass
class Vocabularies:
    """The vocabularies one set of columns (and every update to it) codes against."""

    users: Vocabulary = field(default_factory=Vocabulary)
    types: Vocabulary = field(default_factory=Vocabulary)
    projects: Vocabulary = field(default_factory=Vocabulary)
    sessions: Vocabulary = field(default_factory=Vocabulary)
    topics: Vocabulary = field(default_factory=Vocabulary)
    layers: Vocabulary = field(default_factory=Vocabulary)
    sources: Vocabulary = field(default_factory=Vocabulary)
    agents: Vocabulary = field(default_factory=Vocabulary)


@dataclass
class Columns:
    """One row per memory; every field an array of the same length (see the module doc)."""

    vocab: Vocabularies
    ids: npt.NDArray[np.str_]
    seqs: Ints  # the store's row number (to apply changes); -1 when built from records
    user: Ints
    type: Ints
    layer: Ints  # NONE for the user's own local memories, else the layer's (or space's) code
    project: Ints  # NONE, SEVERAL, or the one project's code
    project_field: Ints  # the record's own project field (NONE if unset), as stores filter it
    session: Ints
    topic: Ints
    created: Ints
    updated: Ints
    accessed: Ints  # NEVER when never accessed
    valid_until: Ints  # NEVER when current for good
    forgotten: Flags
    enabled: Flags
    importance: Floats
    confidence: Floats
    priority: Floats
    access_count: Ints
    revision_count: Ints
    echo_count: Ints
    fizzle_count: Ints
    source_user: Flags  # source == "user"
    source: Ints  # the record's source (user, agent, tool, import, ...), coded
    agent: Ints  # the agent that wrote it (NONE: not named)
    tag_global: Flags  # scope:global
    tag_user: Flags  # source:user
    tag_verified: Flags  # verified:true
    tag_discovered: Flags  # source:discovered
    stale: Flags  # tagged stale: a memory it was derived from changed (engine/staleness.py)
    line_length: Ints  # len(one_line(record))
    asks: Flags  # the content holds a question mark (the learned fusion reads it)
    speaker: Ints  # name_key of who says it (its label, "Melanie: ..."); 0: no one named
    several: dict[str, frozenset[str]] = field(default_factory=dict)  # id -> its projects

    def __len__(self) -> int:
        return len(self.ids)

    def derived(self, key: str, make: Callable[[Columns], Floats]) -> Floats:
        """``make(self)``, made once (``key`` names it): a value of these columns alone, such
        as a profile's prior. Columns taken lazily take their rows of their source's (made
        for all its rows, once: a small store's recall asks of the snapshot's columns it
        was lent, recall after recall until a change). Never asked of columns whose arrays
        may still change in place: a snapshot's are lent before a view of them is handed
        out (``briefing.growing``: a change then writes new arrays, and new columns)."""
        made: dict[str, Floats] = self.__dict__.setdefault("_derived", {})
        if key not in made:
            made[key] = make(self)
        return made[key]

    @classmethod
    def from_records(
        cls,
        records: Sequence[MemoryRecord],
        vocab: Vocabularies | None = None,
        seqs: Sequence[int] | None = None,
    ) -> Columns:
        """Columns of ``records`` in their order, coded against ``vocab`` (a new one if None)."""
        vocab = vocab or Vocabularies()
        several: dict[str, frozenset[str]] = {}

        def project(record: MemoryRecord) -> int:
            if not record.project and not any(t.startswith("project:") for t in record.tags):
                return NONE
            named = projects_of(record)
            if len(named) > 1 or "" in named:  # ("project:" alone names the empty project)
                several[record.id] = named
                return SEVERAL
            return vocab.projects.code(next(iter(named)))

        def layer_of(record: MemoryRecord) -> int:
            """A mounted layer's memory: its layer; a space's (in the local layer): the space's
            owner name, so that it weighs as a shared layer's does; else NONE."""
            if record.layer != LOCAL_LAYER:
                return vocab.layers.code(record.layer)
            return vocab.layers.code(record.user) if record.user.startswith(SPACE_PREFIX) else NONE

        def ints(get: Callable[[MemoryRecord], int]) -> Ints:
            return np.fromiter((get(r) for r in records), dtype=np.int64, count=len(records))

        def floats(get: Callable[[MemoryRecord], float]) -> Floats:
            return np.fromiter((get(r) for r in records), dtype=np.float64, count=len(records))

        def flags(get: Callable[[MemoryRecord], bool]) -> Flags:
            return np.fromiter((get(r) for r in records), dtype=np.bool_, count=len(records))

        return cls(
            vocab=vocab,
            ids=np.array([r.id for r in records], dtype=np.str_),
            seqs=np.array(seqs if seqs is not None else [-1] * len(records), dtype=np.int64),
            user=ints(lambda r: vocab.users.code(r.user)),
            type=ints(lambda r: vocab.types.code(r.type)),
            layer=ints(layer_of),
            project=ints(project),
            project_field=ints(lambda r: vocab.projects.code(r.project)),
            session=ints(lambda r: vocab.sessions.code(session_of(r))),
            topic=ints(lambda r: vocab.topics.code(r.topic_key)),
            created=ints(lambda r: micros(r.created_at)),
            updated=ints(lambda r: micros(r.updated_at)),
            accessed=ints(lambda r: micros(r.last_accessed_at) if r.last_accessed_at else NEVER),
            valid_until=ints(lambda r: micros(r.valid_until) if r.valid_until else NEVER),
            forgotten=flags(lambda r: r.forget_reason is not None),
            enabled=flags(lambda r: r.enabled),
            importance=floats(lambda r: r.importance),
            confidence=floats(lambda r: r.confidence),
            priority=floats(lambda r: r.priority),
            access_count=ints(lambda r: r.access_count),
            revision_count=ints(lambda r: r.revision_count),
            echo_count=ints(lambda r: r.echo_count),
            fizzle_count=ints(lambda r: r.fizzle_count),
            source_user=flags(lambda r: r.source == "user"),
            source=ints(lambda r: vocab.sources.code(r.source)),
            agent=ints(lambda r: vocab.agents.code(r.agent)),
            tag_global=flags(lambda r: "scope:global" in r.tags),
            tag_user=flags(lambda r: "source:user" in r.tags),
            tag_verified=flags(lambda r: "verified:true" in r.tags),
            tag_discovered=flags(lambda r: "source:discovered" in r.tags),
            stale=flags(lambda r: "stale" in r.tags),
            line_length=ints(lambda r: len(one_line(r))),
            asks=flags(lambda r: "?" in r.content),
            speaker=ints(lambda r: name_key(label(r.content)[0])),
            several=several,
        )

    # -- reshaping --------------------------------------------------------------------------

    def take(self, rows: npt.NDArray[np.intp] | Flags | slice, *, lazy: bool = False) -> Columns:
        """The rows selected by an index array, a mask or a slice, in that order.

        ``lazy``: each array is taken when first used (a policy reads about half of them;
        copying all 29 at 100k rows took ~30 ms). These columns must then not change in
        place while the result is in use (see ``ColumnSnapshot``: it copies before it does).
        """
        several: dict[str, frozenset[str]] = {}
        if self.several:
            ids = set(self.ids[rows].tolist())
            several = {k: v for k, v in self.several.items() if k in ids}
        if lazy:
            taken = object.__new__(_LazyColumns)
            if isinstance(rows, slice):
                size = len(range(*rows.indices(len(self))))
            else:
                size = int(np.count_nonzero(rows)) if rows.dtype == np.bool_ else len(rows)
            taken.__dict__.update(vocab=self.vocab, several=several, _of=(self, rows, size))
            return taken
        arrays = {name: getattr(self, name)[rows] for name in ARRAY_FIELDS}
        return Columns(vocab=self.vocab, several=several, **arrays)

    def extended(self, other: Columns) -> Columns:
        """These rows, then ``other``'s (coded against the same vocabularies)."""
        if other.vocab is not self.vocab:
            raise ValueError("columns coded against different vocabularies cannot be joined")
        arrays = {
            name: np.concatenate([getattr(self, name), getattr(other, name)])
            for name in ARRAY_FIELDS
        }
        return Columns(vocab=self.vocab, several={**self.several, **other.several}, **arrays)

    def assign(self, rows: npt.NDArray[np.intp], other: Columns) -> None:
        """Overwrite ``rows`` (in place) with ``other``'s rows, in order."""
        for name in ARRAY_FIELDS:
            target = getattr(self, name)
            values = getattr(other, name)
            if name == "ids" and values.dtype.itemsize > target.dtype.itemsize:
                target = target.astype(values.dtype)  # a longer id than any before
                setattr(self, name, target)
            target[rows] = values
        for memory_id in self.ids[rows].tolist():
            self.several.pop(memory_id, None)
        self.several.update(other.several)

    # -- questions policies ask ----------------------------------------------------------------

    def current(self, now: datetime) -> Flags:
        """Neither forgotten nor superseded as of ``now``."""
        result: Flags = ~self.forgotten & (self.valid_until > micros(now))
        return result

    def in_project(self, project: str) -> Flags:
        """Belongs to ``project`` (by a ``project:`` tag or the project field)."""
        mask: Flags = self.project == self.vocab.projects.lookup(project)
        if self.several:
            for row in np.flatnonzero(self.project == SEVERAL).tolist():
                mask[row] = project in self.several[str(self.ids[row])]
        return mask

    def has_project(self) -> Flags:
        """Belongs to any project."""
        result: Flags = self.project != NONE
        return result

    def of_types(self, names: Iterable[str]) -> Flags:
        """The memory's type is one of ``names``."""
        codes = [self.vocab.types.lookup(n) for n in names]
        return np.isin(self.type, codes)

    def type_index(self, names: Sequence[str]) -> npt.NDArray[np.intp]:
        """For each row, the position of its type in ``names`` (-1 if not there)."""
        positions = {name: i for i, name in enumerate(names)}
        table = np.array(
            [positions.get(t, -1) for t in self.vocab.types.names] + [-1], dtype=np.intp
        )
        result: npt.NDArray[np.intp] = table[self.type]  # NONE (-1) reads the trailing -1
        return result

    def type_names(self, rows: Iterable[int]) -> list[str]:
        """The type of each row."""
        names = self.vocab.types.names
        return [names[int(code)] for code in self.type[list(rows)]]


def first_copies(parts: list[Columns]) -> list[Columns]:
    """The parts without a memory an earlier part holds already (a pack exported from this
    store and mounted beside it holds the same ids): local first, each memory briefed once."""
    if len(parts) < 2:
        return parts
    kept = [parts[0]]
    seen = parts[0].ids
    for part in parts[1:]:
        again = np.isin(part.ids, seen)
        if again.any():
            part = part.take(~again)
        kept.append(part)
        seen = np.concatenate([seen, part.ids])
    return kept


ARRAY_FIELDS = tuple(f.name for f in fields(Columns) if f.name not in ("vocab", "several"))
_ARRAY_NAMES = frozenset(ARRAY_FIELDS)


class _LazyColumns(Columns):
    """Rows of other columns (``Columns.take(rows, lazy=True)``), each array taken on first
    use and kept."""

    def __getattr__(self, name: str) -> Any:  # only called for what is not there yet
        if name not in _ARRAY_NAMES:
            raise AttributeError(name)
        source, rows, _ = self.__dict__["_of"]
        value = getattr(source, name)[rows]
        self.__dict__[name] = value
        return value

    def __len__(self) -> int:
        return int(self.__dict__["_of"][2])

    def derived(self, key: str, make: Callable[[Columns], Floats]) -> Floats:
        made: dict[str, Floats] = self.__dict__.setdefault("_derived", {})
        if key not in made:
            source, rows, _ = self.__dict__["_of"]
            made[key] = source.derived(key, make)[rows]
        return made[key]
