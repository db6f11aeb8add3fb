"""bench/expansion.py: the names a question is expanded with."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import expansion

SPEAKERS = {"melanie", "caroline"}


def test_names_and_years_past_the_label() -> None:
    texts = ["Caroline: We drove to Lake Tahoe with Oscar in 2022, and Mel loved it!"]
    assert expansion.expansion(texts, "Where did they go?", SPEAKERS) == [
        "Lake Tahoe",
        "Oscar",
        "2022",
    ]


def test_what_the_question_or_a_speaker_holds_is_left_out() -> None:
    texts = ["Melanie: Thanks Caroline, I'm off to Paris. Then we saw Oscar again."]
    # Caroline and Mel are speakers, I'm a contraction, Paris is asked, Then opens a sentence
    assert expansion.expansion(texts, "When did Melanie go to Paris?", SPEAKERS) == ["Oscar"]


def test_at_most_six_terms_each_once() -> None:
    texts = ["Anna met Bo, Cy, Di, Ed, Flo, Gus and Bo again."]
    assert expansion.expansion(texts, "Who?", SPEAKERS) == ["Bo", "Cy", "Di", "Ed", "Flo", "Gus"]
