"""Building, validating and serialising memory records.

``validate_*`` functions raise :class:`InvalidInputError` naming the field; nothing here does
I/O. :func:`to_json_dict` and :func:`from_json_dict` are exact inverses, so an export imported
into an empty store exports byte for byte the same.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from datetime import datetime
from typing import Any

from salience.clock import format_time, parse_time
from salience.errors import InvalidInputError
from salience.ids import is_ulid
from salience.models import FIELD_NAMES, SOURCES, MemoryRecord

MAX_SHORT_TEXT = 512
_CONTROL = re.compile(r"[\x00-\x1f]")
# Fields a caller may set when writing or updating; the rest are kept by the engine.
WRITABLE_FIELDS = (
    "type",
    "title",
    "tags",
    "user",
    "project",
    "topic_key",
    "source",
    "importance",
    "confidence",
    "priority",
    "layer",
    "session_id",
    "entities",
    "derived_from",
    "enabled",
)


def validate_content(content: object, max_bytes: int) -> str:
    """Content must be non-blank text of at most ``max_bytes`` UTF-8 bytes."""
    if not isinstance(content, str):
        raise InvalidInputError("content must be text", field="content")
    if not content.strip():
        raise InvalidInputError("content is empty", field="content")
    check_unicode(content, "content")
    size = len(content.encode("utf-8"))
    if size > max_bytes:
        raise InvalidInputError(
            f"content is {size} bytes, over the limit of {max_bytes} "
            "(set SALIENCE_MAX_CONTENT_BYTES to change it)",
            field="content",
        )
    return content


def check_unicode(text: str, name: str) -> None:
    """Refuse text that is not valid Unicode (a lone surrogate, e.g. undecodable bytes)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(
            f"{name} is not valid text: an undecodable character at position {exc.start}",
            field=name,
        ) from None


def validate_unit(value: object, name: str) -> float:
    """A number in [0, 1]; NaN, infinities, booleans and text are refused."""
    number = _number(value, name)
    if not 0.0 <= number <= 1.0:
        raise InvalidInputError(f"{name} must be between 0 and 1, got {number!r}", field=name)
    return number


def _number(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInputError(f"{name} must be a number", field=name)
    try:
        number = float(value)
    except OverflowError:  # an integer too large for a float
        raise InvalidInputError(f"{name} must be a finite number", field=name) from None
    if math.isnan(number) or math.isinf(number):
        raise InvalidInputError(f"{name} must be a finite number, got {number!r}", field=name)
    return number


MAX_COUNTER = 2**63 - 1  # the largest integer SQLite stores


def _counter(value: object, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= MAX_COUNTER:
        raise InvalidInputError(
            f"{name} must be a whole number from {minimum} to {MAX_COUNTER}", field=name
        )
    return value


def _short_text(value: object, name: str, *, optional: bool) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise InvalidInputError(f"{name} must be text", field=name)
    text = value.strip()
    if not text:
        if optional:
            return None
        raise InvalidInputError(f"{name} must not be empty", field=name)
    if len(text) > MAX_SHORT_TEXT or _CONTROL.search(text):
        raise InvalidInputError(
            f"{name} must be one line of at most {MAX_SHORT_TEXT} characters", field=name
        )
    check_unicode(text, name)
    return text


def _text_list(value: object, name: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise InvalidInputError(f"{name} must be a list of text", field=name)
    items: list[str] = []
    seen: set[str] = set()
    for item in value:
        text = _short_text(item, name, optional=False)
        assert text is not None
        if text not in seen:
            seen.add(text)
            items.append(text)
    return tuple(items)


def _ulid(value: object, name: str, *, optional: bool) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str) or not is_ulid(value):
        raise InvalidInputError(f"{name} must be a ULID (26 characters)", field=name)
    return value


def _time(value: object, name: str, *, optional: bool) -> datetime | None:
    if value is None and optional:
        return None
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise InvalidInputError(f"{name} must be timezone-aware", field=name)
        return value
    if isinstance(value, str):
        return parse_time(value, field=name)
    raise InvalidInputError(f"{name} must be an ISO 8601 time", field=name)


def _bool(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidInputError(f"{name} must be true or false", field=name)
    return value


def _source(value: object, name: str) -> str:
    if value not in SOURCES:
        raise InvalidInputError(
            f"source must be one of {', '.join(SOURCES)}, got {value!r}", field=name
        )
    return str(value)


def _id_list(value: object, name: str) -> tuple[str, ...]:
    items = _text_list(value, name)
    for item in items:
        _ulid(item, name, optional=False)
    return items


_VALIDATORS: dict[str, Callable[[object, str], object]] = {
    "importance": validate_unit,
    "confidence": validate_unit,
    "priority": _number,
    "access_count": lambda v, n: _counter(v, n, 0),
    "revision_count": lambda v, n: _counter(v, n, 1),
    "echo_count": lambda v, n: _counter(v, n, 0),
    "fizzle_count": lambda v, n: _counter(v, n, 0),
    "tags": _text_list,
    "entities": _text_list,
    "derived_from": _id_list,
    "created_at": lambda v, n: _time(v, n, optional=False),
    "updated_at": lambda v, n: _time(v, n, optional=False),
    "last_accessed_at": lambda v, n: _time(v, n, optional=True),
    "valid_until": lambda v, n: _time(v, n, optional=True),
    "id": lambda v, n: _ulid(v, n, optional=False),
    "parent_id": lambda v, n: _ulid(v, n, optional=True),
    "source": _source,
    "enabled": _bool,
    "type": lambda v, n: _short_text(v, n, optional=False),
    "user": lambda v, n: _short_text(v, n, optional=False),
    "layer": lambda v, n: _short_text(v, n, optional=False),
    "title": lambda v, n: _short_text(v, n, optional=True),
    "project": lambda v, n: _short_text(v, n, optional=True),
    "topic_key": lambda v, n: _short_text(v, n, optional=True),
    "session_id": lambda v, n: _short_text(v, n, optional=True),
    "forget_reason": lambda v, n: _short_text(v, n, optional=True),
    "author": lambda v, n: _short_text(v, n, optional=True),
    "agent": lambda v, n: _short_text(v, n, optional=True),
}


def validate_field(name: str, value: object) -> object:
    """Check and normalise one field (anything but content); raise naming the field."""
    validator = _VALIDATORS.get(name)
    if validator is None:
        raise InvalidInputError(f"unknown field {name!r}", field=name)
    return validator(value, name)


def build_record(
    content: object,
    *,
    max_bytes: int,
    values: Mapping[str, object],
    validated: bool = False,
) -> MemoryRecord:
    """A validated record from ``content`` and field values (``id`` and times required).

    ``validated``: the caller has already run every value through :func:`validate_field`
    (the write path does, before the gates), so only the content is checked again.
    """
    checked: dict[str, Any] = {"content": validate_content(content, max_bytes)}
    for name, value in values.items():
        if name == "content":
            continue
        checked[name] = value if validated else validate_field(name, value)
    missing = {"id", "type", "created_at", "updated_at"} - checked.keys()
    if missing:
        raise InvalidInputError(f"missing field(s): {', '.join(sorted(missing))}")
    return MemoryRecord(**checked)


def with_changes(record: MemoryRecord, changes: Mapping[str, object]) -> MemoryRecord:
    """``record`` with validated ``changes`` applied (no bookkeeping; the engine does that)."""
    checked: dict[str, Any] = {name: validate_field(name, value) for name, value in changes.items()}
    return replace(record, **checked)


def to_json_dict(record: MemoryRecord) -> dict[str, Any]:
    """Every field, in JSON types: times in canonical text, tuples as lists."""
    out: dict[str, Any] = {}
    for name in FIELD_NAMES:
        value = getattr(record, name)
        if isinstance(value, datetime):
            value = format_time(value)
        elif isinstance(value, tuple):
            value = list(value)
        out[name] = value
    return out


def from_json_dict(data: Mapping[str, object], *, max_bytes: int) -> MemoryRecord:
    """The record described by ``data`` (as written by :func:`to_json_dict`)."""
    unknown = sorted(set(data) - set(FIELD_NAMES))
    if unknown:
        raise InvalidInputError(f"unknown field(s): {', '.join(unknown)}", field=unknown[0])
    values = {k: v for k, v in data.items() if k != "content"}
    return build_record(data.get("content"), max_bytes=max_bytes, values=values)
