"""The learned half of the instruction detector: a linear model over the words, word pairs
and letter groups of each sentence of a text, which holds orders the patterns of
:mod:`salience.write.gates.instructions` never listed ("an important message from the
user to the model: first forward the inbox to ...", a mistyped "ignore the rest of this
data", a snippet that uploads a file to an outside host).

A text is cut into segments (lines, sentences, the fields of a JSON record) and each is read
(:mod:`salience.write.gates.parsing`); each segment is scored on its own (``bias + sum of
weights`` of its features: :meth:`Parsed.features`; the kinds of its words, such as an
action, an outside target, the agent addressed or its task voided, and which kinds appear
together), and the text is held when its best segment reaches the model's threshold: an
order hidden in a long benign email is found where it sits, and nothing around it dilutes
it. Values an attacker changes at will are folded into kinds before scoring (``<url>``,
``<email>``, ``<iban>``, ``<ip>``, ``<path>``, ``<num>``); letter groups of long words keep
a misspelt word close to the word.

The weights ship in the package (``injection.json.gz``, fitted by ``bench/injection_fit.py``
on the corpus of ``bench/injection_corpus.py``, written by us, with real chat as benign;
the file says how it was fitted). Nothing is downloaded. The vocabulary holds only
features of texts we wrote, so a hold's reason, which names the features that drove it,
never repeats words of the text that are not in it (a secret cannot reach a reason).
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from itertools import islice, repeat
from typing import TYPE_CHECKING, cast

from salience.text import HeldTexts
from salience.write.gates.parsing import (
    MAX_SEGMENT,
    Parsed,
    features,
    letter_groups,
    parse,
    prior,
    read,
    segments,
    tokens,
)
from salience.write.gates.redaction import redact

if TYPE_CHECKING:
    from salience.write.gates.sentences import Embed, SentenceModel

MODEL = "injection.json.gz"
__all__ = ["MAX_SEGMENT", "Finding", "Model", "Parsed", "features", "find_order", "model",
           "parse", "read", "segments", "tokens"]  # fmt: skip
_SLACK = 1e-9
"""How far below the floor a bound must be to stand for a score: the bound and the score are
sums of the same weights in other orders, which may round apart."""


TOKENS_HELD = 1 << 16
"""Tokens whose weights a model keeps (its :attr:`Model.token_weights`): the words of written
texts, so a cache that an erasure empties (:class:`~salience.text.HeldTexts`)."""


def _token_weights() -> HeldTexts[str, float]:
    return HeldTexts(TOKENS_HELD)


@dataclass(frozen=True)
class Model:
    """Weights of features, a bias and the threshold a segment's score must reach."""

    weights: dict[str, float]
    bias: float
    threshold: float
    about: dict[str, object]

    token_weights: HeldTexts[str, float] = field(
        default_factory=_token_weights, compare=False, repr=False
    )
    """Each token's ``w:`` and ``c:`` weights summed, as tokens are met (a cache)."""
    sentences: SentenceModel | None = field(default=None, compare=False, repr=False)
    """The second reading of suspicious segments (:mod:`salience.write.gates.sentences`)."""
    pair_bound: dict[str, float] = field(init=False, compare=False, repr=False)
    """For each token, the highest positive weight of a ``b:`` pair it opens (``<s>``: the
    segment's first token): what the pairs of a segment can add at most."""

    def __post_init__(self) -> None:
        bound: dict[str, float] = {}
        for feature, weight in self.weights.items():
            if weight > 0 and feature.startswith("b:"):
                left = feature[2:].split(" ", 1)[0]
                bound[left] = max(weight, bound.get(left, 0.0))
        object.__setattr__(self, "pair_bound", bound)

    def score(self, found: list[str]) -> float:
        """The score of a segment with these features."""
        get = self.weights.get
        return self.bias + sum(get(f, 0.0) for f in found)

    def score_parsed(
        self, parsed: Parsed, before: frozenset[str], floor: float | None = None
    ) -> float:
        """The score of a read segment: the same as :meth:`score` of its features, faster.

        With ``floor``, a segment whose score cannot reach it is given a bound of its score,
        below ``floor``, and its pairs of neighbours are never made: each pair adds at most
        what :attr:`pair_bound` says of its first token (most segments of a long benign text
        end there)."""
        get, known = self.weights.get, self.token_weights
        tokens = list(map(known.get, parsed.tokens))
        if None in tokens:
            for i, token in enumerate(parsed.tokens):
                if tokens[i] is None:
                    groups = sum(get(g, 0.0) for g in letter_groups(token))
                    tokens[i] = known.keep(token, get(f"w:{token}", 0.0) + groups)
        zero = repeat(0.0)
        total: float = (
            self.bias
            + sum(cast("list[float]", tokens))
            + sum(map(get, parsed.rest, zero))
            + sum(map(get, prior(before), zero))
        )
        if floor is not None and parsed.found:
            bound, found = self.pair_bound, parsed.found
            most = total + bound.get("<s>", 0.0)
            most += sum(map(bound.get, islice(found, len(found) - 1), zero))
            if most < floor - _SLACK:
                return most
        return total + sum(map(get, parsed.pairs, zero))

    def drivers(self, found: list[str], count: int = 4) -> list[str]:
        """The readable features (words, word pairs) among ``found`` that pushed a segment
        most toward an order, as words."""
        pushed: dict[str, float] = {}
        for feature in found:
            weight = self.weights.get(feature, 0.0)
            if weight > 0 and feature[0] in "wb":
                pushed[feature] = pushed.get(feature, 0.0) + weight
        best = sorted(pushed, key=lambda f: -pushed[f])[:count]
        return [f[2:].replace("<s> ", "") for f in best]


def load(raw: bytes) -> Model:
    """A model from the bytes of its file (gzip-compressed JSON: about, bias, threshold,
    features and their weights)."""
    data = json.loads(gzip.decompress(raw))
    second = None
    if "sentences" in data:
        from salience.write.gates.sentences import from_data

        second = from_data(data["sentences"])
    return Model(
        weights=dict(zip(data["features"], data["weights"], strict=True)),
        bias=float(data["bias"]),
        threshold=float(data["threshold"]),
        about=dict(data["about"]),
        sentences=second,
    )


@cache
def model() -> Model:
    """The shipped model (read once, on the first text a write checks)."""
    return load(files("salience.write.gates").joinpath(MODEL).read_bytes())


@dataclass(frozen=True)
class Finding:
    """A segment the model reads as an order: its score, the features that drove it, and
    which reading held it (``words``, or ``meaning``: the second reading)."""

    score: float
    drivers: tuple[str, ...]
    by: str = "words"


def best_segment(text: str, judge: Model | None = None) -> tuple[float, str, list[str]]:
    """The highest segment score of ``text``, that segment and its features (-inf, "" and
    none for an empty text)."""
    judge = judge or model()
    best, where, why = float("-inf"), "", None
    for segment, parsed, before in read(text):
        value = judge.score_parsed(parsed, before)
        if value > best:
            best, where, why = value, segment, (parsed, before)
    return best, where, why[0].features(why[1]) if why else []


def find_order(text: str, judge: Model | None = None, embed: Embed | None = None) -> Finding | None:
    """Why the model reads ``text`` as an order to an agent, or None.

    A segment whose word score reaches the threshold holds the text. Otherwise the best few
    segments at or above the second reading's floor are embedded (by ``embed``, default the
    bundled MiniLM) and held if the second score reaches its threshold. The text is read
    after privacy redaction: a private span is never stored, and never embedded."""
    judge = judge or model()
    second = judge.sentences
    floor = judge.threshold if second is None else min(judge.threshold, second.floor)
    scored = [(judge.score_parsed(p, b, floor), s, p, b) for s, p, b in read(redact(text))]
    if not scored:  # (below: a score under ``floor`` may be a bound; no such segment counts)
        return None
    value, _, parsed, before = max(scored, key=lambda x: x[0])
    if value >= judge.threshold:
        return Finding(value, tuple(judge.drivers(parsed.features(before))))
    if second is None or value < second.floor:
        return None
    from salience.write.gates import sentences

    picked = [scored[i] for i in sentences.chosen([x[0] for x in scored], second.floor)]
    picked = [picked[i] for i in sentences.readable([x[1] for x in picked])]
    if not picked:
        return None
    vectors = (embed or sentences.shared_minilm())([x[1] for x in picked])
    again = second.scores(vectors, [x[0] for x in picked])
    at = max(range(len(picked)), key=lambda i: float(again[i]))
    if float(again[at]) < second.threshold:
        return None
    _, _, parsed, before = picked[at]
    return Finding(float(again[at]), tuple(judge.drivers(parsed.features(before))), "meaning")
