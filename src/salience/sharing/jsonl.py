"""JSON Lines: the export format, and parsing of imports (all-or-nothing, naming bad lines)."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from salience.errors import ImportFormatError, InvalidInputError
from salience.ids import new_ulid
from salience.models import DEFAULT_USER, LOCAL_LAYER, MemoryRecord
from salience.write.records import from_json_dict, to_json_dict

DEFAULT_IMPORT_TYPE = "observation"
CLOCK_SKEW = timedelta(minutes=5)
"""How far past this machine's clock an imported time may be (another machine's clock)."""
_PAST_NOW = ("created_at", "updated_at", "last_accessed_at")
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
"""No imported time may be earlier: ids carry their creation time from here on."""
PENDING_ID = "0" * 26
"""Stands for the id of a record that came without one, until every check has passed."""


SIGNATURE = "salience_signature"
"""The key of a signed export's last line: ``{"salience_signature": "hmac-sha256:HEX",
"records": N}``, an HMAC-SHA256 of every line before it (each with its newline) under a key
the user keeps. An import verified with the key keeps the sources the file claims
(:mod:`salience.models`); without it, the line is skipped and the import stands as
``import``."""


def signed(lines: Iterable[str], key: bytes) -> Iterator[str]:
    """``lines`` (JSON Lines, no newlines), then the line that signs them with ``key``."""
    mac = hmac.new(key, digestmod=hashlib.sha256)
    count = 0
    for line in lines:
        mac.update(line.encode("utf-8") + b"\n")
        count += 1
        yield line
    yield json.dumps({SIGNATURE: f"hmac-sha256:{mac.hexdigest()}", "records": count})


def dump(record: MemoryRecord) -> str:
    """One record as one compact JSON line (every field, in declaration order). The
    characters other tools split lines at (U+0085, U+2028, U+2029: JSON lets them stand
    raw in a string) are escaped, so that the line stays one line wherever it is read."""
    line = json.dumps(to_json_dict(record), ensure_ascii=False, separators=(",", ":"))
    return line.translate(_LINE_BREAKS)


_LINE_BREAKS = {ord(c): f"\\u{ord(c):04x}" for c in "\x85\u2028\u2029"}


def parse(
    lines: Iterable[str] | Iterable[bytes],
    *,
    now: datetime,
    max_bytes: int,
    user: str = DEFAULT_USER,
    owner: str | None = None,
    key: bytes | None = None,
) -> list[tuple[int, MemoryRecord]]:
    """Every record in ``lines`` with its line number; a bad line raises
    :class:`ImportFormatError`.

    Blank lines are skipped. Missing ``id``, ``type`` and times are filled in (the id from the
    creation time, once every check of the line has passed), so hand-written files work. An
    id may appear only once. Provenance is salience's, not the file's: ``layer`` is always
    the local one, and a time after ``now`` (beyond :data:`CLOCK_SKEW`) or before 1970 is
    refused, so no record can claim a layer or the future.
    A record without ``user`` is ``user``'s; with ``owner``, every record is ``owner``'s.
    With ``key``, the file must end with the line that signs it with that key (:func:`signed`)
    or nothing is imported; without, that line is skipped.
    """
    records: list[tuple[int, MemoryRecord]] = []
    seen: dict[str, int] = {}
    mac = hmac.new(key or b"", digestmod=hashlib.sha256)
    signature: tuple[int, dict[str, object]] | None = None
    for number, line in _numbered(lines):
        if signature is not None and line.strip():
            raise ImportFormatError("a line follows the signature line", line=number)
        if line.lstrip().startswith('{"' + SIGNATURE):
            signature = (number, _signature(line, number))
            continue
        mac.update(line.rstrip("\r\n").encode("utf-8") + b"\n")
        if not line.strip():
            continue
        record, pending = _parse_line(
            line, number, now, max_bytes, owner or user, force=owner is not None
        )
        for name in _PAST_NOW:
            moment = getattr(record, name)
            if moment is not None and moment > now + CLOCK_SKEW:
                raise ImportFormatError(
                    f"{name} {moment.isoformat()} is in the future (this machine's clock says "
                    f"{now.isoformat(timespec='seconds')})",
                    line=number,
                    field=name,
                )
            if moment is not None and moment < EPOCH:
                raise ImportFormatError(
                    f"{name} {moment.isoformat()} is before 1970-01-01", line=number, field=name
                )
        if pending:
            record = replace(record, id=new_ulid(min(record.created_at, now)))
        if record.id in seen:
            raise ImportFormatError(
                f"id {record.id} already appeared on line {seen[record.id]}",
                line=number,
                field="id",
            )
        seen[record.id] = number
        records.append((number, record))
    if key is not None:
        _verify(signature, f"hmac-sha256:{mac.hexdigest()}", len(records))
    return records


def _signature(line: str, number: int) -> dict[str, object]:
    try:
        found = json.loads(line)
    except ValueError:
        found = None
    if not isinstance(found, dict) or not isinstance(found.get(SIGNATURE), str):
        raise ImportFormatError("the signature line is not valid JSON", line=number)
    return found


def _verify(signature: tuple[int, dict[str, object]] | None, expected: str, count: int) -> None:
    """Refuse an import whose signature is missing or not made with the key."""
    if signature is None:
        raise InvalidInputError(
            "the file is not signed: export it with --sign-with, or import it without "
            "--verify-with (its memories then stand as an import)",
            field="key",
        )
    number, found = signature
    if not hmac.compare_digest(str(found[SIGNATURE]), expected) or found.get("records") != count:
        raise ImportFormatError(
            "the file was changed since it was signed, or signed with another key", line=number
        )


def _numbered(lines: Iterable[str] | Iterable[bytes]) -> Iterator[tuple[int, str]]:
    """(line number, line); bytes are decoded as UTF-8, strictly: a bad byte is an error
    naming its line and column."""
    iterator: Iterator[object] = iter(lines)
    number = 0
    while True:
        number += 1
        try:
            line = next(iterator)
            text = line.decode("utf-8") if isinstance(line, bytes) else str(line)
        except StopIteration:
            return
        except UnicodeDecodeError as exc:
            byte = exc.object[exc.start]
            raise ImportFormatError(
                f"not UTF-8 text (byte 0x{byte:02x} at column {exc.start + 1})", line=number
            ) from None
        yield number, text


def _parse_line(
    line: str, number: int, now: datetime, max_bytes: int, user: str, *, force: bool
) -> tuple[MemoryRecord, bool]:
    """The line's record, and whether its id is still to be made (it came without one)."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ImportFormatError(f"not valid JSON ({exc.msg})", line=number) from None
    except RecursionError:
        raise ImportFormatError("JSON nested too deeply", line=number) from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise ImportFormatError(f"not valid JSON ({exc})", line=number) from None
    if not isinstance(data, dict):
        raise ImportFormatError("expected a JSON object", line=number)
    data["layer"] = LOCAL_LAYER  # provenance is never taken from the file
    if force:
        data["user"] = user
    data.setdefault("user", user)
    data.setdefault("type", DEFAULT_IMPORT_TYPE)
    data.setdefault("created_at", now)
    data.setdefault("updated_at", data["created_at"])
    pending = "id" not in data
    if pending:
        data["id"] = PENDING_ID
    try:
        return from_json_dict(data, max_bytes=max_bytes), pending
    except InvalidInputError as exc:
        raise ImportFormatError(str(exc), line=number, field=exc.field) from None
