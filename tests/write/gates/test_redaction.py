import pytest
from hypothesis import given
from hypothesis import strategies as st

from salience.write.gates.redaction import REDACTED, has_private, redact


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("no tags here", "no tags here"),
        ("key is <private>hunter2</private>!", "key is [REDACTED]!"),
        ("<PRIVATE>x</Private> and <private>y</private>", "[REDACTED] and [REDACTED]"),
        ('a <private reason="pii">b</private> c', "a [REDACTED] c"),
        ("a < private >b</ private > c", "a [REDACTED] c"),
        ("a <private>b <private>c</private> d</private> e", "a [REDACTED] e"),
        ("a <private>never closed", "a [REDACTED]"),
        ("a </private> b", "a </private> b"),
        ("<privateer>ship</privateer>", "<privateer>ship</privateer>"),
        ("multi\n<private>\nline\n</private>\nend", "multi\n[REDACTED]\nend"),
    ],
)
def test_redact(text: str, expected: str) -> None:
    assert redact(text) == expected


def test_has_private() -> None:
    assert has_private("x <Private>y</private>")
    assert not has_private("x </private>")


pieces = st.lists(
    st.sampled_from(["<private>", "</private>", "<PRIVATE a=1>", "text", " ", "<", ">"]),
    max_size=12,
).map("".join)


@given(st.one_of(st.text(max_size=80), pieces))
def test_redaction_is_idempotent_and_leaves_no_open_tag(text: str) -> None:
    once = redact(text)
    assert redact(once) == once
    assert not has_private(once)


@given(st.text(max_size=40).filter(lambda s: "<" not in s and ">" not in s))
def test_secret_inside_a_private_span_never_survives(secret: str) -> None:
    assert redact(f"before <private>{secret}</private> after") == f"before {REDACTED} after"
