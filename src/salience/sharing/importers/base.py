"""What every importer gives: the memories it found in another system's store, in salience's
terms, with what it could not map and what it had to leave out."""

from __future__ import annotations

import json
import re
import sqlite3
import struct
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from salience import budget
from salience.errors import InvalidInputError


@dataclass
class Item:
    """One memory of the source system. ``external_id`` is ``SYSTEM:ID`` (the same on every
    run: it makes a second import a no-op); ``supersedes`` is the external id of the version
    this one replaced; ``forgotten`` says why the source deleted or disabled it;
    ``owner_known`` False: the source keeps users but not this record's (it is imported only
    for one named user, never handed to the default user of an import of every user)."""

    external_id: str
    content: str
    type: str
    created_at: datetime
    updated_at: datetime | None = None
    title: str | None = None
    tags: list[str] = field(default_factory=list)
    importance: float | None = None
    confidence: float | None = None
    priority: float | None = None
    access_count: int = 0
    last_accessed_at: datetime | None = None
    revision_count: int = 1
    project: str | None = None
    topic_key: str | None = None
    session_id: str | None = None
    source_user: str | None = None
    forgotten: str | None = None
    supersedes: str | None = None
    valid_until: datetime | None = None
    entities: list[str] = field(default_factory=list)
    derived_from: list[str] = field(default_factory=list)  # external ids
    owner_known: bool = True


MALFORMED: tuple[type[Exception], ...] = (AttributeError, TypeError, KeyError, IndexError)
MALFORMED += (ValueError, OverflowError, RecursionError, struct.error)
"""What a reader meets in data its source never writes (a list of numbers where objects
belong, a point without a payload): bad input, never a 500."""
UNREADABLE: tuple[type[Exception], ...] = (InvalidInputError, *MALFORMED)
"""What makes one record unreadable: it is skipped, named, with why."""


@dataclass
class Harvest:
    """What an importer read: the items, each source field that had values it could not map
    (with how many records had one), and the records it left out (external id, why)."""

    system: str
    items: list[Item] = field(default_factory=list)
    unmappable: Counter[str] = field(default_factory=Counter)
    skipped: list[tuple[str, str]] = field(default_factory=list)

    def add(self, record: object, make: Callable[..., Item], *args: object) -> None:
        """Add the item ``make(*args)`` maps ``record`` to; a record it cannot read (a value of
        a shape the source never writes) is skipped, named by its id, with why: never dropped
        silently, and never the end of the whole import."""
        try:
            self.items.append(make(*args))
        except UNREADABLE as exc:
            self.skipped.append((self._named(record), self.why(exc)))

    def why(self, exc: Exception) -> str:
        """Why a record could not be read, said without its values."""
        if isinstance(exc, InvalidInputError):
            return str(exc)
        return f"it is not a record {self.system} writes ({type(exc).__name__})"

    def _named(self, record: object) -> str:
        found = (record.get("id") or record.get("uuid")) if isinstance(record, dict) else None
        return (
            f"{self.system}:{found}" if found not in (None, "") else f"{self.system}:{record!r:.60}"
        )

    def unmapped(self, name: str, value: object) -> None:
        """Count a field with a value that has no meaning in salience."""
        if value not in (None, "", [], {}, 0, False):
            self.unmappable[name] += 1


def moment(value: object, *, file_time: float | None = None) -> datetime:
    """A source's time as an aware UTC datetime: ISO 8601 (``Z``, an offset, or none: UTC),
    SQLite's ``YYYY-MM-DD HH:MM:SS``, or a file's mtime when the source has no time."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, str) and value.strip():
        text = value.strip().replace(" ", "T", 1)
        if text.endswith("Z"):
            text = text[:-1] + "+00:00"
        try:
            parsed = datetime.fromisoformat(text)
        except ValueError:
            raise InvalidInputError(f"{value!r} is not a time this importer reads") from None
        return (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).astimezone(UTC)
    if file_time is not None:
        return datetime.fromtimestamp(file_time, UTC)
    raise InvalidInputError("a record has no time")


READ_STEPS = 2_000_000_000
"""The most virtual-machine steps an import may spend reading another system's SQLite store
(a real store of 100k memories takes a small part of that); past it, the read stops."""
STEPS_EVERY = 100_000
"""Steps between two checks of the budget while SQLite reads (a few milliseconds)."""
_RECURSIVE = 33  # SQLITE_RECURSIVE: a recursive common table expression
_READ = 20  # SQLITE_READ: a column read (its table and column, and the view reading it)
_PRAGMAS = frozenset({"table_info", "table_xinfo"})


def open_read_only(path: Path) -> sqlite3.Connection:
    """A SQLite store of another system, opened as untrusted: read-only (its WAL, if any,
    read, never written), ``trusted_schema`` off (its triggers call no function that has
    side effects), defensive where Python offers it (3.12+; below, read-only and
    ``query_only`` already forbid every write), queries only, tables only (a read through a
    view is refused, a generated column reads as NULL: neither computes anything of the
    file's), no recursive query, no value over :attr:`~salience.budget.Limits.value_bytes`,
    every row charged to the active :class:`~salience.budget.Budget`, which is checked (time,
    memory, a cancel) every :data:`STEPS_EVERY` steps, and at most :data:`READ_STEPS` steps.

    A schema whose generated columns or indexes call a built-in without side effects that
    this SQLite does not mark innocuous (:data:`PURE`: ``json_extract`` before 3.45, as
    basic-memory's index does) cannot even be parsed with ``trusted_schema`` off: it is read
    with it on, since nothing of the schema is ever computed by these reads (above)."""
    for trusted in (False, True):
        try:
            return _open(path, trusted=trusted)
        except sqlite3.Error as exc:
            unsafe_use = _UNSAFE.search(str(exc))
            if trusted or unsafe_use is None or unsafe_use.group(1).lower() not in PURE:
                said = f"{path.name} cannot be read as a SQLite database: {exc}"
                raise InvalidInputError(said) from None
    raise AssertionError("unreachable")  # pragma: no cover


PURE = frozenset(
    {"json", "json_extract", "json_type", "json_valid", "json_array_length", "lower", "upper"}
    | {"trim", "ltrim", "rtrim", "substr", "length", "coalesce", "ifnull", "abs", "round"}
)
"""Built-in functions without side effects that an older SQLite calls unsafe in a schema."""
_UNSAFE = re.compile(r"unsafe use of (\w+)\(\)")


def _open(path: Path, *, trusted: bool) -> sqlite3.Connection:
    spend = budget.active()
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        conn.execute(f"PRAGMA trusted_schema = {'ON' if trusted else 'OFF'}")
        conn.execute("PRAGMA query_only = ON")
        conn.execute("PRAGMA cell_size_check = ON")
        if hasattr(conn, "setconfig"):  # Python 3.12+
            conn.setconfig(sqlite3.SQLITE_DBCONFIG_DEFENSIVE, True)  # type: ignore[attr-defined]
        conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, spend.limits.value_bytes)
        conn.set_progress_handler(_steps(spend), STEPS_EVERY)
        conn.set_authorizer(_untrusted(_generated(conn)))
    except sqlite3.Error:
        conn.close()
        raise

    def charged(cursor: sqlite3.Cursor, row: tuple[object, ...]) -> sqlite3.Row:
        spend.row()
        return sqlite3.Row(cursor, row)

    conn.row_factory = charged
    return conn


def _generated(conn: sqlite3.Connection) -> frozenset[tuple[str, str]]:
    """Every generated column of the store's tables, as (table, column)."""
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    return frozenset(
        (table, row[1])
        for table in tables
        for row in conn.execute("SELECT * FROM pragma_table_xinfo(?)", (table,))
        if row[6] in (2, 3)  # hidden: 2 a virtual, 3 a stored generated column
    )


def _untrusted(generated: frozenset[tuple[str, str]]) -> Callable[..., int]:
    def decide(action: int, first: object, second: object, _db: object, view: object) -> int:
        if action == _READ:
            if view is not None:  # a column read by a view (or a trigger): tables only
                return sqlite3.SQLITE_DENY
            return sqlite3.SQLITE_IGNORE if (first, second) in generated else sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_PRAGMA:
            return sqlite3.SQLITE_OK if first in _PRAGMAS else sqlite3.SQLITE_DENY
        return sqlite3.SQLITE_DENY if action == _RECURSIVE else sqlite3.SQLITE_OK

    return decide


def _steps(spend: budget.Budget) -> Callable[[], int]:
    steps = 0

    def spent() -> int:  # (non-zero: SQLite stops the statement)
        nonlocal steps
        steps += STEPS_EVERY
        return int(steps > READ_STEPS or spend.interrupts())

    return spent


def unsafe(exc: sqlite3.Error) -> str:
    """What went wrong reading an untrusted store, said without its paths."""
    said = str(exc)
    if isinstance(exc, sqlite3.OperationalError) and "interrupted" in said:
        return f"reading it took more than {READ_STEPS:,} steps (a query that never ends?)"
    if isinstance(exc, sqlite3.DatabaseError) and "prohibited" in said:
        return "it reads through a view; an import reads tables only"
    if isinstance(exc, sqlite3.DatabaseError) and "not authorized" in said:
        return "it asks for a query an import does not run (a recursive one?)"
    if isinstance(exc, sqlite3.DataError) and "too big" in said:
        return f"a value in it is larger than {budget.active().limits.value_bytes:,} bytes"
    return type(exc).__name__


def columns(conn: sqlite3.Connection, table: str) -> set[str]:
    """The columns a table has (the importer reads only those it knows)."""
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def is_sqlite(path: Path) -> bool:
    """Whether ``path`` is a SQLite database file (by its header)."""
    try:
        with path.open("rb") as handle:
            return handle.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def read_json(path: Path, what: str) -> object:
    """A JSON file; a clear error naming ``what`` it should have been if it is not JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidInputError(f"{path} is not {what}: {exc}") from None


def read_note(file: Path, harvest: Harvest) -> str | None:
    """A text file's content; one that cannot be read is reported as skipped (None)."""
    try:
        return file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        harvest.skipped.append((str(file), f"cannot be read: {exc}"))
        return None


def slug_name(slug: str) -> str:
    """A project's name from a path written with every separator as ``-`` (Claude Code's
    project folders, eidet's repo ids): what follows ``home/<user>`` or ``Users/<user>``
    (``-home-dev-demo-app`` is ``demo-app``; a ``-`` cannot be told from a separator, so a
    deeper path keeps its folders joined)."""
    parts = [p for p in slug.split("-") if p]
    start = 2 if len(parts) > 2 and parts[0] in ("home", "Users") else 0
    return "-".join(parts[start:]) or slug
