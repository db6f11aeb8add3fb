"""JSON Lines: the export format, and parsing of imports (all-or-nothing, naming bad lines)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime

from salience.errors import ImportFormatError, InvalidInputError
from salience.ids import new_ulid
from salience.models import MemoryRecord
from salience.write.records import from_json_dict, to_json_dict, validate_field

DEFAULT_IMPORT_TYPE = "observation"


def dump(record: MemoryRecord) -> str:
    """One record as one compact JSON line (every field, in declaration order)."""
    return json.dumps(to_json_dict(record), ensure_ascii=False, separators=(",", ":"))


def parse(lines: Iterable[str], *, now: datetime, max_bytes: int) -> list[tuple[int, MemoryRecord]]:
    """Every record in ``lines`` with its line number; a bad line raises
    :class:`ImportFormatError`.

    Blank lines are skipped. Missing ``id``, ``type`` and times are filled in (the id from the
    creation time), so hand-written files work. An id may appear only once.
    """
    records: list[tuple[int, MemoryRecord]] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        record = _parse_line(line, number, now, max_bytes)
        if record.id in seen:
            raise ImportFormatError(
                f"id {record.id} already appeared on line {seen[record.id]}",
                line=number,
                field="id",
            )
        seen[record.id] = number
        records.append((number, record))
    return records


def _parse_line(line: str, number: int, now: datetime, max_bytes: int) -> MemoryRecord:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ImportFormatError(f"not valid JSON ({exc.msg})", line=number) from None
    if not isinstance(data, dict):
        raise ImportFormatError("expected a JSON object", line=number)
    data.setdefault("type", DEFAULT_IMPORT_TYPE)
    data.setdefault("created_at", now)
    data.setdefault("updated_at", data["created_at"])
    try:
        if "id" not in data:
            created = validate_field("created_at", data["created_at"])
            assert isinstance(created, datetime)
            data["id"] = new_ulid(created)
        return from_json_dict(data, max_bytes=max_bytes)
    except InvalidInputError as exc:
        raise ImportFormatError(str(exc), line=number, field=exc.field) from None
