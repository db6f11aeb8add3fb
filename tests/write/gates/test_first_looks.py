"""Words for an agent, and the windows the addressed rule reads (write/gates/first_looks.py):
the same answers as the rule over the whole text."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from salience.write.gates import first_looks, instructions


def _addressed() -> str:
    return next(r for r in instructions._RULES if r[0] == "addressed")[2]


def _near(text: str, flags: int = re.IGNORECASE | re.MULTILINE) -> object:
    """The windowed search, whatever the text's length (a short text is read whole)."""
    windowed = first_looks.WINDOWED
    first_looks.WINDOWED = 0
    try:
        return first_looks.near_agents(_addressed(), flags)(text)
    finally:
        first_looks.WINDOWED = windowed


_AGENTS = ["AI", "a.i.", "agent", "agents", "assistant", "models", "language models", "bots",
           "Claude", "chatgpt", "coding agents", "ai assistants", "ai models", "A.I.x"]  # fmt: skip
_FILLER = st.lists(
    st.sampled_from(
        ["both", "remodel", "said", "the weather", "x" * 30, ".", ",", ":", "\n", "models", "ai"]
    ),
    max_size=12,
).map(" ".join)
_SPACE = st.builds(lambda n, c: c * n, st.integers(1, 40), st.sampled_from([" ", "\t", "\n"]))


@st.composite
def _addressed_texts(draw: st.DrawFn) -> str:
    """A branch of the addressed rule, its gaps and runs of spaces of any length (past the
    reach its windows assume too), between fillers."""
    agent, space, other = draw(st.sampled_from(_AGENTS)), draw(_SPACE), draw(_SPACE)
    branch = draw(st.integers(0, 5))
    if branch == 0:
        gap = "a" * draw(st.integers(0, 27))
        lead = draw(st.sampled_from(["note", "instructions", "important"]))
        det = draw(st.sampled_from(["", "the ", "every "]))
        core = f"{lead} {gap} {draw(st.sampled_from(['for', 'to']))}{space}{det}{agent}"
    elif branch == 1:
        core = f"if you are an {agent}"
    elif branch == 2:
        core = f"{agent}{space}{draw(st.sampled_from(['reading', 'processing']))}{other}this"
    elif branch == 3:
        core = f"\n{draw(st.sampled_from(['', ' ', '  ']))}dear{space}{agent}"
    elif branch == 4:
        core = f"{agent}{space.replace(chr(10), ' ')}{draw(st.sampled_from([':', ',']))} run"
    else:
        core = f"\n{draw(st.sampled_from(['', ' ']))}{agent}{draw(st.sampled_from(['', ' ']))},"
    return f"{draw(_FILLER)} {core}{draw(st.sampled_from(['', 'x', ' ', '.']))} {draw(_FILLER)}"


@settings(max_examples=500, deadline=None)
@given(_addressed_texts())
def test_the_addressed_rule_near_its_agents_finds_what_the_whole_text_does(text: str) -> None:
    pattern = _addressed()
    whole = re.compile(pattern, re.IGNORECASE | re.MULTILINE).search(text)
    near = _near(text)
    assert bool(near) == bool(whole)
    lowered = _near(text.lower(), re.MULTILINE)  # (case kept: as the rules read a text)
    assert bool(lowered) == bool(whole)


@pytest.mark.parametrize(
    "core",
    [
        "instructions " + "a" * 23 + " for" + " " * 7 + "every" + " " * 7 + "model",  # (lead)
        "ai assistants" + " " * 7 + "processing" + " " * 7 + "this",  # (the longest tail)
        "note for" + " " * 30 + "the agent",  # (a run of spaces past the reach)
        "agents" + "\n" * 9 + "reading\n\nthis",
    ],
)
def test_the_addressed_rule_near_its_agents_finds_its_longest_matches(core: str) -> None:
    pattern = _addressed()
    text = f"{'both said the weather. ' * 20}{core}. {'remodel the x. ' * 20}"
    assert re.compile(pattern, re.IGNORECASE | re.MULTILINE).search(text)
    assert _near(text)


_WORDY = st.lists(
    st.sampled_from(
        ["ai", "a.i.", "agent", "agents", "assistants", "llm", "language models", "model", "bots",
         "claude", "chatgpt", "gpt", "copilot", "coding agents", "ai assistants", "ai models",
         "remodel", "said", "abot", "x", "_", "9", "-", ".", " ", "\n", "é", "authorized by",
         "authorised by", "official notice", "compliance update", "per management",
         "approved disabling", "unapproved disabling", "s"]
    ),
    max_size=16,
).map("".join)  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(_WORDY)
def test_words_for_an_agent_are_found_where_the_written_pattern_finds_them(text: str) -> None:
    """The pattern that opens with the class of the words' first letters (searched in C)
    finds the same words, from the same places, as the one written with ``\\b`` first, and
    so does the policy rule's guard; read case ignored too, as the addressed rule's windows
    are found in a text not lower-cased."""
    written = re.compile(first_looks.AI_WRITTEN, re.MULTILINE)
    assert [m.span() for m in first_looks.AI_WORD.finditer(text)] == [
        m.span() for m in written.finditer(text)
    ]
    flags = re.IGNORECASE | re.MULTILINE
    upper = text.upper()
    assert [m.span() for m in re.compile(first_looks.AI_WORD.pattern, flags).finditer(upper)] == [
        m.span() for m in re.compile(first_looks.AI_WRITTEN, flags).finditer(upper)
    ]
    policy = re.compile(first_looks.POLICY_WRITTEN)
    assert [m.span() for m in first_looks._POLICY_OPENS.finditer(text)] == [
        m.span() for m in policy.finditer(text)
    ]


_GUARDED = st.lists(
    st.sampled_from(
        ["sys", "user_memory", "instruction", "inst]", "inst", "<|", "<", "|", "assistant",
         "tool_", "tool", "function_call", "invoke", '"args"', '"input"', '"', "args",
         "tool result", "action input", "call the tool", "authorised by", "authorized by",
         "official notice", "compliance update", "per management", "approved disabling",
         "unauthorized by", "x", " ", "\n", "_", "é"]
    ),
    max_size=12,
).map("".join)  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(_GUARDED)
def test_a_guard_read_by_its_strings_answers_as_its_pattern(text: str) -> None:
    """A guard looked for by the strings its matches hold (a substring search in C) answers
    as its pattern does, for every guard of every rule."""
    for guard in {g for guards in first_looks.GUARDS.values() for g in guards}:
        assert first_looks.holds(guard, text) == (guard.search(text) is not None)
