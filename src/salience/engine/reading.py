"""Verbs that read for a person: where their reads go (a store's read replica, when it has
one and it has replayed the caller's writes: see :mod:`salience.stores.postgres.replica`)."""

from __future__ import annotations

from collections.abc import Callable
from functools import update_wrapper
from typing import Concatenate, ParamSpec, Protocol, TypeVar

from salience.stores.base import Store


class _HasStore(Protocol):
    _store: Store


_E = TypeVar("_E", bound=_HasStore)
_P = ParamSpec("_P")
_T = TypeVar("_T")


def person_reads(
    verb: Callable[Concatenate[_E, _P], _T],
) -> Callable[Concatenate[_E, _P], _T]:
    """A verb that reads for a person (recall, briefing, list, history...): its reads may go
    to the store's read replica, decided once on entry (see ``Store.route_reads``)."""

    def run(engine: _E, /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
        with engine._store.route_reads():
            return verb(engine, *args, **kwargs)

    update_wrapper(run, verb)
    return run
