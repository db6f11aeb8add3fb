"""A learned re-ranking of recall's best candidates: the salience profile's fusion.

The hand-set fusion (:mod:`salience.search.pool`) ranks every candidate; its best
:attr:`Reranker.depth` are then scored again by a small model over the signals recall has
already computed for them (full-text and vector scores, the fused relevance before and
after context spreading, the raw cosine) and over features of the memory and the query (its
length, whether it asks a question, how its session fares among the candidates, how long the
candidates are, how many words the query has and whether it names a date). A memory's
logit is ``bias + Σ weight·feature`` and, for each hidden :class:`Unit` of the model,
``out · tanh(unit bias + Σ unit weight·feature)``: a small network beside the linear terms,
which lets a feature count differently where others differ (the kind of store, the kind of
question). Its learned relevance is the logit min-max normalised over the re-ranked
candidates (the best is 1, as with the hand fusion, so the profile's prior keeps its
weight). ``recall --explain`` shows every term of the sum (each unit one term, named by the
features that move it most), so a ranking can be checked by hand.

The weights are fitted by ``bench/fusion_fit.py`` on the LoCoMo and LongMemEval dev files
(held out: leave one conversation out, and half of the LongMemEval questions fixed by id) and
shipped as ``rerank.json`` beside this module. One global weight per signal could not serve
both kinds of store (two-sided dialogue of short turns; short user turns beside long
assistant turns): the features that carry the candidates' length let one model do it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import date
from functools import cache, cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from salience.lazy import lazy_module
from salience.models.hits import Terms
from salience.text import named_keys
from salience.text_dates import day_words

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Floats = npt.NDArray[np.float64]
else:
    np = lazy_module("numpy")

MODEL = Path(__file__).resolve().parent / "rerank.json"
WORD = re.compile(r"[a-z0-9]+")
STOP = frozenset(
    "a an and are as at be by did do does for from had has have he her his how i in is it its"
    " me my of on or our she so that the their them they this to was we were what when where"
    " which who why will with would you your".split()
)
DATE_CUE = re.compile(
    r"\b(when|date|day|days|week|weeks|month|months|year|years|ago|last|yesterday|before|"
    r"after|first|recent|since|until|january|february|march|april|may|june|july|august|"
    r"september|october|november|december|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday|\d{4})\b"
)
# What recall hands the model for each candidate (columns of :func:`signals`' matrix).
SIGNALS = (
    "lexical",  # full-text score, min-max normalised over the candidates (0: no match)
    "vector",  # cosine, min-max normalised (0: not found by vectors)
    "cosine",  # the raw cosine (0: not found by vectors)
    "own",  # fused relevance before context spreading
    "fused",  # after it
    "context",  # the best session neighbour's fused relevance
    "lexical_hit",
    "vector_hit",
    "length",  # log(1 + characters of the memory as one line)
    "asks",  # the memory holds a question mark
    "query_words",  # log(1 + the query's distinct content words)
    "query_date",  # the query names a date or a time
    "pool",  # the median length of the candidates, less POOL_CENTRE
    "support",  # the best fused relevance of another candidate of its session
    "session_hits",  # log(1 + other candidates of its session)
    "date_match",  # the day it was written is a day the query names ("three days ago")
    "speaker",  # who says it (its label: "Melanie: ...") is named in the query
    "hop",  # its best cosine with the hand fusion's first two other candidates (a second hop)
    "hop_other",  # the same with those of another session only
)
POOL_CENTRE = 4.5
# The model's features: a signal, or the product of two.
FEATURES: tuple[tuple[str, ...], ...] = (
    ("lexical",),
    ("vector",),
    ("own",),
    ("context",),
    ("cosine",),
    ("lexical_hit",),
    ("vector_hit",),
    ("length",),
    ("length", "lexical"),
    ("length", "vector"),
    ("length", "context"),
    ("query_words", "lexical"),
    ("query_words", "vector"),
    ("query_date", "lexical"),
    ("pool",),
    ("pool", "lexical"),
    ("pool", "vector"),
    ("pool", "context"),
    ("pool", "own"),
    ("pool", "length"),
    ("asks",),
    ("asks", "context"),
    ("support",),
    ("session_hits",),
    ("pool", "support"),
    ("date_match",),
    ("speaker",),
    ("hop",),
    ("hop_other",),
)
FEATURE_NAMES = tuple("*".join(f) for f in FEATURES)
# Set by bench/fusion_fit.py to collect (ids, signals) of each re-ranking, for fitting.
SINK: ContextVar[list[tuple[list[str], Floats]] | None] = ContextVar("rerank_sink", default=None)


def query_signals(query: str) -> tuple[float, float]:
    """(query_words, query_date) of a query."""
    lowered = query.lower()
    words = {w for w in WORD.findall(lowered) if w not in STOP}
    return math.log1p(len(words)), float(DATE_CUE.search(lowered) is not None)


@dataclass(frozen=True)
class Candidates:
    """What recall knows of its best candidates, in the hand fusion's order."""

    lexical: Floats
    lexical_hit: npt.NDArray[np.bool_]
    vector: Floats  # NaN: not found by vectors
    cosine: Floats  # NaN: not found by vectors
    own: Floats
    fused: Floats
    line_length: npt.NDArray[np.int64]
    session: npt.NDArray[np.int64]  # negative: no session
    asks: npt.NDArray[np.bool_]
    created: npt.NDArray[np.int64]  # microseconds since the epoch (UTC)
    speaker: npt.NDArray[np.int64]  # salience.text.name_key of who says it (0: no one named)
    days: tuple[str, ...] = ()  # the calendar words of the days the query names
    vectors: Floats | None = None  # each one's stored vector (a row of NaN: none), if known


def written_on(created: npt.NDArray[np.int64], days: Sequence[str]) -> Floats:
    """1 where the day a memory was written (UTC) is one of ``days`` (``text_dates``' words:
    ``2023 May 7 Sunday``; a weekend names two), else 0."""
    if not days:
        return np.zeros(len(created))
    named = " | ".join(days)
    epoch = date(1970, 1, 1).toordinal()
    return np.array(
        [
            float(day_words(date.fromordinal(epoch + int(c) // 86_400_000_000)) in named)
            for c in created.tolist()
        ]
    )


SEEDS = 2
"""How many of the hand fusion's first candidates seed the second hop."""


def hops(vectors: Floats | None, sessions: npt.NDArray[np.int64]) -> tuple[Floats, Floats]:
    """Each candidate's best cosine with the first :data:`SEEDS` candidates other than itself
    (in the hand fusion's order; ``vectors``: a row each, NaN for none): how close it is to
    what recall found first, whatever the question's words; and the same with the seeds of
    other sessions only (``sessions``: negative for none). 0 for no vector or nothing closer."""
    n = len(sessions)
    if vectors is None or n < 2:
        return np.zeros(n), np.zeros(n)
    hop: Floats = np.zeros(n)
    other: Floats = np.zeros(n)
    for seed in range(min(n, SEEDS)):  # (a column each: a few whole-column steps)
        sims = vectors @ vectors[seed]
        sims = np.where(sims > 0.0, sims, 0.0)  # (no vector, or further than orthogonal: 0)
        sims[seed] = 0.0  # (not itself)
        np.maximum(hop, sims, out=hop)
        if sessions[seed] >= 0:
            sims[sessions == sessions[seed]] = 0.0  # (the seed's session: not another's)
        np.maximum(other, sims, out=other)
    return hop, other


def spoken_by(speaker: npt.NDArray[np.int64], query: str) -> Floats:
    """1 where the memory's speaker (a :func:`~salience.text.name_key`; 0: none) is named in
    ``query`` ("What did Caroline research?" of "Caroline: ..."), else 0."""
    keys = speaker.tolist()
    speakers = set(keys)
    speakers.discard(0)
    if not speakers:
        return np.zeros(len(speaker))
    out = np.zeros(len(keys))
    for key in named_keys(query, speakers) & speakers:  # (0 is none of them)
        out[speaker == key] = 1.0
    return out


def _median(values: list[float]) -> float:
    """``np.median`` of a few values, the same double (the mean of the middle two as
    ``(a + b) / 2``), in a tenth of its time."""
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def signals(query: str, found: Candidates, context_weight: float) -> Floats:
    """The :data:`SIGNALS` matrix, one row per candidate."""
    n = len(found.fused)
    out = np.zeros((n, len(SIGNALS)), dtype=np.float64)
    if not n:
        return out
    column = _columns(SIGNALS)
    vector_hit = ~np.isnan(found.vector)
    own = np.where(np.isnan(found.own), found.fused, found.own)
    context = np.zeros(n)
    if context_weight > 0:
        context = np.maximum(0.0, ((1 + context_weight) * found.fused - own) / context_weight)
    length = np.log1p(found.line_length.astype(np.float64))
    words, dated = query_signals(query)
    # each candidate's others of the same session (none without a session)
    same = (found.session[:, None] == found.session[None, :]) & (found.session >= 0)[:, None]
    np.fill_diagonal(same, False)
    others = same.sum(axis=1)
    best = np.where(same, found.fused[None, :], -np.inf).max(axis=1)
    support = np.where(others > 0, best, 0.0)
    hits = np.log1p(others.astype(np.float64))
    hop, hop_other = hops(found.vectors, found.session)
    values = {
        "lexical": found.lexical,
        "vector": np.where(vector_hit, found.vector, 0.0),
        "cosine": np.where(vector_hit, found.cosine, 0.0),
        "own": own,
        "fused": found.fused,
        "context": context,
        "lexical_hit": found.lexical_hit.astype(np.float64),
        "vector_hit": vector_hit.astype(np.float64),
        "length": length,
        "asks": found.asks.astype(np.float64),
        "query_words": np.full(n, words),
        "query_date": np.full(n, dated),
        "pool": np.full(n, _median(length.tolist()) - POOL_CENTRE),
        "support": support,
        "session_hits": hits,
        "date_match": written_on(found.created, found.days),
        "speaker": spoken_by(found.speaker, query),
        "hop": hop,
        "hop_other": hop_other,
    }
    for name, value in values.items():
        out[:, column[name]] = value
    return out


@cache
def _columns(signals: tuple[str, ...]) -> dict[str, int]:
    """Each signal's column (a fit may try other signals for a while: asked of the tuple)."""
    return {name: i for i, name in enumerate(signals)}


def features(raw: Floats) -> Floats:
    """The model's inputs (:data:`FEATURES`) from a :func:`signals` matrix: each feature's
    first signal, times its second, and so on, left to right (the same products as one
    feature at a time, in a few whole-matrix steps)."""
    if not FEATURES:
        return np.zeros((len(raw), 0))
    first, *more = _factors(FEATURES, SIGNALS)  # (a fit may try other features for a while)
    out: Floats = np.ascontiguousarray(raw[:, first])
    for at, columns in more:
        out[:, at] *= raw[:, columns]
    return out


@cache
def _factors(features: tuple[tuple[str, ...], ...], signals: tuple[str, ...]) -> tuple[Any, ...]:
    """``features`` as columns of ``signals``: every feature's first, then for each further
    factor the features that have one and its column."""
    column = {name: i for i, name in enumerate(signals)}
    steps: list[Any] = [np.array([column[names[0]] for names in features], dtype=np.intp)]
    for k in range(1, max(len(names) for names in features)):
        at = [i for i, names in enumerate(features) if len(names) > k]
        factor = [column[features[i][k]] for i in at]
        steps.append((np.array(at, dtype=np.intp), np.array(factor, dtype=np.intp)))
    return tuple(steps)


@dataclass(frozen=True)
class Unit:
    """A hidden unit of the model: ``out · tanh(bias + Σ weight·feature)`` in the logit;
    ``name`` says which features move it most (fitted: standardised weights' largest)."""

    name: str
    weights: tuple[float, ...]
    bias: float
    out: float


@dataclass(frozen=True)
class Reranker:
    """A fitted model: a weight per feature and a bias, hidden ``units`` (none: linear), for
    the best ``depth`` candidates."""

    weights: tuple[float, ...]
    bias: float
    depth: int
    units: tuple[Unit, ...] = ()

    @cached_property
    def _arrays(self) -> tuple[Floats, Floats, Floats, Floats]:
        """(weights, units' weights as rows, units' biases, units' out weights)."""
        hidden = np.array([u.weights for u in self.units], dtype=np.float64)
        return (
            np.array(self.weights, dtype=np.float64),
            hidden.reshape(len(self.units), len(self.weights)),
            np.array([u.bias for u in self.units], dtype=np.float64),
            np.array([u.out for u in self.units], dtype=np.float64),
        )

    def scored(self, inputs: Floats) -> tuple[Floats, Floats]:
        """Each row of :func:`features`' logit, and its units' values (one column each)."""
        weights, hidden, biases, out = self._arrays
        values: Floats = inputs @ hidden.T + biases
        _tanh(values)
        logits: Floats = inputs @ weights + self.bias + values @ out
        return logits, values

    def logits(self, inputs: Floats) -> Floats:
        """The logit of each row of :func:`features`."""
        return self.scored(inputs)[0]

    @cached_property
    def _named(self) -> tuple[tuple[str, ...], tuple[float, ...]]:
        """Every term's name and weight: the features', then the units' (their out)."""
        units = tuple(f"unit {n}: {u.name}" for n, u in enumerate(self.units, 1))
        return (*FEATURE_NAMES, *units), (*self.weights, *(u.out for u in self.units))

    def terms(self, inputs: Floats, values: Floats) -> Terms:
        """One candidate's logit as terms (name, value, weight) that add up to it with the
        bias: each feature, then each unit (``unit N: its features``, its tanh, its out);
        ``inputs`` and ``values``: its row of :func:`features` and of :meth:`scored`'s units.
        Built when read."""
        names, weights = self._named
        return Terms(names, lambda: [*inputs.tolist(), *values.tolist()], weights)


def _tanh(x: Floats) -> None:
    """``x`` replaced by its tanh, as ``1 - 2 / (exp(2x) + 1)``: within 4e-16 of ``np.tanh``,
    in half its time where NumPy has no SIMD tanh for doubles (AVX2: 58 against 30 us for
    the 50 x 80 units of a recall; AVX-512 has one). 2x is cut to [-80, 80], past which
    both give exactly -1 or 1 (tanh 20 is 1 to 17 places): exp neither overflows nor
    underflows."""
    np.add(x, x, out=x)
    np.clip(x, -80.0, 80.0, out=x)
    np.exp(x, out=x)
    x += 1.0
    np.divide(2.0, x, out=x)
    np.subtract(1.0, x, out=x)


def normalised(logits: Floats) -> tuple[Floats, float, float]:
    """The logits min-max normalised over the candidates, as fusion normalises each
    retriever's scores (the best is 1; all 1 when they are equal), and (lowest, highest)."""
    if not len(logits):
        return logits, 0.0, 0.0
    low, high = float(logits.min()), float(logits.max())
    if high - low <= 1e-12:
        return np.ones(len(logits)), low, high
    result: Floats = (logits - low) / (high - low)
    return result, low, high


@cache
def load(path: Path = MODEL) -> Reranker:
    """The shipped model (checked: one weight per feature, by name, in it and in each unit)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if tuple(data["features"]) != FEATURE_NAMES:
        raise ValueError(f"{path}: its features are not this module's; refit it")
    weights = tuple(float(w) for w in data["weights"])
    units = tuple(
        Unit(
            str(u["name"]), tuple(float(w) for w in u["weights"]), float(u["bias"]), float(u["out"])
        )
        for u in data.get("units", ())
    )
    if len(weights) != len(FEATURES) or any(len(u.weights) != len(FEATURES) for u in units):
        raise ValueError(f"{path}: a weight per feature is missing; refit it")
    return Reranker(weights, float(data["bias"]), int(data["depth"]), units)
