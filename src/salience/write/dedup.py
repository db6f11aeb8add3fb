"""Duplicate detection rules (pure). Which rules run on a write is a property of the profile.

* ``exact_hash``: same user, same normalised content (NFKC, case, whitespace) -> duplicate.
* ``topic_upsert``: same user, same ``topic_key`` -> the existing memory is updated in place.
* ``bigram_dice``: a character-bigram Dice coefficient above 0.80 against the 30 most recent
  memories of the same type -> the existing memory takes the new content (talome).
* ``semantic``: cosine similarity >= ``rae_dedup_threshold`` (0.95) to a current memory of the
  same user -> duplicate, nothing stored (rae; needs an embedder, skipped visibly without).
"""

from __future__ import annotations

from collections import Counter

EXACT_HASH = "exact_hash"
TOPIC_UPSERT = "topic_upsert"
BIGRAM_DICE = "bigram_dice"
SEMANTIC = "semantic"
RULES = (TOPIC_UPSERT, EXACT_HASH, BIGRAM_DICE, SEMANTIC)

DICE_THRESHOLD = 0.80
DICE_WINDOW = 30


def bigrams(text: str) -> Counter[str]:
    """The multiset of lower-cased character pairs: ``hello`` -> he, el, ll, lo."""
    lowered = text.lower()
    return Counter(lowered[i : i + 2] for i in range(len(lowered) - 1))


def dice(a: str, b: str) -> float:
    """``2 * shared bigrams / (bigrams(a) + bigrams(b))``; 1 when neither has a bigram."""
    first, second = bigrams(a), bigrams(b)
    denominator = first.total() + second.total()
    if denominator == 0:
        return 1.0
    return 2 * (first & second).total() / denominator


def is_near_duplicate(a: str, b: str) -> bool:
    """Dice strictly above 0.80 (talome's threshold)."""
    return dice(a, b) > DICE_THRESHOLD
