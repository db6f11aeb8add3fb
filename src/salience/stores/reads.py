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

REPLICA_READ: ContextVar[bool] = ContextVar("salience_replica_read", default=False)

_S = TypeVar("_S")
_T = TypeVar("_T")
_P = ParamSpec("_P")


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
