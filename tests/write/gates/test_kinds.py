"""The kinds of words an order is made of (write/gates/kinds.py)."""

from __future__ import annotations

from salience.write.gates.kinds import CLASS_OF, kinds_of


def test_a_slip_of_the_keyboard_keeps_a_words_kind() -> None:
    assert kinds_of("instructions") == ("task",)
    assert kinds_of("iunstructions") == ("task",)  # a letter added
    assert kinds_of("instrctions") == ("task",)  # dropped
    assert kinds_of("disregrad") == ("override",)  # swapped
    assert kinds_of("weather") == ()


def test_a_word_of_two_kinds_has_both() -> None:
    assert set(CLASS_OF["answer"]) == {"say", "output"}
