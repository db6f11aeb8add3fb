"""The secret scanner: REFERENCE's strings, positions, and the laws it must keep."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from salience.write.gates.lookalikes import looks_random, shannon_entropy
from salience.write.gates.secrets import first_secret, scan

BLOCKED = [
    "My key is AKIAIOSFODNN7EXAMPLE",
    "Using sk-abcdefghijklmnopqrstuvwxyz for auth",
    "Token: ghp_" + "x" * 36,
    "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
    "Server=localhost;Password=secret123",
    "API_KEY=sk_live_abcdef12345678",
    "CLIENT_SECRET: verylongsecretvalue123",
    "npm_abcdefghijklmnopqrstuvwxyz0123456789",
    "DefaultEndpointsProtocol=https;AccountName=test;AccountKey=abc123",
    '{"private_key": "-----BEGIN RSA PRIVATE KEY',
    "Bot token is xoxb-123456-abcdef",
]
PASSED = [
    "The API uses JWT authentication with role-based access control",
    "Using sk-short key for the legacy test harness",
    "The deployment pipeline uses GitHub Actions with a matrix build strategy",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed the flaky test",
    "request id 123e4567-e89b-12d3-a456-426614174000 timed out",
    "see /usr/local/lib/python3.11/site-packages/requests/adapters.py",
    "docs at https://docs.python.org/3/library/sqlite3.html#sqlite3.Connection",
    "integrity sha512-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU47DEQpj8HBSa+/TImW+5JCeuQeRk",
    "the password: must-be-rotated-quarterly policy applies",
    "handleAuthenticationRequestCallback is called twice",
]


@pytest.mark.parametrize("text", BLOCKED)
def test_reference_strings_are_blocked(text: str) -> None:
    assert scan(text), text


@pytest.mark.parametrize("text", PASSED)
def test_reference_and_everyday_strings_pass(text: str) -> None:
    assert scan(text) == [], (text, scan(text))


def test_a_finding_names_kind_and_position_but_never_the_secret() -> None:
    text = "first line\nthen ghp_" + "a1B2" * 9 + " here"
    finding = first_secret(text)
    assert finding is not None
    assert (finding.kind, finding.line, finding.column) == ("GitHub token", 2, 6)
    message = finding.describe()
    assert message == "a GitHub token at line 2, column 6"
    assert "a1B2" not in message


KEY_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"


def test_private_key_kinds() -> None:
    for kind in ("RSA ", "EC ", "DSA ", "OPENSSH ", "ENCRYPTED ", "", "PGP "):
        block = "BLOCK" if kind == "PGP " else ""
        header = f"-----BEGIN {kind}PRIVATE KEY{' ' + block if block else ''}-----"
        assert [f.kind for f in scan(f"{header}\n{KEY_BODY}\n")] == ["private key"], header
        assert scan(header) == [], header  # a header alone is words about a key


def test_credentials_in_urls_but_not_plain_urls() -> None:
    assert [f.kind for f in scan("postgres://app:s3cr3t@db.internal:5432/app")] == [
        "password in URL"
    ]
    assert scan("https://user@example.com/path") == []
    assert scan("https://example.com:8443/health") == []


def test_high_entropy_tokens_are_caught_and_data_is_not() -> None:
    assert [f.kind for f in scan("token Zq8Lw2Xp9Rt4Vb7Nc1Mk3Jh6Gf5Ds0A")] == [
        "high-entropy string"
    ]
    assert not looks_random("SGVsbG8gd29ybGQsIHRoaXMgaXMganVzdCB0ZXh0Lg==")  # base64 of text
    assert not looks_random("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ")  # a PNG header
    assert not looks_random("a" * 30)


def test_entropy() -> None:
    assert shannon_entropy("aaaa") == 0
    assert shannon_entropy("abcd") == 2


def test_pathological_input_takes_time_in_proportion_to_its_length() -> None:
    # No catastrophic backtracking: four times the text takes about four times as long
    # (quadratic work would take sixteen). A ratio measured side by side, not a figure.
    import time

    def took(k: int) -> float:
        text = "a" * 5000 * k + "12345" + "_" * 5000 * k + "A" * 5000 * k
        times = []
        for _ in range(5):
            start = time.perf_counter()
            scan(text)
            times.append(time.perf_counter() - start)
        return min(times)  # (the least disturbed of five: another process shares the cores)

    took(1)  # (the patterns compile on first use)
    assert took(8) / took(2) < 10


alphabet = st.characters(codec="utf-8", exclude_categories=("Cs",))
prose = st.text(alphabet=st.sampled_from("abcdefghij klmnop,.\n"), max_size=200)
planted = st.sampled_from(
    [
        "AKIAIOSFODNN7EXAMPLE",
        "ghp_" + "Ab1" * 12,
        "xoxb-2048-1234567890-abcdefABCDEF",
        "sk-proj-" + "Xy7" * 10,
        "-----BEGIN OPENSSH PRIVATE KEY-----\n" + KEY_BODY,
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "mysql://root:hunter2@10.0.0.5/db",
    ]
)


@settings(max_examples=200, deadline=None)
@given(prose, planted, prose)
def test_a_planted_secret_is_always_caught(before: str, secret: str, after: str) -> None:
    text = f"{before} {secret} {after}"
    findings = scan(text)
    assert findings, text
    start = len(before) + 1
    assert any(f.start <= start + 4 for f in findings)
