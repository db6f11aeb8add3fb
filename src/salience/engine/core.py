"""The engine's state and the helpers every group of verbs shares (see :mod:`~.memory`)."""

from __future__ import annotations

import builtins
import threading
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Self

from salience import telemetry
from salience.briefing.source import BriefingSource, saved_columns
from salience.clock import Clock, as_utc, system_clock
from salience.config import Config
from salience.embeddings import Embedder, load_embedder
from salience.engine.access import Access
from salience.engine.degraded import IndexWatch
from salience.engine.reading import person_reads
from salience.engine.touches import Touches
from salience.errors import (
    ConfigError,
    ConflictError,
    InvalidInputError,
    LayerError,
    NotFoundError,
    ReadOnlyLayerError,
)
from salience.models import LOCAL_LAYER, AllUsers, MemoryRecord, Status, UserScope, relabel
from salience.models.spaces import SPACE_PREFIX, current_reach
from salience.profiles import Profile, ProfileSettings, get_profile
from salience.sharing.layers import Layer, open_layer
from salience.stores.base import Store
from salience.text import HeldTexts
from salience.write.records import WRITABLE_FIELDS, validate_field

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

    from salience.embeddings.arrays import Vector
    from salience.lifecycle.llm import Summarizer
    from salience.models import UpdateLink, WriteResult
    from salience.search.vectors import Vectors
    from salience.write.authority import Authority


RECORD_EVERY_S = 1.0
"""Recalls are recorded at most this often: a kill -9 may lose the last second, no memory."""
USERS_HELD = 4096  # (users whose open sure update links an engine keeps: their why has words)

STALE_TAG = "stale"  # (a memory derived from one that changed since; beside stale:<how>)


class EngineCore(Access):
    """What a :class:`~salience.engine.memory.Memory` holds: the store, configuration, clock,
    embedder, mounted layers; and the helpers its verbs share (audit, vectors, lookups)."""

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
        self._gate: Authority | None = None  # (made on first write: see _authority)
        self._briefings = BriefingSource(store, saved_columns(store))  # (or read on first use)
        self._llm = llm  # loaded from the config on first use: only consolidation needs it
        self._config = config or Config.from_env()
        self._clock = clock
        self._settings = ProfileSettings.from_config(self._config)
        get_profile(self._config.profile)  # an unknown default profile fails here, clearly
        telemetry.configure(self._config.otel)
        self._embedder = load_embedder(self._config) if embedder == "config" else embedder
        self._vector_store: Vectors | None = None  # built on first use: NumPy loads lazily
        self._warm_bytes = 0  # (see long_running)
        self._pool: ThreadPoolExecutor | None = None
        self._open_layers: dict[str, Layer] = {}  # mounted layers opened so far, by name
        self._unavailable: dict[str, str] = {}  # mounted layers that would not open, and why
        self._indexes = IndexWatch(store)  # whether its indexes hold every memory (recall)
        self._sure_seen: HeldTexts[str | None, tuple[tuple[int, int], builtins.list[UpdateLink]]]
        self._sure_seen = HeldTexts(USERS_HELD)  # (by user: a marker, and links with why)
        self._state_lock = threading.RLock()  # the lazily made parts above, for every thread
        # Recalls are recorded apart (engine/record.py): an access count waits for that only.
        self._records = Touches(store, every=RECORD_EVERY_S)
        self._touches = Touches(store, ours=self._records)
        self._stopping = threading.Event()  # set on close: running jobs stop (see .jobs)
        self._threads: builtins.list[threading.Thread] = []  # joined on close (.scrubbing)
        self._started: builtins.set[str] = set()  # the jobs this engine started
        self._pending_erasure: bool | None = None  # None: not looked yet (engine/forgetting)

    @property
    def store(self) -> Store:
        """The store this engine writes to."""
        return self._store

    @property
    def vectors(self) -> Vectors:
        """The store's embeddings and the embedder that makes them."""
        if self._vector_store is None:
            with self._state_lock:
                return self._make_vectors()
        return self._vector_store

    def _make_vectors(self) -> Vectors:
        if self._vector_store is None:
            from salience.search.ann import ApproximateIndex, UsearchIndex
            from salience.search.vectors import Vectors
            from salience.stores.registry import backend_of, keeper_of

            kind = self._config.vector_index
            backend = backend_of(self._store.location)
            own = backend.vector_index  # (an index the store keeps itself: pgvector)
            ann: ApproximateIndex | None = None
            pgvector_from = None
            if kind == "usearch":
                ann = UsearchIndex(Path(self._store.location + ".usearch"))
            elif kind not in ("exact", "auto") and kind != own:
                keeper = keeper_of(kind)
                where = "a store that keeps it" if keeper is None else f"a {keeper.title} store"
                raise ConfigError(f"vector_index = {kind!r} needs {where}")
            elif own is not None and kind in (own, "auto"):
                pgvector_from = self._config.pgvector_from
            self._vector_store = Vectors(
                self._store,
                self._embedder,
                ann,
                pgvector_from=pgvector_from,
                warm_bytes=self._warm_bytes,
            )
        return self._vector_store

    def long_running(self) -> None:
        """Say that this process answers many requests (a server): a PostgreSQL store that
        its HNSW index searches then has its vectors loaded into memory meanwhile, within
        ``SALIENCE_PGVECTOR_WARM_MB`` (:mod:`salience.search.warm`)."""
        with self._state_lock:
            self._warm_bytes = self._config.pgvector_warm_mb << 20
            if self._vector_store is not None:
                self._vector_store.keep_warm(self._warm_bytes)

    @property
    def config(self) -> Config:
        """The settings in force."""
        return self._config

    def now(self) -> datetime:
        """The engine's current time (injectable through ``clock``)."""
        return self._clock()

    def _at(self, as_of: datetime | None) -> datetime:
        """The time a verb acts at: ``as_of`` (without an offset, UTC: the one rule of
        :mod:`salience.clock`), else now."""
        return self.now() if as_of is None else as_utc(as_of)

    def profile(self, name: str | None = None) -> Profile:
        """The named profile, or the configured default (``SALIENCE_PROFILE``)."""
        return get_profile(name or self._config.profile)

    def close(self) -> None:
        """Persist the approximate index (if any), then close the store."""
        try:
            self._touches.flush()
            self._records.flush()
            if self._vector_store is not None:
                self._vector_store.close()
        finally:
            self._stopping.set()  # (and threads of its own stop: a server's upkeep)
            for thread in self._threads:
                thread.join()
            if self._pool is not None:
                self._pool.shutdown(wait=True)
                self._pool = None
            for layer in self._open_layers.values():
                layer.close()
            self._open_layers.clear()
            self._store.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _audit(
        self, action: str, memory_id: str | None, actor: str, owner: str | None, **detail: Any
    ) -> None:
        """Append one audit entry about ``owner``'s memory (joins the caller's transaction),
        naming the agent that made the change, if the request names one."""
        from salience.models.store_records import AuditEntry

        agent = current_reach().agent
        if agent is not None:
            detail.setdefault("agent", agent)
        entry = AuditEntry(self.now(), memory_id, action, actor, detail, user=owner)
        self._store.append_audit([entry])

    def _rejected(self, result: WriteResult, actor: str, owner: str | None) -> WriteResult:
        """Log a refused write (gate and reason: never the refused text) and return it. A user
        name that is itself a secret is not logged either."""
        from salience.write.gates.secrets import first_secret  # (its patterns: on first use)

        if owner is not None and first_secret(owner) is not None:
            owner = None
        self._audit("reject", None, actor, owner, gate=result.gate, reason=result.reason)
        return result

    def _scope(self, user: UserScope) -> str | None:
        """The one user a verb acts for (the configured default for None), or None for
        :data:`ALL_USERS`."""
        if user is None:
            return self._config.user
        if isinstance(user, AllUsers):
            return None
        checked = validate_field("user", user)
        assert isinstance(checked, str)
        if checked.startswith(SPACE_PREFIX):
            raise InvalidInputError(
                f"no user is named {SPACE_PREFIX!r}...: that names a space (pass space=)",
                field="user",
            )
        return checked

    def _one_user(self, user: UserScope, verb: str) -> str:
        """:meth:`_scope` for verbs that act for exactly one user."""
        scope = self._scope(user)
        if scope is None:
            raise InvalidInputError(f"{verb} acts for one user: name it", field="user")
        return scope

    def _embed_one(self, text: str) -> Vector | None:
        if self._embedder is None:
            return None
        matrix = self.vectors.embed([text])
        return None if matrix is None else matrix[0]

    def _put_vector(self, memory_id: str, vector: Vector | None) -> None:
        if vector is not None:
            self.vectors.put(memory_id, vector)

    @person_reads
    def get(self, memory_id: str, *, user: UserScope = None) -> MemoryRecord:
        """The user's memory with this id, whatever its status, local or from a mounted layer
        (``layer`` names it); :class:`NotFoundError` if none (also for another user's id)."""
        scope = self._scope(user)
        record = self._store.get(memory_id)
        if record is not None:
            return self._owned(record, scope, memory_id)
        for layer in self._mounted():
            found = layer.store.get(memory_id)
            if found is not None:
                return relabel(_owned(found, scope, memory_id), layer.name)
        raise NotFoundError(memory_id)

    def _local(self, memory_id: str, verb: str, scope: str | None) -> MemoryRecord:
        """A memory of ``scope``'s in the local layer, the only one writes may touch; a memory
        of a mounted layer is refused with :class:`ReadOnlyLayerError`."""
        record = self._store.get(memory_id)
        if record is not None:
            return self._owned(record, scope, memory_id, verb)
        for layer in self._mounted():
            found = layer.store.get(memory_id)
            if found is not None:
                _owned(found, scope, memory_id)
                raise layer.refuse(memory_id, verb)
        raise NotFoundError(memory_id)

    @property
    def _authority(self) -> Authority:
        """The one way a memory row changes (made on the first write: a briefing needs none)."""
        gate = self._gate
        if gate is None:  # (two threads may both make one: it holds only the store)
            from salience.write.authority import Authority

            gate = self._gate = Authority(self._store)
        return gate

    def _stale_after(
        self, changed: MemoryRecord, how: str, records: builtins.list[MemoryRecord] | None = None
    ) -> int:
        """Inside the caller's write transaction: mark every current memory that depends on
        ``changed`` (transitively: :mod:`~salience.engine.dependents`), or each of
        ``records``, stale, saying how its source changed (``superseded``, ``updated``,
        ``forgotten``, ``purged``); each once, audited. How many were marked."""
        from salience.engine.dependents import dependents
        from salience.write.authority import decide

        now = self.now()
        if records is None:
            records = [d.record for d in dependents(self._store, changed, now)]
        marked = 0
        for record in records:
            if not record.is_current(now) or STALE_TAG in record.tags:
                continue
            tags = (*record.tags, STALE_TAG, f"{STALE_TAG}:{how}")
            marked_stale = replace(record, tags=tags, updated_at=now)
            self._authority.write(decide("stale", record, marked_stale))
            self._audit("stale", record.id, "system", record.user, source=changed.id, how=how)
            marked += 1
        return marked

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

    def _current(self, memory_id: str, verb: str, scope: str | None) -> MemoryRecord:
        record = self._local(memory_id, verb, scope)
        status = record.status(self.now())
        if status is not Status.CURRENT:
            raise ConflictError(
                f"cannot {verb} memory {memory_id}: it is {status.value}", memory_id=memory_id
            )
        return record

    def _mounted(self) -> builtins.list[Layer]:
        """The mounted layers, open (re-read from the store: another process may have changed
        them). A layer that cannot be opened is left out and kept in :meth:`unavailable_layers`."""
        with self._state_lock:
            return self._open_mounted()

    def _open_mounted(self) -> builtins.list[Layer]:
        mounts = self._store.layers()
        current = {m.name: m for m in mounts}
        for name, layer in builtins.list(self._open_layers.items()):
            if current.get(name) != layer.mount:
                layer.close()
                del self._open_layers[name]
        self._unavailable = {}
        for mount in mounts:
            if mount.name not in self._open_layers:
                try:
                    store = open_layer(mount, self._config.busy_timeout_ms)
                except LayerError as exc:  # deleted, damaged: searched without it, and said
                    self._unavailable[mount.name] = str(exc)
                    continue
                self._open_layers[mount.name] = Layer(mount, store)
        return [self._open_layers[m.name] for m in mounts if m.name in self._open_layers]

    def unavailable_layers(self) -> dict[str, str]:
        """Mounted layers that cannot be opened now (name -> why): recall and briefings go on
        without them."""
        with self._state_lock:
            self._mounted()
            return dict(self._unavailable)

    def _layer_vectors(self, layer: Layer) -> Vectors | None:
        """The layer's vectors if they were made by this engine's embedder, else None."""
        if self._embedder is None:
            return None
        with self._state_lock:
            if layer.vectors is None:
                from salience.search.vectors import Vectors

                layer.vectors = Vectors(layer.store, self._embedder)
        stored = layer.vectors.stored_identity()
        if stored != self._embedder.identity or not layer.vectors.count():
            return None
        return layer.vectors


def _owned(record: MemoryRecord, scope: str | None, memory_id: str) -> MemoryRecord:
    """The record if it is ``scope``'s (any user's for None), else "not found": another
    user's memory does not exist for this one."""
    if scope is not None and record.user != scope:
        raise NotFoundError(memory_id)
    return record


def changed_fields(old: MemoryRecord, new: MemoryRecord) -> dict[str, Any]:
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


def changed_since(current: MemoryRecord, planned: MemoryRecord) -> bool:
    """Whether ``current`` differs from the version a plan was made from, access counts
    aside (a recall's touch changes no plan)."""
    unchanged = replace(
        current, access_count=planned.access_count, last_accessed_at=planned.last_accessed_at
    )
    return unchanged != planned
