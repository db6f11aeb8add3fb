"""What only looks like a secret is taken back; what is random is not."""

from __future__ import annotations

import pytest

from salience.write.gates.lookalikes import (
    decodes_to_data,
    is_code,
    is_placeholder,
    looks_random,
    made_of_words,
    stands_in,
)


@pytest.mark.parametrize(
    "value",
    [
        "changeme",
        "xxxxxxxxxxxx",
        "ghp_xxxxxxxxxxxxxxxx",
        "<db_password>",
        "${TOKEN}",
        "{{ secret }}",
        "your-api-key",
        "sk-...",
        "password",
        "self.password",
        "****",
    ],
)
def test_placeholders(value: str) -> None:
    assert is_placeholder(value)


@pytest.mark.parametrize("value", ["Zq8Rt2Lm5Xw9Kp3V", "9f8e7d6c5b4a3928", "hunter2!x"])
def test_values_that_are_not_placeholders(value: str) -> None:
    assert not is_placeholder(value)


def test_stand_ins_do_not_include_filler() -> None:
    # REFERENCE blocks `ghp_` + 36 x: a vendor's prefix with filler of the right length is a
    # token; only words in the value's place stand in for one.
    assert not stands_in("x" * 36)
    assert stands_in("<your-token-here>")
    assert stands_in("abc…")


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("streaming_configuration_for_the_app", True),
        ("config_v2_2024", True),
        ("SomeClassNameHere", True),
        ("o9dcbx2wy1afppjs4ii8", False),
        ("Zq8Rt2Lm5Xw9Kp3Vn7Bc", False),
    ],
)
def test_made_of_words(value: str, words: bool) -> None:
    assert made_of_words(value) is words


def test_code_is_not_a_literal() -> None:
    text = 'token = response["access_token"]'
    assert is_code(text, "response", text.index("response") + len("response"))
    assert not is_code("token = Zq8Rt2Lm5Xw9", "Zq8Rt2Lm5Xw9", len("token = Zq8Rt2Lm5Xw9"))


def test_base64_of_text_is_data() -> None:
    assert decodes_to_data("aGVsbG8gd29ybGQsIHRoaXMgaXMgYSB0ZXN0")
    assert not decodes_to_data("Zq8Rt2Lm5Xw9Kp3Vn7Bc1Hd4")


@pytest.mark.parametrize(
    "token",
    [
        "/Users/dev/projects/ddw06nx2/build/yEX1eCQ4rZ9Lf6aIcq0tyZmj",  # a path
        "src/lib/handlers/UserService",
        "3f786850e387550fdab836ed7e6dc881de23001b",  # a git SHA
        "123e4567-e89b-12d3-a456-426614174000",  # a UUID
        "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2",  # a Bitcoin address
        "sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU",
    ],
)
def test_what_only_looks_random(token: str) -> None:
    assert not looks_random(token)


def test_a_random_token_looks_random() -> None:
    assert looks_random("Zq8Rt2Lm5Xw9Kp3Vn7Bc1Hd4Fj6Gs0Ay2Eu")
