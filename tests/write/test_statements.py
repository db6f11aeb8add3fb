"""What a text states and who states it (write/statements.py)."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from salience.write import statements as module
from salience.write.statements import stated, statements


def test_a_labelled_line_is_said_by_its_speaker() -> None:
    assert list(statements("Melanie: I moved my bike. Then I rested.\nNote: the port is 80.")) == [
        ("melanie", "I moved my bike."),
        ("melanie", "Then I rested."),
        ("", "the port is 80."),
    ]


def test_a_question_states_its_clauses_that_ask_nothing() -> None:
    assert stated("Can you help me plan, given that I wake up at 7 am?") == (
        "given that I wake up at 7 am"
    )
    assert stated("Can you tell me the time?") == ""  # (asks only)
    assert stated("Miami Beach, what do you think?") == ""  # (states nothing of the speaker)


def test_an_order_to_do_a_task_once_states_only_what_it_says_of_the_speaker() -> None:
    assert list(statements("Draft an email to Maria about the budget.")) == []
    assert list(statements("Please book a table for six at 7.")) == []
    assert list(statements("Remind me to call the vet at 4 pm, my dog has a limp.")) == [
        ("", "my dog has a limp.")
    ]
    assert list(statements("Use pnpm for installs.")) == [("", "Use pnpm for installs.")]


def test_a_relative_clause_is_read_with_what_it_speaks_of() -> None:
    assert stated("Can you set reminders for my gym sessions, which I go to at 7 pm?") == (
        "my gym sessions which I go to at 7 pm"
    )


def test_a_clause_of_one_joining_word_is_no_clause() -> None:
    assert stated("Also, what time should I jog, given I wake up at 7 am?") == (
        "given I wake up at 7 am"
    )


def test_a_title_ends_no_sentence() -> None:
    assert [said for _, said in statements("I see Dr. Smith weekly. Mrs. Lee too.")] == [
        "I see Dr. Smith weekly.",
        "Mrs. Lee too.",
    ]


def test_a_question_that_reminds_states_what_it_recalls() -> None:
    assert stated("It was a long process - remember when I got pre-approved for $400,000?") == (
        "I got pre-approved for $400,000"
    )
    assert stated("Remember how my sister moved to Lyon?") == "my sister moved to Lyon"
    assert stated("Do you remember when the war ended?") == ""  # (nothing of the speaker)
    assert stated("Can you remember things for me?") == ""  # (asks only)


def test_an_aside_in_square_brackets_is_no_statement() -> None:
    said = statements("Nate: I love them! [shares a photo: two turtles on a log]\nAll well.")
    assert list(said) == [("nate", "I love them!"), ("", "All well.")]


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="ab .!?\t\u00a0\u2003\u2028DrMs\n\r", max_size=30))
def test_a_line_with_no_end_inside_is_one_sentence(text: str) -> None:
    """statements() splits a line only where a sentence may end inside it (an end mark and a
    space): elsewhere the sentence pattern finds nothing to split."""
    for line in text.splitlines():
        if module._ENDS.search(line) is None:
            assert module._SENTENCE.split(line) == [line]


@given(st.lists(st.sampled_from(["a", "Dr.", "Mrs.", "vs.", "St.", " ", "  ", ".", "!", "?", "\n",
                                  "\n\n", "\t", "\u00a0", "\u2028", "x.", "Prof. X"]),
                max_size=25).map("".join))  # fmt: skip
@settings(max_examples=500, deadline=None)
@example("Dr. Lee came.  Then\n\nhe left. vs. them")
def test_sentences_are_cut_where_the_pattern_as_written_cuts_them(text: str) -> None:
    """The cut that opens with whitespace (searched for in C) finds the same cuts, from the
    same places, as the pattern as written."""
    written = re.compile(module.SENTENCE_AS_WRITTEN)
    assert [m.span() for m in module._SENTENCE.finditer(text)] == [
        m.span() for m in written.finditer(text)
    ]
    assert module._SENTENCE.split(text) == written.split(text)
