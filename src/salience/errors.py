"""The exceptions salience raises.

Every error is a :class:`SalienceError`; catch that to handle them all. The tree::

    SalienceError
    ├── InvalidInputError        bad field value; ``field`` names it
    │   ├── ImportFormatError    a bad line in a JSON Lines import; ``line`` names it
    │   └── OverLimitError       work passed one of its limits; ``field`` names the setting
    ├── NotFoundError            no memory with that id; ``memory_id``
    ├── ConflictError            the memory is in a state that forbids the change
    ├── ForbiddenError           the writer's standing does not allow the change (the write
    │                            authority: a memory above the writer, or a person's decision)
    ├── ConfigError              a bad setting or an unsupported store URL
    ├── TooManyJobsError         the user has as many jobs waiting as they may: try later
    ├── EmbedderError            the embedder failed or does not match the store's vectors
    ├── LayerError               a layer cannot be mounted or opened
    │   └── ReadOnlyLayerError   a write aimed at a mounted (read-only) layer
    ├── PackError                a knowledge pack is damaged, of an unknown version, or unusable
    ├── LLMError                 the configured LLM endpoint failed (callers fall back)
    ├── RemoteError              a salience server answered an error (``status``, ``code``)
    │   └── AccessError          the server refused the key (401) or the request (403)
    └── StoreError               the storage itself
        ├── NotASalienceDatabaseError   the file is not a salience database
        ├── StoreDamagedError           the file is a salience database, damaged
        ├── SchemaTooNewError           written by a newer salience; ``unknown`` migrations
        ├── StoreReadOnlyError          the home or the file cannot be written
        └── StoreBusyError              another process held the lock for too long

Messages never repeat secret material: they name fields, kinds and positions, not values.
"""

from __future__ import annotations


class SalienceError(Exception):
    """Base class of every error salience raises on purpose."""


class InvalidInputError(SalienceError, ValueError):
    """A value given to salience is not acceptable; nothing was changed."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class ImportFormatError(InvalidInputError):
    """A line of a JSON Lines import is malformed; the whole import was refused."""

    def __init__(self, message: str, *, line: int, field: str | None = None) -> None:
        super().__init__(f"line {line}: {message}", field=field)
        self.line = line


class OverLimitError(InvalidInputError):
    """Work passed one of its limits (a job's time, the rows or bytes an import may read, a
    zip's unpacked size): it stopped, and applied nothing. ``field`` names the setting that
    sets the limit (``job_rows``), so that a user who trusts the input may raise it."""


class NotFoundError(SalienceError, LookupError):
    """No memory has the given id."""

    def __init__(self, memory_id: str, message: str | None = None) -> None:
        """``message`` says what is missing when it is not a memory (a decision's topic)."""
        shown = memory_id if len(memory_id) <= 80 else memory_id[:79] + "…"
        super().__init__(message or f"no memory with id {shown!r}")
        self.memory_id = memory_id


class ConflictError(SalienceError):
    """The memory's state forbids the requested change (e.g. updating a superseded one)."""

    def __init__(self, message: str, *, memory_id: str | None = None) -> None:
        super().__init__(message)
        self.memory_id = memory_id


class ForbiddenError(SalienceError, PermissionError):
    """The write authority refused the change: the memory stands above the writer (an
    agent's key on the user's own memory), or the decision is a person's (quarantine, stale
    marks). Nothing was changed. ``memory_id`` and ``field`` name what was refused."""

    def __init__(
        self, message: str, *, memory_id: str | None = None, field: str | None = None
    ) -> None:
        super().__init__(message)
        self.memory_id = memory_id
        self.field = field


class ConfigError(SalienceError):
    """A setting is invalid, or a store URL names an unsupported backend."""


class TooManyJobsError(SalienceError):
    """The user has as many jobs running and waiting as they may (``jobs_queued``): nothing
    was started; ask again once one has finished."""


class EmbedderError(SalienceError):
    """The embedder could not embed, or its vectors do not belong in this store."""


class LayerError(SalienceError):
    """A layer cannot be mounted, found or opened; nothing was changed."""


class ReadOnlyLayerError(LayerError):
    """A write was aimed at a mounted layer: writes always go to the local layer."""


class PackError(SalienceError):
    """A knowledge pack cannot be written or read (bad checksum, unknown version, ...)."""


class LLMError(SalienceError):
    """The configured LLM endpoint failed or answered something unusable."""


class StoreError(SalienceError):
    """The storage could not do what was asked."""


class NotASalienceDatabaseError(StoreError):
    """The file exists but is not a salience database."""

    def __init__(self, path: str, detail: str) -> None:
        super().__init__(f"{path} is not a salience database ({detail})")
        self.path = path


class StoreDamagedError(StoreError):
    """The database file is damaged (SQLite found malformed pages)."""

    def __init__(self, path: str) -> None:
        super().__init__(
            f"{path} is damaged (SQLite reports a malformed database image); copy out what "
            "still reads with `salience export`, or restore a backup"
        )
        self.path = path


class SchemaTooNewError(StoreError):
    """The database was written by a newer salience; this version will not touch it."""

    def __init__(self, path: str, unknown: list[str]) -> None:
        names = ", ".join(unknown)
        super().__init__(
            f"{path} was written by a newer version of salience (unknown migrations: {names}); "
            "upgrade salience to open it"
        )
        self.path = path
        self.unknown = unknown


class StoreReadOnlyError(StoreError):
    """The home directory or the database file cannot be written."""

    def __init__(self, path: str) -> None:
        super().__init__(f"cannot write to {path}: it is read-only (check permissions or --home)")
        self.path = path


class StoreBusyError(StoreError):
    """Another process held the database lock longer than the busy timeout."""


class RemoteError(SalienceError):
    """A salience server answered with an error the library has no closer class for."""

    def __init__(self, message: str, *, status: int, code: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


class AccessError(RemoteError):
    """The server refused the API key (401) or what the key asked for (403)."""
