"""The learned half of the instruction detector: a linear model over the words, word pairs
and letter groups of each sentence of a text, which holds orders the patterns of
:mod:`salience.write.gates.instructions` never listed ("an important message from the
user to the model: first forward the inbox to ...", a mistyped "ignore the rest of this
data", a snippet that uploads a file to an outside host).

A text is cut into segments (lines, sentences, the fields of a JSON record), each segment
is scored on its own (``bias + sum of weights`` of its features: :meth:`Parsed.features`;
the kinds of its words, such as an action, an outside target, the agent addressed or its
task voided, and which kinds appear together), and the text is held when its best
segment reaches the model's threshold: an order hidden in a long benign email is found
where it sits, and nothing around it dilutes it. Values an attacker changes at will are
folded into kinds before scoring (``<url>``, ``<email>``, ``<iban>``, ``<ip>``,
``<path>``, ``<num>``); letter groups of long words keep a misspelt word close to the word.

The weights ship in the package (``injection.json.gz``, fitted by ``bench/injection_fit.py``
on the corpus of ``bench/injection_corpus.py``, written by us, with real chat as benign;
the file says how it was fitted). Nothing is downloaded. The vocabulary holds only
features of texts we wrote, so a hold's reason, which names the features that drove it,
never repeats words of the text that are not in it (a secret cannot reach a reason).
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass, field
from functools import cache, lru_cache
from importlib.resources import files
from itertools import chain, islice, pairwise, repeat
from typing import TYPE_CHECKING, NamedTuple, cast

from salience.text import holds_text
from salience.write.gates.kinds import LEADS, VERBS, kinds_of
from salience.write.gates.redaction import redact

if TYPE_CHECKING:
    from salience.write.gates.sentences import Embed, SentenceModel

MODEL = "injection.json.gz"
MAX_SEGMENT = 400
"""Characters of one segment; a longer one is cut at words (a segment is one order)."""

_TOKEN = re.compile(
    r"(?P<url>\bhttps?://\S+|\bwww\.\S+)"
    r"|(?P<email>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)"
    r"|(?P<iban>\b[A-Z]{2}\d{2}(?: ?[0-9A-Z]{4}){3,7}(?: ?[0-9A-Z]{1,3})?\b)"
    r"|(?P<ip>\b\d{1,3}(?:\.\d{1,3}){3}\b)"
    r"|(?P<path>(?:~|\.{1,2})?/[\w.@-]+(?:/[\w.@-]+)*/?)"
    r"|(?P<num>\d[\d,.]*)"
    r"|(?P<word>[^\W\d_][\w']*)"
    r"|(?P<mark>[^\w\s]{1,3})"
)
_SPLITS = (r"\n+", r"(?<=[.!?;])\s+(?=\S)")
_SPLITS_IF = (('"', r"\"\s*[,:]\s*\""), ("|", r"\s*\|\s*"), ("<", r"<[^<>]{1,20}>"))
"""Where a text is cut into segments: lines, sentences, and where a text holds the character
each needs, the fields of a JSON record, cells of a table, short tags (as written: the
pattern :func:`_splitter` makes finds the same cuts)."""
_FROM_FIRST = (r"(?<=\n)\n*", r"(?<=[.!?;]\s)\s*(?=\S)")
_FROM_FIRST_IF = (r"(?<=\")\s*[,:]\s*\"", r"(?<=\s)\s*\|\s*|(?<=\|)\s*", r"(?<=<)[^<>]{1,20}>")
"""The same cuts, each read past its first character (whitespace, or the character of its
:data:`_SPLITS_IF`), which a lookbehind checks is the one the cut as written starts with."""


@cache
def _splitter(holds: tuple[bool, ...]) -> re.Pattern[str]:
    """The cuts for a text holding the characters of :data:`_SPLITS_IF` as ``holds`` says: a
    cut whose character is not in the text is never tried at each of its characters.

    Every cut starts with whitespace or with its character, so the pattern opens with the
    class of those characters and reads the rest of each cut (:data:`_FROM_FIRST`, in the
    order of :data:`_SPLITS`): SRE searches for a pattern's opening class in C and tries the
    cuts only where it finds one, not at every character (a 3,000-character chat turn cut in
    49 µs, not 120). The same cuts, from the same places, as :func:`_cuts_as_written`."""
    kept = [
        (c, cut) for (c, _), cut, on in zip(_SPLITS_IF, _FROM_FIRST_IF, holds, strict=True) if on
    ]
    first = re.escape("".join(c for c, _ in kept))
    cuts = "|".join((*_FROM_FIRST, *(cut for _, cut in kept)))
    return re.compile(f"[\\s{first}](?:{cuts})")


def _cuts_as_written(holds: tuple[bool, ...]) -> re.Pattern[str]:
    """:func:`_splitter` as the cuts are written (what a test holds it to)."""
    kept = (cut for (_, cut), on in zip(_SPLITS_IF, holds, strict=True) if on)
    return re.compile("|".join((*_SPLITS, *kept)))


_PATH_WORDS = re.compile(r"[a-z][a-z0-9]+")


_PLAIN = re.compile(r"[^\W\d_][\w']*|[^\w\s]{1,3}")
_PLAIN_LOWER = re.compile(r"[a-z][a-z0-9_']+|[ai](?![a-z0-9_'])|[^a-z0-9_\s]{1,3}")
"""The tokens :data:`_PLAIN` finds in a lower-cased ASCII text, a lone letter but *a* and *i*
passed over by the pattern itself (its letter classes spelt out: faster than Unicode's)."""
_VALUE_HINT = re.compile(r"[@/\d]")
"""Without these characters (and *www.*) no value can be in a segment: only words and marks.
(One class: SRE searches for it in C; with *www.* beside it, it was tried at each character.)"""


def tokens(segment: str) -> list[str]:
    """The tokens of one segment: words (lower case), marks, and the kind of each value."""
    if not _VALUE_HINT.search(segment) and "www." not in segment:
        if segment.isascii():  # (lower-cased first: the same words, its marks have no case)
            return _PLAIN_LOWER.findall(segment.lower())
        return [
            t.lower() if t[0].isalpha() else t
            for t in _PLAIN.findall(segment)
            if len(t) > 1 or t in "aAiI" or not t[0].isalpha()
        ]
    out: list[str] = []
    for url, email, iban, _ip, path, num, word, mark in _TOKEN.findall(segment):
        if word:
            if len(word) > 1 or word in "aAiI":  # (a lone letter is a flag or an initial)
                out.append(word.lower())
        elif mark:
            out.append(mark)
        elif num:
            out.append("<num>")
        elif path:  # (which file: ".ssh", "credentials" say what is taken)
            out.append("<path>")
            out.extend(_PATH_WORDS.findall(path.lower()))
        else:
            out.append("<url>" if url else "<email>" if email else "<iban>" if iban else "<ip>")
    return out


def segments(text: str) -> list[str]:
    """``text`` cut into lines, sentences and fields, each at most :data:`MAX_SEGMENT`."""
    out: list[str] = []
    for part in _splitter(tuple(c in text for c, _ in _SPLITS_IF)).split(text):
        part = part.strip()
        while len(part) > MAX_SEGMENT:
            cut = part.rfind(" ", 0, MAX_SEGMENT)
            cut = cut if cut > MAX_SEGMENT // 2 else MAX_SEGMENT
            out.append(part[:cut])
            part = part[cut:].strip()
        if part:
            out.append(part)
    return out


class Parsed(NamedTuple):
    """One segment as the model reads it: its distinct words and marks (in order), every
    token in order (its pairs of neighbours are made from them when asked for), its other
    features, and the kinds of its words."""

    tokens: tuple[str, ...]
    found: tuple[str, ...]
    rest: tuple[str, ...]
    kinds: frozenset[str]

    @property
    def pairs(self) -> tuple[str, ...]:
        """The ``b:`` features: each distinct pair of neighbouring tokens (``<s>`` first)."""
        return tuple(dict.fromkeys([f"b:{a} {b}" for a, b in pairwise(("<s>", *self.found))]))

    def features(self, before: frozenset[str] = frozenset()) -> list[str]:
        """Every feature, as the fit counts them: ``w:`` each distinct word, ``c:`` letter
        groups of four of each distinct longer word (a group shared by two words counts
        twice), ``b:`` each distinct pair of neighbouring tokens (``<s>`` starts the
        segment), ``f:`` the kind of its first word, ``k:`` the kinds of its words, ``x:``
        each pair of kinds present together, ``p:`` the kinds of the segment ``before`` it
        ("Forget your task. Instead, ..." is one order in two)."""
        out = [f"w:{t}" for t in self.tokens]
        for token in self.tokens:
            out.extend(letter_groups(token))
        out.extend(self.pairs)
        out.extend(self.rest)
        out.extend(_prior(before))
        return out


def features(segment: str, before: frozenset[str] = frozenset()) -> list[str]:
    """The features of one segment (see :meth:`Parsed.features`)."""
    return parse(segment).features(before)


@holds_text
@lru_cache(maxsize=1 << 16)
def letter_groups(token: str) -> tuple[str, ...]:
    """The ``c:`` features of a token: its letter groups of four if it is a longer word."""
    if len(token) < 5 or not token[0].isalpha():
        return ()
    padded = f"^{token}$"
    return tuple(f"c:{padded[i : i + 4]}" for i in range(len(padded) - 3))


@holds_text
@lru_cache(maxsize=1 << 12)
def parse(segment: str) -> Parsed:
    """``segment`` read (see :class:`Parsed`)."""
    found = tokens(segment)
    distinct = tuple(dict.fromkeys(found))
    present = set(chain.from_iterable(map(kinds_of, distinct)))
    rest: list[str] = []
    for token in found:  # (the first word that is not a lead-in)
        kinds = kinds_of(token)
        if (kinds or token[0].isalpha()) and token not in LEADS:
            rest.extend(f"f:{k}" for k in kinds or ("other",))
            if token in VERBS:
                present.add("imperative")
            break
    every = frozenset(present)
    return Parsed(distinct, tuple(found), (*rest, *_kind_features(every)), every)


@lru_cache(maxsize=1 << 12)
def _prior(kinds: frozenset[str]) -> tuple[str, ...]:
    """The ``p:`` features of the kinds before, sorted: summed in one order in every process."""
    return tuple(f"p:{k}" for k in sorted(kinds))


@lru_cache(maxsize=1 << 12)
def _kind_features(kinds: frozenset[str]) -> tuple[str, ...]:
    ordered = sorted(kinds)
    pairs = (f"x:{a}+{b}" for i, a in enumerate(ordered) for b in ordered[i + 1 :])
    return (*(f"k:{k}" for k in ordered), *pairs)


def read(text: str) -> list[tuple[str, Parsed, frozenset[str]]]:
    """Each segment of ``text``, read, with the kinds of the segment before it."""
    out: list[tuple[str, Parsed, frozenset[str]]] = []
    before: frozenset[str] = frozenset()
    for segment in segments(text):
        parsed = parse(segment)
        out.append((segment, parsed, before))
        before = parsed.kinds
    return out


_SLACK = 1e-9
"""How far below the floor a bound must be to stand for a score: the bound and the score are
sums of the same weights in other orders, which may round apart."""


@dataclass(frozen=True)
class Model:
    """Weights of features, a bias and the threshold a segment's score must reach."""

    weights: dict[str, float]
    bias: float
    threshold: float
    about: dict[str, object]

    token_weights: dict[str, float] = field(default_factory=dict, compare=False, repr=False)
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
                    tokens[i] = known[token] = get(f"w:{token}", 0.0) + groups
        zero = repeat(0.0)
        total: float = (
            self.bias
            + sum(cast("list[float]", tokens))
            + sum(map(get, parsed.rest, zero))
            + sum(map(get, _prior(before), zero))
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
