"""Feedback: REFERENCE.md's echo / fizzle numbers, bounds, reversibility, and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from salience import Memory
from salience.cli import cli
from salience.errors import ConflictError, NotFoundError
from salience.lifecycle.feedback import apply_feedback
from salience.models import Outcome
from tests.factory import NOW, record


def test_echo_raises_importance_and_confidence() -> None:
    after = apply_feedback(record(importance=0.5, confidence=0.7), used=True, now=NOW)
    assert after.importance == pytest.approx(0.55)
    assert after.confidence == pytest.approx(0.8)
    assert (after.echo_count, after.fizzle_count, after.access_count) == (1, 0, 1)
    assert after.last_accessed_at == NOW


def test_fizzle_lowers_them() -> None:
    after = apply_feedback(record(importance=0.5, confidence=0.7), used=False, now=NOW)
    assert after.importance == pytest.approx(0.4)
    assert after.confidence == pytest.approx(0.55)
    assert (after.echo_count, after.fizzle_count, after.access_count) == (0, 1, 1)


@pytest.mark.parametrize(
    ("importance", "confidence", "used", "expected"),
    [
        (0.98, 0.95, True, (1.0, 1.0)),
        (0.1, 0.1, False, (0.05, 0.0)),
        (0.05, 0.0, False, (0.05, 0.0)),
    ],
)
def test_bounds(
    importance: float, confidence: float, used: bool, expected: tuple[float, float]
) -> None:
    after = apply_feedback(record(importance=importance, confidence=confidence), used=used, now=NOW)
    assert (after.importance, after.confidence) == pytest.approx(expected)


def test_feedback_is_stored_visible_and_reversible(memory: Memory) -> None:
    memory_id = memory.remember("the staging database lives on db2", importance=0.5).id or ""
    base = dict(memory.rank("salience"))
    before = next(r for r in base if r.id == memory_id)

    result = memory.feedback(memory_id, used=False)
    assert result.outcome is Outcome.UPDATED
    assert result.reason is not None
    assert "importance 0.50 -> 0.40" in result.reason
    fizzled = memory.get(memory_id)
    assert fizzled.fizzle_count == 1

    def feedback_part(memory_id: str) -> float:
        score = next(s for r, s in memory.rank("salience") if r.id == memory_id)
        return next(c.value for c in score.components if c.name == "feedback")

    assert feedback_part(memory_id) == pytest.approx(1 / 3)  # (0 + 1) / (0 + 1 + 2)
    memory.feedback(memory_id, used=True)
    memory.feedback(memory_id, used=True)
    restored = memory.get(memory_id)
    assert restored.importance == pytest.approx(before.importance)  # -0.10 + 2 x 0.05
    assert feedback_part(memory_id) == pytest.approx(3 / 5)


def test_feedback_needs_a_current_memory(memory: Memory) -> None:
    memory_id = memory.remember("an old note").id or ""
    memory.forget(memory_id, "obsolete")
    with pytest.raises(ConflictError, match="forgotten"):
        memory.feedback(memory_id, used=True)
    with pytest.raises(NotFoundError):
        memory.feedback("01ARZ3NDEKTSV4RRFFQ69G5FAV", used=True)


def test_cli_feedback(home: Path) -> None:
    runner = CliRunner(env={"SALIENCE_SIGNAL_GATE": "0", "SALIENCE_EMBEDDER": "none"})
    created = runner.invoke(
        cli, ["remember", "deploys run on fridays", "--json", "--home", str(home)]
    )
    memory_id = json.loads(created.stdout)["id"]
    used = runner.invoke(cli, ["feedback", memory_id, "--used", "--home", str(home)])
    assert used.exit_code == 0
    assert used.stdout.startswith(f"updated {memory_id} (echo (used): importance 0.50 -> 0.55")
    unused = runner.invoke(cli, ["feedback", memory_id, "--unused", "--json", "--home", str(home)])
    assert json.loads(unused.stdout)["record"]["fizzle_count"] == 1
    missing = runner.invoke(cli, ["feedback", memory_id, "--home", str(home)])
    assert missing.exit_code == 2  # --used or --unused is required
    unknown = runner.invoke(cli, ["feedback", "nope", "--used", "--home", str(home)])
    assert unknown.exit_code == 1
    assert "no memory with id" in unknown.output
