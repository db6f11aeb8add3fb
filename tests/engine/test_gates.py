"""The gates on every write path, with the engine as a user gets it (all gates on)."""

from __future__ import annotations

import io
import json
import logging

import pytest

from salience import ImportFormatError, Memory, Outcome
from tests.both_stores import stored_bytes

SECRET = "ghp_" + "Zx9" * 12
SECRET_TEXT = f"The deploy bot uses {SECRET} to push tags"


def _db_bytes(memory: Memory) -> bytes:
    return stored_bytes(memory)


def test_remember_rejects_a_secret_and_never_stores_or_repeats_it(
    gated: Memory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    result = gated.remember(SECRET_TEXT)
    assert result.outcome is Outcome.REJECTED
    assert result.gate == "secret"
    assert result.reason == (
        "contains a GitHub token at line 1, column 21; secrets are never stored"
    )
    assert SECRET not in repr(result)
    assert SECRET not in caplog.text
    assert gated.stats().total == 0
    assert SECRET.encode() not in _db_bytes(gated)


def test_force_does_not_bypass_the_secret_scanner(gated: Memory) -> None:
    assert gated.remember(SECRET_TEXT, force=True).gate == "secret"


def test_secrets_in_title_and_tags_are_caught(gated: Memory) -> None:
    text = "The deploy bot pushes release tags nightly"
    assert "in the title" in (gated.remember(text, title=SECRET).reason or "")
    assert "in the tags" in (gated.remember(text, tags=[f"token:{SECRET}"]).reason or "")


def test_private_spans_are_redacted_before_storing_and_indexing(gated: Memory) -> None:
    result = gated.remember("The staging DB password is <private>hunter2-ish</private> for now")
    assert result.outcome is Outcome.CREATED
    assert "private spans were redacted" in result.notes
    record = gated.get(result.id or "")
    assert record.content == "The staging DB password is [REDACTED] for now"
    assert b"hunter2" not in _db_bytes(gated)
    assert gated.search("hunter2") == []


def test_signal_gate_rejects_with_reason_and_force_bypasses_visibly(gated: Memory) -> None:
    rejected = gated.remember("Let me check the logs for errors first")
    assert (rejected.outcome, rejected.gate) == (Outcome.REJECTED, "signal")
    assert (rejected.reason or "").startswith("self-talk:")
    forced = gated.remember("Let me check the logs for errors first", force=True)
    assert forced.outcome is Outcome.CREATED
    assert "signal gate bypassed (force)" in forced.notes


def test_update_and_supersede_are_scanned_and_change_nothing_on_rejection(gated: Memory) -> None:
    memory_id = gated.remember("The deploy bot pushes release tags nightly").id or ""
    before = gated.get(memory_id)
    assert gated.update(memory_id, content=SECRET_TEXT).gate == "secret"
    assert gated.update(memory_id, title=f"key {SECRET}").gate == "secret"
    assert gated.get(memory_id) == before
    assert gated.supersede(memory_id, SECRET_TEXT).gate == "secret"
    assert gated.get(memory_id) == before
    assert gated.stats().total == 1


def test_import_with_a_secret_is_refused_whole_naming_the_line(gated: Memory) -> None:
    lines = [
        json.dumps({"content": "A perfectly ordinary memory about the build"}),
        json.dumps({"content": SECRET_TEXT}),
    ]
    with pytest.raises(ImportFormatError, match="line 2: contains a GitHub token") as info:
        gated.import_(lines)
    assert SECRET not in str(info.value)
    assert gated.stats().total == 0


def test_import_redacts_private_spans(gated: Memory) -> None:
    gated.import_([json.dumps({"content": "call me at <private>555-0100</private> any time"})])
    (record,) = gated.list()
    assert record.content == "call me at [REDACTED] any time"
    out = io.StringIO()
    gated.export(out)
    assert "555-0100" not in out.getvalue()


def test_session_summary_is_scanned(gated: Memory) -> None:
    gated.session_start("alice")
    result = gated.session_end(f"Rotated the bot token to {SECRET}", user="alice")
    assert result.gate == "secret"
    assert gated.session_end("Rotated the bot token (stored in the vault)", user="alice").ok


def test_entities_are_extracted_stored_and_searchable(gated: Memory) -> None:
    result = gated.remember("The UserService reads DATABASE_URL from src/config/settings.py")
    record = gated.get(result.id or "")
    assert {"UserService", "DATABASE_URL", "src/config/settings.py"} <= set(record.entities)
    assert [r.id for r in gated.list(entity="userservice")] == [record.id]
    assert [h.record.id for h in gated.search("settings.py")] == [record.id]
    gated.remember("The UserService caches sessions in Redis for an hour")
    assert gated.entities(top=1) == [("UserService", 2)]


def test_given_entities_come_first_and_are_merged(gated: Memory) -> None:
    result = gated.remember("The OrderService calls PaymentGateway", entities=["billing"])
    assert result.record is not None
    assert result.record.entities == ("billing", "OrderService", "PaymentGateway")


def test_update_recomputes_entities_from_new_content(gated: Memory) -> None:
    memory_id = gated.remember("The OrderService calls PaymentGateway").id or ""
    gated.update(memory_id, content="The OrderService now calls StripeClient instead")
    assert set(gated.get(memory_id).entities) == {"OrderService", "StripeClient"}


def test_duplicate_and_update_outcomes_name_the_existing_id(gated: Memory) -> None:
    first = gated.remember("Deploys go through GitHub Actions nightly")
    again = gated.remember("deploys go through github actions nightly")
    assert (again.outcome, again.id) == (Outcome.DUPLICATE, first.id)
