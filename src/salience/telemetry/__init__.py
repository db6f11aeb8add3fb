"""Traces: OpenTelemetry spans for writes, recalls (and their stages), briefings and jobs.

Off unless ``SALIENCE_OTEL`` says otherwise (``on``: spans go to the tracer provider the
application set up; ``console`` or ``otlp``: salience sets one up, printing spans on stderr or
sending them to ``OTEL_EXPORTER_OTLP_ENDPOINT``). The ``otel`` extra holds OpenTelemetry
(``pip install 'salience[otel]'``); while traces are off nothing of it is imported and a span
costs one call.

A span's attributes are counts, timings, names of settings (profile, outcome, job kind) and
the tenant, never text: :func:`span` refuses a string attribute whose key is not one of
:data:`NAMED`, so no query, memory or reason can reach an exporter by mistake.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from functools import wraps
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from salience.telemetry.setup import _state, configure, disable, enable

if TYPE_CHECKING:
    from opentelemetry.trace import Span, Tracer

# The only attributes that may hold a string: names chosen by salience or by the operator.
NAMED = frozenset({"profile", "tenant", "outcome", "kind", "store", "space", "fusion", "mode"})
Attribute = int | float | bool | str
_T = TypeVar("_T")
_P = ParamSpec("_P")


class Stage:
    """An open span: :meth:`set` adds attributes (the same rules as :func:`span`)."""

    __slots__ = ("_span",)

    def __init__(self, span: Span | None) -> None:
        self._span = span

    def set(self, **attributes: Attribute | None) -> None:
        """Add attributes to the span (None values are left out)."""
        if self._span is not None:
            self._span.set_attributes(_checked(attributes))


_OFF = Stage(None)


class _Nothing(AbstractContextManager[Stage]):
    """The span of traces turned off: nothing is measured or kept."""

    def __enter__(self) -> Stage:
        return _OFF

    def __exit__(self, *_: object) -> None:
        return None


_NOTHING = _Nothing()


def _checked(attributes: dict[str, Attribute | None]) -> dict[str, Attribute]:
    kept: dict[str, Attribute] = {}
    for key, value in attributes.items():
        if value is None:
            continue
        if isinstance(value, str) and key not in NAMED:
            raise TypeError(f"span attribute {key!r} may not hold text (only {sorted(NAMED)})")
        if not isinstance(value, int | float | bool | str):
            raise TypeError(f"span attribute {key!r} must be a number, a bool or a name")
        kept[f"salience.{key}"] = value
    return kept


def active() -> bool:
    """Whether spans are being made."""
    return _state.tracer is not None


def span(name: str, **attributes: Attribute | None) -> AbstractContextManager[Stage]:
    """A span named ``salience.<name>``, a child of the current one, with ``attributes``
    (numbers, bools, and strings only for the keys in :data:`NAMED`)."""
    if _state.tracer is None:
        return _NOTHING
    return _live(_state.tracer, name, attributes)


@contextmanager
def _live(tracer: Tracer, name: str, attributes: dict[str, Attribute | None]) -> Iterator[Stage]:
    with tracer.start_as_current_span(f"salience.{name}", attributes=_checked(attributes)) as s:
        yield Stage(s)


def traced(name: str) -> Callable[[Callable[_P, _T]], Callable[_P, _T]]:
    """A verb run inside a span ``salience.<name>`` (:func:`note` adds to it)."""

    def wrap(verb: Callable[_P, _T]) -> Callable[_P, _T]:
        @wraps(verb)
        def run(*args: _P.args, **kwargs: _P.kwargs) -> _T:
            if _state.tracer is None:
                return verb(*args, **kwargs)
            with _live(_state.tracer, name, {}):
                return verb(*args, **kwargs)

        return run

    return wrap


def note(**attributes: Attribute | None) -> None:
    """Add attributes to the current span (the same rules as :func:`span`)."""
    if _state.tracer is None:
        return
    from opentelemetry import trace

    current = trace.get_current_span()
    if current.is_recording():
        current.set_attributes(_checked(attributes))


def carried(work: Callable[[], _T]) -> Callable[[], _T]:
    """``work`` to run on another thread in the calling context (the current span, where
    reads go): a worker thread does not inherit the caller's context variables."""
    context = contextvars.copy_context()
    return lambda: context.run(work)


__all__ = [
    "NAMED",
    "Stage",
    "active",
    "carried",
    "configure",
    "disable",
    "enable",
    "note",
    "span",
    "traced",
]
