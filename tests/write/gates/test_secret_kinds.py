"""Every kind the scanner names, planted in random text: always caught, never repeated.

One generated secret per kind comes from the corpus (scripts/make_gate_corpus.py); hypothesis
surrounds it with random prose, code punctuation and newlines. Through the engine, a refused
write leaves none of the secret's characters in the reason, the audit log or the store file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from salience import Memory, Outcome
from salience.write.gates.secrets import ASSIGNMENT, HIGH_ENTROPY, KINDS, scan

DATA = Path(__file__).parent.parent.parent / "data"
ONE_PER_KIND: dict[str, dict[str, str]] = {}
for _line in (DATA / "secrets_positive.jsonl").read_text(encoding="utf-8").splitlines():
    _row = json.loads(_line)
    ONE_PER_KIND.setdefault(_row["kind"], _row)
NAMED_KINDS = sorted(KINDS)  # the generic kinds are covered by test_secrets.py

surrounding = st.text(
    alphabet=st.sampled_from("abcdefghijklmnopqrstuvwxyz ABCDEFG,.;:()[]'\"\n\t-_0123456789"),
    max_size=120,
)


def _planted(before: str, row: dict[str, str], after: str) -> str:
    # A secret is a token: whatever surrounds it ends at a space.
    return f"{before} {row['text']} {after}"


def test_every_kind_has_a_generated_example() -> None:
    assert set(ONE_PER_KIND) == KINDS | {ASSIGNMENT, HIGH_ENTROPY}


@pytest.mark.parametrize("kind", NAMED_KINDS)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(before=surrounding, after=surrounding)
@example(before="requirepass", after="")  # another kind's keyword before it: that kind covers it
def test_a_planted_secret_of_every_kind_is_caught(kind: str, before: str, after: str) -> None:
    row = ONE_PER_KIND[kind]
    text = _planted(before, row, after)
    start = text.index(row["secret"])
    findings = scan(text)
    assert any(f.start <= start < f.end for f in findings) or any(
        f.kind == kind for f in findings
    ), (kind, text)


def _store_bytes(home: Path) -> bytes:
    return b"".join(p.read_bytes() for p in home.iterdir() if p.name.startswith("salience.db"))


def _fragments(secret: str) -> list[str]:
    """Every 12-character piece of the secret: none may appear anywhere."""
    size = min(12, len(secret))
    return [secret[i : i + size] for i in range(0, len(secret) - size + 1, 4)]


@pytest.mark.slow
def test_no_kind_leaves_a_trace_in_reason_log_or_store(memory: Memory, home: Path) -> None:
    for kind in NAMED_KINDS:
        row = ONE_PER_KIND[kind]
        result = memory.remember(f"Deploy notes for the billing service: {row['text']}")
        assert result.outcome is Outcome.REJECTED, kind
        assert result.gate == "secret", kind
        reason = result.reason or ""
        assert not any(piece in reason for piece in _fragments(row["secret"])), kind
    assert memory.list() == []
    log = json.dumps([(e.action, e.detail) for e in memory.log()])
    stored = _store_bytes(home)
    for kind in NAMED_KINDS:
        for piece in _fragments(ONE_PER_KIND[kind]["secret"]):
            assert piece not in log, kind
            assert piece.encode() not in stored, kind
