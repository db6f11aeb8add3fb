from hypothesis import given, settings
from hypothesis import strategies as st

from salience.text import content_hash, label, name_key, named_keys, normalize, query_terms


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
