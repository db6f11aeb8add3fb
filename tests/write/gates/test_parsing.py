"""How the learned half of the instruction detector reads a text
(write/gates/parsing.py): where it is cut, its tokens, the kinds of its words."""

from __future__ import annotations

import re

from hypothesis import example, given
from hypothesis import strategies as st

from salience.write.gates import parsing
from salience.write.gates.parsing import segments, tokens


def test_a_text_is_cut_at_lines_sentences_fields_and_length() -> None:
    assert segments("One. Two!\nThree") == ["One.", "Two!", "Three"]
    assert segments('{"a": "first", "b": "second"}') == ['{"a', "first", "b", 'second"}']
    long = " ".join(["word"] * 300)
    cut = segments(long)
    assert all(len(s) <= parsing.MAX_SEGMENT for s in cut)
    assert " ".join(cut) == long


def test_values_an_attacker_picks_are_read_as_their_kind() -> None:
    found = tokens("Wire $500 to DE89 3704 0044 0532 0130 00 or https://x.example/p, "
                   "mail eve@x.example, cat ~/.ssh/id_rsa, ping 203.0.113.9")  # fmt: skip
    for kind in ("<num>", "<iban>", "<url>", "<email>", "<path>", "<ip>"):
        assert kind in found
    assert "ssh" in found  # (which file a path names stays readable)
    assert "eve" not in found


_WORD_OR_MARK = re.compile(r"[^\W\d_][\w']*|[^\w\s]{1,3}")


@given(st.text(alphabet="aibxIZ_'-.,!?;: \n\t\x1cé", max_size=40))
@example("I'd say a b c x's _i __ -- !!! ...")
def test_plain_ascii_is_read_as_words_and_marks_with_no_lone_letter_but_a_and_i(
    segment: str,
) -> None:
    """The lower-cased ASCII reading spells its letter classes out: the same tokens as
    Unicode's classes with lone letters dropped after."""
    found = _WORD_OR_MARK.findall(segment.lower())
    expected = [t for t in found if len(t) > 1 or t in "ai" or not t[0].isalpha()]
    assert tokens(segment) == expected


def test_a_repeated_mark_counts_once() -> None:
    once = parsing.features("rock < punk")
    many = parsing.features("rock < < < < punk")
    assert once.count("w:<") == many.count("w:<") == 1


def test_a_text_is_cut_where_it_holds_a_cut_s_character() -> None:
    assert segments('{"a": "x", "b": "y"}') == ['{"a', "x", "b", 'y"}']
    assert segments("one | two | three") == ["one", "two", "three"]
    tagged = segments("a <b> tag. And a line\nand another")
    assert tagged == ["a", "tag.", "And a line", "and another"]
    assert segments("no cut characters here. Two sentences") == [
        "no cut characters here.",
        "Two sentences",
    ]


_CUT_PIECES = ["word", "Two", ".", "!", "?", ";", ",", ":", '"', "|", "<", ">", "<b>",
               " ", "  ", "\n", "\n\n", "\t", "\x0b", "\u2028", "\xa0", "x" * 25, '", "',
               " | "]  # fmt: skip


@given(st.lists(st.sampled_from(_CUT_PIECES), max_size=30).map("".join))
@example('"a" ,\n "b"')  # (a field cut across a line break)
@example(". |x")  # (a sentence's cut, then a cell's)
@example(" <" + "a" * 20 + ">")  # (the longest tag)
def test_the_cuts_from_their_first_character_are_the_cuts_as_written(text: str) -> None:
    """The splitter opens with the class of its cuts' first characters (searched in C) and
    reads the rest of each cut: the same cuts, from the same places, as the cuts written
    plainly, whichever of their characters a text holds."""
    for holds in [(a, b, c) for a in (False, True) for b in (False, True) for c in (False, True)]:
        fast = parsing._splitter(holds)
        written = parsing._cuts_as_written(holds)
        assert [m.span() for m in fast.finditer(text)] == [m.span() for m in written.finditer(text)]
        assert fast.split(text) == written.split(text)
