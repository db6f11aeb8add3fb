"""Text helpers, and the caches that hold text: every cache in the package either holds no
text or is registered, so that an erasure empties it (a new cache of text cannot go around
the erasure)."""

from __future__ import annotations

import ast
import functools
import gc
from collections.abc import Iterator
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from salience.text import (
    _HOLDING,
    HeldTexts,
    content_hash,
    forget_cached_texts,
    holds_text,
    label,
    name_key,
    named_keys,
    normalize,
    query_terms,
    text_caches,
)
from salience.write.gates.learned import parse
from salience.write.update_sentences import sentences
from salience.write.update_words import stem


def test_query_terms_drop_stopwords_and_punctuation() -> None:
    assert query_terms("What is the port of the API server?") == ["port", "api", "server"]


def test_query_of_only_stopwords_keeps_them() -> None:
    assert query_terms("who are you") == ["who", "are", "you"]


def test_query_terms_drop_repeats_and_lowercase() -> None:
    assert query_terms("Redis redis REDIS cache") == ["redis", "cache"]


def test_operators_and_emoji_are_not_terms() -> None:
    assert query_terms('foo AND "bar') == ["foo", "bar"]
    assert query_terms("NEAR( * 🙂 ^") == ["near"]
    assert query_terms("🙂 *") == []


def test_normalize_folds_case_width_and_whitespace() -> None:
    assert normalize("  Hello\t\nＷorld  ") == "hello world"


def test_hash_equal_for_texts_differing_only_in_case_and_spacing() -> None:
    assert content_hash("Use  httpx") == content_hash("use httpx ")
    assert content_hash("use httpx") != content_hash("use requests")


@given(st.text())
def test_query_terms_never_contain_quotes_or_spaces(text: str) -> None:
    for term in query_terms(text):
        assert term
        assert '"' not in term
        assert not any(c.isspace() for c in term)


def test_shown_escapes_what_a_terminal_would_act_on() -> None:
    from salience.text import shown

    assert shown("a\x1b[31mb\u202ec\td\ne\x9f") == "a\\x1b[31mb\\u202ec\td\ne\\x9f"
    assert shown("plain text, déjà vu") == "plain text, déjà vu"


def test_a_line_s_label_says_who_speaks_and_where_they_start() -> None:
    assert label("Melanie: I ran a charity race.") == ("melanie", 9)
    assert label("Dr. Smith: take two a day") == ("dr. smith", 11)
    assert label("Note: the build is red") == ("", 6)  # (says what a line is)
    assert label("the ratio was 3:1 today") == ("", 0)
    assert label("melanie: lower case is no label") == ("", 0)


def test_a_name_is_named_in_a_text_that_holds_its_words() -> None:
    assert name_key("Caroline") in named_keys("What did Caroline's friends give her?")
    assert name_key("Dr. Smith") in named_keys("When is my next visit to dr smith?")
    assert name_key("Caroline") not in named_keys("What did Carol research?")
    assert name_key("") == 0
    assert name_key("Caroline") == name_key("caroline") != name_key("Melanie")


@settings(max_examples=300, deadline=None)
@given(
    words=st.lists(
        st.sampled_from(["ann", "bo", "Caroline", "de la cruz", "O'Neil", "zoë", "the", "?", "-"]),
        max_size=12,
    ),
    names=st.lists(
        st.sampled_from(["ann", "bo", "caroline", "de la cruz", "o neil", "zoë", "the bo"]),
        min_size=1,
        max_size=3,
    ),
)
def test_keys_asked_among_some_names_are_those_the_text_names(
    words: list[str], names: list[str]
) -> None:
    text = " ".join(words)
    among = {name_key(n) for n in names}
    assert named_keys(text, among) & among == named_keys(text) & among


SRC = Path(__file__).parent.parent / "src" / "salience"
CACHES = {"cache", "lru_cache"}

NO_TEXT = {
    "clock.py:format_time": "a moment's canonical text",
    "profiles/scoring/arrays.py:libm_power": "a check of NumPy's power, once",
    "engine/jobs.py:_host": "the machine's name",
    "search/coarse.py:_numkong": "a check of the int8 kernels, once",
    "search/signs.py:_compact": "a check of the sign kernels, once",
    "search/rerank.py:_factors": "feature and signal names",
    "search/rerank.py:_columns": "signal names",
    "search/rerank.py:load": "the shipped model",
    "write/gates/secrets.py:_tables": "the scanner's tables",
    "write/gates/parsing.py:_splitter": "which separators a text holds",
    "write/gates/parsing.py:prior": "kinds of words (names of kinds)",
    "write/gates/parsing.py:kind_features": "kinds of words (names of kinds)",
    "write/gates/parsing.py:_first_features": "kinds of words (names of kinds)",
    "write/gates/learned.py:model": "the shipped model",
    "embeddings/minilm.py:shared": "the bundled embedder",
}
"""Caches that never hold a memory's words, and what they hold instead."""


def _name(node: ast.expr) -> str:
    """``cache``, ``lru_cache``, ``holds_text`` of a decorator (called or not, dotted or not)."""
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Attribute):
        return target.attr
    return target.id if isinstance(target, ast.Name) else ""


def _cached() -> Iterator[tuple[str, bool]]:
    """Each cached function of the package (``path:name``) and whether it is registered."""
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                names = {_name(d) for d in node.decorator_list}
                if names & CACHES:
                    key = f"{path.relative_to(SRC).as_posix()}:{node.name}"
                    yield key, "holds_text" in names


def test_every_cache_holds_no_text_or_is_emptied_by_an_erasure() -> None:
    found = dict(_cached())
    unsorted = [key for key, held in found.items() if not held and key not in NO_TEXT]
    assert unsorted == [], "register with @holds_text, or list in NO_TEXT saying what it holds"
    assert [key for key in NO_TEXT if key not in found] == []  # (no stale entry)
    assert "write/update_sentences.py:sentences" in found  # (the scan reads what it should)


def test_a_cache_registered_twice_over_a_cache_decorator_is_seen() -> None:
    source = "@holds_text\n@functools.lru_cache(maxsize=8)\ndef f(x): return x\n"
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.FunctionDef)
    assert {_name(d) for d in node.decorator_list} == {"holds_text", "lru_cache"}


def words_held() -> str:
    """What the registered caches hold, as text (their dicts, reached through the collector)."""
    held = []
    for cached in text_caches():
        for inner in gc.get_referents(cached):
            if isinstance(inner, dict) and "__module__" not in inner:
                held.append(repr(list(inner.items())))
    return " ".join(held)


def test_forget_empties_every_registered_cache() -> None:
    marker = "zqvheldwordx"
    sentences(f"the {marker} moved to the shelf")
    stem(marker + "s")
    parse(f"send the {marker} file")
    content_hash(f"a {marker}")
    assert marker in words_held()
    assert forget_cached_texts() >= 4
    assert marker not in words_held()
    assert all(c.cache_info().currsize == 0 for c in text_caches())


def test_a_registered_cache_keeps_working_after_it_is_emptied() -> None:
    @holds_text
    @functools.lru_cache(maxsize=4)
    def doubled(text: str) -> str:
        return text * 2

    try:
        assert doubled("ab") == "abab"
        forget_cached_texts()
        assert doubled.cache_info().currsize == 0
        assert doubled("ab") == "abab"
    finally:
        _HOLDING.remove(doubled)


def test_a_held_dict_is_bounded_and_emptied_by_an_erasure() -> None:
    held: HeldTexts[str, int] = HeldTexts(3)
    for i, word in enumerate(["zqva", "zqvb", "zqvc"]):
        held.keep(word, i)
    held.keep("zqvc", 9)  # (a key kept already: replaced, nothing dropped)
    assert dict(held) == {"zqva": 0, "zqvb": 1, "zqvc": 9}
    assert held.keep("zqvd", 4) == 4
    assert dict(held) == {"zqvd": 4}  # (full: started again)
    held.keep("zqve", 5)
    assert forget_cached_texts() >= 2
    assert len(held) == 0
    assert held.keep("zqvf", 6) == 6  # (and keeps working)
