"""Secrets hidden from a scanner that reads the text as written (evasions.py): look-alike
and fullwidth letters, invisible characters, spaces, base64 and hex. Each is refused with
the kind it is, placed where it was written; benign text in other scripts and encodings
is not."""

from __future__ import annotations

import base64

import pytest

from salience.write.gates.evasions import folded, joined
from salience.write.gates.pipeline import screen
from salience.write.gates.secrets import scan

AWS = "AKIA" + "Q3T7W2RZ9KX4M6PV"
GITHUB = "ghp_" + "R7kQ2mZx9LwT4vBn8YcJ3hFd6GsPaE1uKo5i"
CYRILLIC = {"A": "\u0410", "K": "\u041a", "I": "\u0406", "T": "\u0422", "M": "\u041c"}


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if c.isalnum() else c for c in text)


def _lookalike(text: str) -> str:
    return "".join(CYRILLIC.get(c, c) for c in text)


EVASIONS = {
    "fullwidth letters": (f"my key is {_fullwidth(AWS)} for prod", _fullwidth(AWS)),
    "Cyrillic look-alikes": (f"my key is {_lookalike(AWS)} for prod", _lookalike(AWS)),
    "Greek look-alikes": (
        f"key {AWS.replace('A', chr(0x391)).replace('K', chr(0x39A))}",
        AWS.replace("A", chr(0x391)).replace("K", chr(0x39A)),
    ),
    "mathematical bold": (
        "key " + "".join(chr(0x1D400 + ord(c) - 65) if c.isupper() else c for c in AWS),
        "".join(chr(0x1D400 + ord(c) - 65) if c.isupper() else c for c in AWS),
    ),
    "zero-width space": (f"key {AWS[:6]}\u200b{AWS[6:]} ok", f"{AWS[:6]}\u200b{AWS[6:]}"),
    "bidi and tag characters": (
        f"key {AWS[:4]}\u202e\U000e0041{AWS[4:]} ok",
        f"{AWS[:4]}\u202e\U000e0041{AWS[4:]}",
    ),
    "split in fours": (
        "my key is " + " ".join(AWS[i : i + 4] for i in range(0, 20, 4)) + " ok",
        " ".join(AWS[i : i + 4] for i in range(0, 20, 4)),
    ),
    "split per character": ("key " + " ".join(AWS) + " thanks", " ".join(AWS)),
    "GitHub token split in fives": (
        "token " + " ".join(GITHUB[i : i + 5] for i in range(0, 40, 5)) + " done",
        " ".join(GITHUB[i : i + 5] for i in range(0, 40, 5)),
    ),
    "GitHub token in base64": (
        "here: " + base64.b64encode(GITHUB.encode()).decode() + " thanks",
        base64.b64encode(GITHUB.encode()).decode(),
    ),
    "GitHub token in url-safe base64 after a name": (
        "GH_TOKEN_B64=" + base64.urlsafe_b64encode(GITHUB.encode()).decode(),
        base64.urlsafe_b64encode(GITHUB.encode()).decode(),
    ),
    "GitHub token in hex": (
        "here: " + GITHUB.encode().hex() + " thanks",
        GITHUB.encode().hex(),
    ),
    "AWS key in base64 inside JSON": (
        '{"blob": "' + base64.b64encode(f"aws_access_key_id = {AWS}".encode()).decode() + '"}',
        base64.b64encode(f"aws_access_key_id = {AWS}".encode()).decode(),
    ),
}


@pytest.mark.parametrize("name", sorted(EVASIONS))
def test_a_hidden_secret_is_found_where_it_was_written(name: str) -> None:
    text, hidden = EVASIONS[name]
    findings = scan(text)
    assert findings, name
    first = findings[0]
    assert first.kind in {"AWS access key", "GitHub token"}
    assert text[first.start : first.end] == hidden
    assert first.hidden is not None
    assert first.hidden in first.describe()


@pytest.mark.parametrize("name", sorted(EVASIONS))
def test_a_write_holding_a_hidden_secret_is_refused_without_repeating_it(name: str) -> None:
    text, hidden = EVASIONS[name]
    screened = screen(text)
    assert screened.rejected
    assert hidden not in str(screened.reason)
    assert AWS not in str(screened.reason)
    assert GITHUB not in str(screened.reason)


BENIGN = [
    "Привет! Встреча перенесена на четверг, 14:00, в переговорной 3.",
    "Η συνάντηση μεταφέρθηκε την Πέμπτη στις 14:00 στην αίθουσα Β.",
    "Բարև, հանդիպումը հինգշաբթի է, ժամը 14:00",
    "会議は木曜日の１４：００に変更になりました（会議室Ｂ）。",
    "Café crème, naïve façade, Ångström, Øresund, straße — all fine 🙂👍",
    "The build ID is ＢＵＩＬＤ－２０２６ and the room is Ｂ３",
    "ﬁle ﬂow: the ligatures ﬁ and ﬂ are NFKC-folded to fi and fl in the index",
    "Order 66 was given at 3 PM by Captain Rex to Unit 501 of the 212th",
    "Call me at +1 415 555 0132 or room 4B on floor 12 of HQ-2 tomorrow",
    "We shipped v2 3 1 then v2 3 2 to QA on 2026 11 25 at 10 AM",
    "The SHA is 3f786850e387550fdab836ed7e6dc881de23001b and the tag v1.4.2",
    "aGVsbG8gd29ybGQsIHRoaXMgaXMganVzdCBhIHNlbnRlbmNlIGluIGJhc2U2NA==",
    "The hex of the greeting is 48656c6c6f2c20776f726c6421205468697320697320746578742e",
    "tokens that start with GR1348941 are GitLab runner registration tokens; never paste one",
    "Ship it: A B C D E F G H I J K L M N O P Q R S T are the grades we use",
]


@pytest.mark.parametrize("text", BENIGN)
def test_benign_text_in_other_scripts_and_encodings_is_kept(text: str) -> None:
    assert scan(text) == []


def test_ascii_text_has_no_folded_form() -> None:
    assert folded("an ordinary line of text, with digits 123") is None


def test_a_folded_form_maps_each_character_back() -> None:
    text = f"a\u200b{_fullwidth('AB')}c"
    form = folded(text)
    assert form is not None
    assert form.text == "aABc"
    assert form.span(1, 3) == (2, 4)


def test_prose_runs_are_not_joined() -> None:
    assert list(joined("we met in the park near the lake and walked home")) == []
