import math
from datetime import UTC, datetime

import pytest

from salience.errors import InvalidInputError
from salience.write.records import (
    build_record,
    from_json_dict,
    to_json_dict,
    validate_content,
    validate_field,
    validate_unit,
)

T = datetime(2026, 4, 20, tzinfo=UTC)
BASE = {"id": "01JS0000000000000000000000", "type": "note", "created_at": T, "updated_at": T}


@pytest.mark.parametrize("content", ["", "   ", "\n\t"])
def test_blank_content_is_refused(content: str) -> None:
    with pytest.raises(InvalidInputError, match="empty"):
        validate_content(content, 100)


def test_content_over_the_byte_limit_is_refused_with_sizes() -> None:
    with pytest.raises(InvalidInputError, match="6 bytes, over the limit of 5"):
        validate_content("héllo", 5)  # é is two bytes
    assert validate_content("hello", 5) == "hello"


@pytest.mark.parametrize("value", [-0.01, 1.01, math.nan, math.inf, True, "0.5", None])
def test_unit_values_outside_0_1_or_not_numbers_are_refused(value: object) -> None:
    with pytest.raises(InvalidInputError) as info:
        validate_unit(value, "importance")
    assert info.value.field == "importance"


def test_unit_bounds_are_inclusive() -> None:
    assert validate_unit(0, "confidence") == 0.0
    assert validate_unit(1, "confidence") == 1.0


def test_tags_are_trimmed_and_deduplicated_in_order() -> None:
    assert validate_field("tags", [" b", "a", "b "]) == ("b", "a")


def test_tags_must_be_a_list_not_a_string() -> None:
    with pytest.raises(InvalidInputError, match="list"):
        validate_field("tags", "project:api")


def test_source_must_be_known() -> None:
    with pytest.raises(InvalidInputError, match="source must be one of"):
        validate_field("source", "robot")


def test_counters_are_non_negative_and_revision_starts_at_one() -> None:
    assert validate_field("access_count", 0) == 0
    with pytest.raises(InvalidInputError):
        validate_field("access_count", -1)
    with pytest.raises(InvalidInputError):
        validate_field("revision_count", 0)


def test_ids_must_be_ulids() -> None:
    with pytest.raises(InvalidInputError, match="ULID"):
        validate_field("parent_id", "not-an-id")
    with pytest.raises(InvalidInputError, match="ULID"):
        validate_field("derived_from", ["nope"])


def test_unknown_field_is_named() -> None:
    with pytest.raises(InvalidInputError, match="colour"):
        validate_field("colour", "red")


def test_json_dict_round_trips_exactly() -> None:
    record = build_record("hello there", max_bytes=100, values={**BASE, "tags": ["a", "b"]})
    data = to_json_dict(record)
    assert data["created_at"] == "2026-04-20T00:00:00.000000Z"
    assert data["tags"] == ["a", "b"]
    assert from_json_dict(data, max_bytes=100) == record


def test_json_dict_with_unknown_keys_is_refused() -> None:
    record = build_record("hello there", max_bytes=100, values=BASE)
    with pytest.raises(InvalidInputError, match="unknown field"):
        from_json_dict({**to_json_dict(record), "extra": 1}, max_bytes=100)


def test_build_record_requires_identity_and_times() -> None:
    with pytest.raises(InvalidInputError, match="missing field"):
        build_record("hello there", max_bytes=100, values={"type": "note"})
