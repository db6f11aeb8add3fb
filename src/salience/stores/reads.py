"""Which store reads a replica may answer (see :mod:`salience.stores.postgres.replica`).

A store method marked :func:`replica_read` is a read made for a person (a recall's full text
and records, a list, the audit log, traces): inside a verb that routed its reads to a replica,
its queries go there. Every other method reads the primary. Stores without a replica ignore
the mark.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from functools import update_wrapper
from typing import Concatenate, ParamSpec, TypeVar

_S = TypeVar("_S")
_T = TypeVar("_T")
_P = ParamSpec("_P")

REPLICA_READ: ContextVar[bool] = ContextVar("salience_replica_read", default=False)
LOOK: ContextVar[dict[object, object] | None] = ContextVar("salience_look", default=None)
"""One look at the store for a whole read verb: values a store would ask its server for more
than once in the verb (its change marker, its vectors' version), asked once. The verb reads
the store as it was at that moment, as if it had run then; writes of this process since are
counted apart (they change the marker by themselves)."""


def looked(key: object, ask: Callable[[], _T]) -> _T:
    """``ask()``, once per look (every time outside one)."""
    look = LOOK.get()
    if look is None:
        return ask()
    if key not in look:
        look[key] = ask()
    return look[key]  # type: ignore[return-value]


class OneLook:
    """``with OneLook():`` — one look at the store for the reads inside (:data:`LOOK`)."""

    __slots__ = ("_token",)

    def __enter__(self) -> None:
        self._token = LOOK.set({})

    def __exit__(self, *_: object) -> None:
        LOOK.reset(self._token)


def look_again() -> None:
    """Forget what this look saw: the reads after ask the store again (a verb that found the
    store changed under it, such as a briefing whose memory was deleted meanwhile, retries
    on the store as it is now)."""
    look = LOOK.get()
    if look is not None:
        look.clear()


def replica_read(method: Callable[Concatenate[_S, _P], _T]) -> Callable[Concatenate[_S, _P], _T]:
    """Mark a store method as one a replica may answer."""

    def run(self: _S, /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
        token = REPLICA_READ.set(True)
        try:
            return method(self, *args, **kwargs)
        finally:
            REPLICA_READ.reset(token)

    update_wrapper(run, method)
    return run
