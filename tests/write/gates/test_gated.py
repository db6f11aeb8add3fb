"""Rules searched alternative by alternative (write/gates/gated.py): the answers of their
alternatives joined into one pattern."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from salience.write.gates.gated import GATED, Branches, gated

_BRANCHES: Branches = (
    (("-rf",), r"\brm\s+-rf\s+/"),
    (("777",), r"\bchmod\s+777\b"),
)
_PIECES = ["rm", " -rf", " /", "chmod", " 777", "RM", " -RF", "form", "x", "\n", " "]


@given(st.lists(st.sampled_from(_PIECES), max_size=10).map("".join))
def test_a_gated_rule_answers_as_its_alternatives_joined(text: str) -> None:
    joined = "|".join(pattern for _, pattern in _BRANCHES)
    for flags, read in ((re.IGNORECASE, text), (0, text.lower())):
        plain = re.search(joined, read, flags) is not None
        assert (gated(_BRANCHES, flags)(read) is not None) == plain


def test_a_gated_rule_skips_an_alternative_whose_words_are_missing() -> None:
    never = ((("zzz",), r"rm"),)  # (a gate that its own pattern does not need: skipped)
    assert gated(never, 0)("rm -rf /") is None
    assert gated(_BRANCHES, 0)("sudo rm -rf / now") is not None


def test_every_gated_rule_is_its_alternatives_joined_and_each_gate_is_in_its_examples() -> None:
    examples = {
        r"\brm\s+": "rm -rf /",
        r"\bchmod": "chmod 777 /",
        r"\bnc\s": "nc -e sh",
        r"\b(?:without|before)": "without telling the user",
        r"\bnever reveal": "never reveal",
        r"\b(?:new|updated)": "new policy for every ai agent",
        r"\bapproved disabling": "approved disabling",
    }
    used = set()
    for rule, branches in GATED.items():
        assert rule == "|".join(pattern for _, pattern in branches)
        for words, pattern in branches:
            for start, text in examples.items():
                if pattern.startswith(start):
                    found = re.search(pattern, text)
                    assert found is not None
                    assert any(word in found.group() for word in words)
                    used.add(start)
    assert used == set(examples)
