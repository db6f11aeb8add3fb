"""Reading a memory for update detection (write/update_sentences.py): its sentences, the
stems of their words, their values and the sort of each, and their clauses."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from salience.lazy import once
from salience.write import update_sentences, update_values
from salience.write.update_sentences import TOKEN, sentences
from salience.write.update_values import kind_of
from salience.write.update_words import (
    DETERMINERS,
    DIGITS,
    JOINING,
    MINE,
    REPLACING,
    STRONG_CHANGE,
)

_PIECES = st.lists(
    st.sampled_from(
        [
            *"May may In in on the Nf6 q3 CI AB PM 7pm $5 5th three Monday mondays Oct 16th "
            "lecture ' \u2019 - , . é É a Zq x9y 12:30 I i'm to my _".split(),
            *(" ", "  ", "\t"),
        ]
    ),
    max_size=24,
)
"""Texts of the pieces the reading's shortcuts could meet (words, codes, values, marks)."""


def _values(text: str) -> dict[str, str]:
    """Each value of a one-sentence text, with its sort."""
    (read,) = sentences(text)
    return {value: kind_of(value) for value in read.values}


def test_a_title_does_not_end_a_sentence() -> None:
    said = [" ".join(s.words) for s in sentences("I see Dr. Smith every week. She helps me plan.")]
    assert said == ["i see dr smith every week", "she helps me plan"]


def test_a_short_plural_is_read_as_its_singular() -> None:
    (cups,) = sentences("I drink two cups daily")
    (bus,) = sentences("I take the bus daily")
    assert "cup" in cups.subject
    assert "bus" in bus.subject


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("issues", "issue"),  # (an e before the plural's s: not "issu")
        ("houses", "house"),
        ("boxes", "box"),
        ("watches", "watch"),
        ("classes", "class"),
        ("finished", "finishing"),
        ("studied", "studies"),
        ("switched", "switching"),
        ("movies", "movie"),  # (not "movy": the forms share "movi")
        ("move", "moved"),  # (a final e, and the e the ending took)
        ("moving", "moves"),
        ("study", "studying"),  # (a y after a consonant: "studi")
        ("tried", "try"),
        ("running", "run"),  # (a consonant doubled before the ending)
        ("planned", "plans"),
        ("name", "named"),
        ("cities", "city"),
    ],
)
def test_two_forms_of_one_word_are_one_subject(one: str, other: str) -> None:
    (first,) = sentences(f"The {one} matter here")
    (second,) = sentences(f"The {other} matter here")
    assert first.subject == second.subject


def test_a_number_after_a_series_word_names_an_item() -> None:
    assert _values("I reread lecture 3 of the course.") == {"#lecture-3": "index"}
    assert _values("Week 2 of the plan starts today.") == {"#week-2": "index"}


def test_how_far_someone_got_in_a_series_is_a_number() -> None:
    assert _values("I'm on chapter 7 of the book.") == {"7": "number"}
    assert _values("She finished level 12 of the game.") == {"12": "number"}


def test_a_day_beside_its_month_is_a_date() -> None:
    assert _values("I ran the race on October 16th this year.") == {
        "oct-16": "when",
        "this-year": "when",
    }
    assert _values("The lease ends 3 May next year.") == {"may-3": "when", "next-year": "when"}
    assert _values("We met in October for the review.")["october"] == "when"


def test_may_is_a_month_only_as_a_name() -> None:
    assert _values("The launch slipped to May.") == {"may": "when"}
    assert _values("Rain may come later today.") == {}
    assert "may" not in _values("May we meet at the library tomorrow.")


def test_a_sentence_s_clauses_are_where_commas_and_buts_cut_it() -> None:
    (read,) = sentences("I couldn't find parking, but dinner at Nopa was great; we stayed late.")
    by_word = dict(zip(read.words, read.clauses, strict=True))
    assert by_word["couldn't"] == by_word["parking"]
    assert by_word["but"] == by_word["dinner"] == by_word["nopa"] != by_word["parking"]
    assert by_word["stayed"] not in (by_word["nopa"], by_word["parking"])
    (money,) = sentences("I paid $2,000 for it, then 1,500 more.")  # (a number's comma)
    assert len(money.clauses) == len(money.words)
    assert money.clauses[money.words.index("$2,000")] == 0


def test_what_is_open_and_what_settles_it_are_read() -> None:
    (open_,) = sentences("We're still deciding on the venue.")
    (settled,) = sentences("We ended up booking the Riverside Hall.")
    assert open_.pending == (2,)  # (at "deciding": "we're" "still" "deciding")
    assert not settled.pending
    assert settled.settled == (("ended up", 1),)


def test_now_opening_an_order_is_no_word_of_change() -> None:
    (order,) = sentences("Now combine the two lists into one.")
    (mine,) = sentences("Now I keep the lists in one file.")
    (later,) = sentences("The lists are in one file now.")
    assert order.change == ()
    assert mine.change == ("now",)
    assert later.change == ("now",)


def test_a_sentence_s_topic_is_its_first_word_that_says() -> None:
    (gym,) = sentences("The gym opens at 6 am.")
    (keep,) = sentences("I keep my passport in the desk drawer.")
    (valued,) = sentences("On Monday the gym opens late.")
    assert gym.topic == "gym"
    assert keep.topic == "passport"  # (a light verb says little)
    assert valued.topic == "gym"  # (a value is no topic)


def test_two_capitals_are_a_name_but_not_a_half_of_the_day() -> None:
    (read,) = sentences("Our CI runs at 7 PM.")
    assert "ci" in read.subject
    assert "pm" not in read.subject


@settings(max_examples=400, deadline=None)
@given(_PIECES.map("".join))
def test_a_word_s_letters_read_once_find_the_same_tokens(text: str) -> None:
    """TOKEN reads a word's letters once; as three alternatives (a number, letters then a
    digit, a word) it found the same tokens."""
    three = r"\$?\d[\d,.:/%-]*\w*|[A-Za-z]+\d\w*|[A-Za-z][A-Za-z'\u2019-]*"
    assert TOKEN.findall(text) == re.findall(three, text)


class _Everything:
    """A set holding every word: :func:`update_values.values_of` then skips none."""

    def __contains__(self, word: object) -> bool:
        return True


@settings(max_examples=400, deadline=None)
@given(_PIECES.map(" ".join))
def test_the_reading_s_shortcuts_change_nothing(text: str) -> None:
    """The words skipped as no value, and the sentences not searched for two capitals, read
    as they do when no word is skipped and every sentence is searched."""
    update_sentences.sentences.cache_clear()
    quick = [(s.stems, s.values) for s in update_sentences.sentences(text)]
    update_sentences.sentences.cache_clear()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(update_values, "_NOTED", _Everything())
        patch.setattr(update_sentences, "_CAPITALS", re.compile(""))
        whole = [(s.stems, s.values) for s in update_sentences.sentences(text)]
    update_sentences.sentences.cache_clear()
    assert quick == whole


_SAYING = st.lists(
    st.sampled_from(
        [
            *"not no never none nor don't can't won't isn't no longer longer Not NO n't "
            "now Now instead instead of also too another as well in progress pending deciding "
            "not sure yet to finished ended up booked went with settled on opted "
            "sister sisters sister's Mom mom's kids children landlord boss's coworkers "
            "I my we our the a to at it it's is 7pm Monday CI Zq x9y sure idea "
            "stopped taking working cancelled quit sold gave up rather than in place of from "
            "again 14th switched moved knowing Vienna".split(),
            "don\u2019t",
            "mom\u2019s",
            ",",
            ".",
        ]
    ),
    max_size=20,
).map(" ".join)
"""Texts of the words the properties below look for, and of words around them."""


def _whole_people(s: update_sentences.Sentence) -> frozenset[str]:
    return update_sentences._PEOPLE.intersection(map(update_sentences.stem, s.words))


def _whole_negations(s: update_sentences.Sentence) -> tuple[int, ...]:
    words, after = s.words, (*s.words[1:], "")
    idioms = update_sentences.IDIOMS
    return tuple(
        i
        for i, w in enumerate(words)
        if (w in update_sentences.NEGATIONS or w.endswith(("n't", "n\u2019t")))
        and after[i] not in idioms.get(w if w in update_sentences.NEGATIONS else "n't", ())
    ) + tuple(
        i
        for i, w in enumerate(words)
        if (w == "longer" and i and words[i - 1] == "no")
        or (
            (
                w in ("cancelled", "canceled", "quit")
                or (w == "gave" and after[i] == "up")
                or (w == "stopped" and i and words[i - 1] in MINE and after[i].endswith("ing"))
            )
            and not (
                i and (words[i - 1] in update_sentences.NEGATIONS or words[i - 1].endswith("n't"))
            )
        )
    )


def _whole_replacing(s: update_sentences.Sentence) -> frozenset[str]:
    """What a sentence says it replaced, read at every word."""
    words, found = s.words, set()

    def named(after: tuple[str, ...]) -> None:
        for word in [w for w in after if w not in DETERMINERS][:3]:
            if word in JOINING:
                break
            found.update(
                {
                    update_sentences.stem(word),
                    word.rstrip(".,:/-"),
                    DIGITS.get(word, word),
                    re.sub(r"^(\d+)(?:st|nd|rd|th)$", r"\1", word.rstrip(".,:/-")),
                }
            )

    for i in range(len(words)):
        for phrase in REPLACING:
            size = len(phrase.split())
            if " ".join(words[i : i + size]) == phrase:
                named(words[i + size : i + size + 4])
        opens = s.raw[i + 1][0] if i + 1 < len(words) else ""
        if (
            0 < i < len(words) - 1
            and words[i] == "not"
            and s.clauses[i] != s.clauses[i - 1]
            and (opens.isupper() or opens.isdigit() or words[i + 1] in DETERMINERS)
        ):
            named(words[i + 1 : i + 5])
        moved = any(c in STRONG_CHANGE for c in s.change)
        if 0 < i < len(words) - 1 and words[i - 1] == "from" and moved and "to" in words[i : i + 5]:
            named(words[i : words.index("to", i)])
    return frozenset(found)


def _whole_placed(s: update_sentences.Sentence, phrases: tuple[str, ...]) -> list[str]:
    return [p for p in phrases if f" {p} " in s._joined]


@settings(max_examples=500, deadline=None)
@given(_SAYING)
def test_a_sentence_s_sayings_are_read_as_when_every_word_is_looked_at(text: str) -> None:
    """The shortcuts of the properties a pair of sentences reads (no word that opens a phrase
    of change, of adding, of what is open or settled; no word that says no; a person's stem
    read from the subject) find what reading every word finds."""
    from salience.write.update_words import ADDING, CHANGE, PENDING, SETTLED

    update_sentences.sentences.cache_clear()
    for s in sentences(text):
        assert s.people == _whole_people(s)
        assert s.negations == _whole_negations(s)
        assert s.personal == any(w in MINE for w in s.words)
        assert [p for p, _ in s.settled] == _whole_placed(s, SETTLED)
        assert len(s.pending) == len(_whole_placed(s, PENDING))
        assert s.adding == bool(_whole_placed(s, ADDING))
        if s.words[:1] != ("now",):
            stopped = [
                i
                for i, w in enumerate(s.words[1:-1], 1)
                if w == "stopped" and s.words[i - 1] in MINE and s.words[i + 1].endswith("ing")
            ]
            said = [c for c in _whole_placed(s, CHANGE) if c != "stopped" or stopped]
            assert list(s.change) == said
        assert s.replacing == _whole_replacing(s)


def test_a_person_no_subject_holds_is_still_read() -> None:
    """:attr:`Sentence.people` reads a person from the subject's stems, and every word's stem
    when a word that never names a subject stems to a person (none does today: if one did,
    it would be read so)."""
    assert not update_sentences._PEOPLE_UNSAID
    words = ("my", "sister", "moved")
    unsaid = update_sentences.Sentence(words, words, ("", "", "mov"), frozenset({"mov"}), "", "")
    assert unsaid.people == frozenset()  # (the subject holds no person)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(update_sentences, "_PEOPLE_UNSAID", frozenset({"sister"}))
        again = update_sentences.Sentence(words, words, ("", "", "mov"), frozenset({"mov"}), "", "")
        assert again.people == frozenset({"sister"})


def test_a_sentence_reads_each_property_once() -> None:
    """A property is worked out at its first read and kept (`salience.lazy.once`)."""
    calls = []
    original = update_sentences.values_of

    def counted(*args: object) -> dict[str, int]:
        calls.append(args)
        return original(*args)  # type: ignore[arg-type]

    update_sentences.sentences.cache_clear()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(update_sentences, "values_of", counted)
        (read,) = sentences("I moved to Berlin on Monday.")
        assert read.values == read.values == {"berlin": 3, "monday": 5}
    assert len(calls) == 1
    assert isinstance(update_sentences.Sentence.values, once)


@pytest.mark.parametrize(
    ("text", "holder"),
    [
        ("I think the launch should be in May.", "i"),
        ("My rent is $1,500.", "i"),
        ("We moved to Denver.", "i"),
        ("My wife prefers the window seat.", "wif"),
        ("Ben thinks the launch should be in June.", "ben"),
        ("Omar thinks we should leave at 6.", ""),  # (a word of the speaker's: not told)
        ("Releases are cut every month.", ""),
        ("The kids go to Lincoln Elementary.", ""),
    ],
)
def test_whose_fact_a_sentence_is_comes_from_how_it_opens(text: str, holder: str) -> None:
    (read,) = sentences(text)
    assert read.holder == holder


def test_a_fact_of_someone_the_other_speaks_of_is_not_another_s() -> None:
    (mine,) = sentences("I'm visiting my friend Rachel this week.")
    (hers,) = sentences("My friend Rachel moved to Denver.")
    (his,) = sentences("My husband moved to Denver.")
    assert not hers.of_another(mine)
    assert his.of_another(mine)
    assert mine.of_another(his)


def test_the_units_of_a_sentence_s_counts() -> None:
    (read,) = sentences("I'm down to 77 kilos after 3 months.")
    assert read.units == frozenset({"kilo", "month"})


def test_again_is_a_repeat_only_right_after_a_shared_word() -> None:
    (went,) = sentences("I went to the dentist again in May.")
    assert went.repeats(frozenset({"dentist"}))
    assert not went.repeats(frozenset({"may"}))
    (checked,) = sentences("I checked again and my passport expires in 2026.")
    assert not checked.repeats(frozenset({"passport", "expir"}))


def test_what_a_sentence_is_about_is_no_word_of_something_open() -> None:
    (read,) = sentences("I'm deciding between UCLA and Berkeley.")
    assert read.topic == ""


def test_the_word_a_sentence_opens_with_may_be_light() -> None:
    (laptop,) = sentences("My work laptop is a ThinkPad.")
    assert laptop.opened == "work"
    (mine,) = sentences("I work at Initech.")
    assert mine.opener == -1  # (it speaks of the speaker)


def test_an_end_is_read_where_it_is_said() -> None:
    (quit_,) = sentences("I quit smoking and gave up sugar.")
    assert quit_.ended == ("quit", "gave")
    (kept,) = sentences("I won't quit.")
    assert kept.ended == ()
