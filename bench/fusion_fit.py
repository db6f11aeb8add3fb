"""The salience profile's learned fusion: collect its signals, fit it, measure it held out.

Two steps. ``collect`` asks every question of both files (LoCoMo: every turn a memory;
LongMemEval: every turn a memory, the ``all`` protocol, abstention questions skipped) and
saves, for the best ``depth`` candidates of the hand-set fusion, the signals the re-ranking
model reads (:data:`salience.search.rerank.SIGNALS`, computed by recall itself) and which of
them are gold. ``fit`` fits the model's weights over :data:`salience.search.rerank.FEATURES`
(listwise: per question, a softmax over its candidates, the gold ones' log-probability
maximised, L2; or pointwise logistic regression), by default with ``--hidden`` tanh units
beside the linear terms (:func:`fit_net`, L-BFGS; the mean of ``--seeds`` fits from random
starts, written as one model), and reports it held out:

* LoCoMo: leave one conversation out (fitted on the other four and the LongMemEval fit half,
  scored on the fifth), R@5/R@10, any@10 and all@10 over categories 1-4 and per category;
* LongMemEval: the dev questions split in two by a hash of the question id, fixed before any
  fit (:func:`split`); fitted on the fit half and all of LoCoMo, scored on the held-out half:
  turn any/all@5/@10 and nDCG@10, session any/all@5/@10 and nDCG@10, per question type.

In-sample figures (fitted on everything) are printed beside the held-out ones, and the hand
fusion's ranking of the same candidates beside both. ``--write`` saves the model fitted on
everything as the file recall loads (``src/salience/search/rerank.json``).

    python bench/fusion_fit.py collect --locomo PATH/locomo_dev.json \\
        --longmemeval PATH/longmemeval_s_dev.json.gz --out /tmp/signals.npz
    python bench/fusion_fit.py fit /tmp/signals.npz [--loss list] [--l2 1.0] \\
        [--write src/salience/search/rerank.json]

Prints tables and writes JSON (default bench/results/fusion-fit.json). The data files are
never copied into the repository: pass their paths.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from common import machine, ndcg, print_table, reranking_with, write_results
from locomo import CATEGORIES, _gold, load_store, turns
from longmemeval import (
    MAX_CONTENT,
    CachedEmbedder,
    _cache_path,
    distinct,
    import_turns,
    load,
    memories,
    parse_date,
    select,
    split,
)
from salience import Config, Memory
from salience.search import rerank
from salience.search.learned import by_sessions

HIDDEN, L2_HIDDEN, SEEDS = 16, 30.0, 5  # the shipped model's (docs/scoring.md: how chosen)


class Collected:
    """Questions and the signals of their candidates, appended as they are asked."""

    def __init__(self, depth: int, sources: list[str]) -> None:
        self.depth = depth
        self.sources = sources
        self.rows: list[np.ndarray] = []
        self.gold: list[np.ndarray] = []
        self.session: list[np.ndarray] = []
        self.questions: list[dict[str, Any]] = []

    def ask(
        self, engine: Memory, question: str, as_of: datetime, depth: int
    ) -> tuple[list[str], np.ndarray]:
        """The ids and signals of the candidates the model re-ranks for this question."""
        sink: list[tuple[list[str], np.ndarray]] = []
        token = rerank.SINK.set(sink)
        try:
            engine.search(question, depth, as_of=as_of, touch=False)
        finally:
            rerank.SINK.reset(token)
        if not sink:  # (a store without candidates)
            return [], np.zeros((0, len(rerank.SIGNALS)))
        return sink[-1]

    def add(
        self, meta: dict[str, Any], x: np.ndarray, gold: np.ndarray, session: np.ndarray
    ) -> None:
        meta["start"] = sum(len(r) for r in self.rows)
        meta["count"] = len(x)
        self.rows.append(x)
        self.gold.append(gold)
        self.session.append(session)
        self.questions.append(meta)

    def save(self, path: Path) -> None:
        np.savez(
            path,
            x=np.concatenate(self.rows),
            gold=np.concatenate(self.gold),
            session=np.concatenate(self.session),
            questions=np.array(json.dumps(self.questions)),
            signals=np.array(rerank.SIGNALS),
            depth=np.array(self.depth),
            sources=np.array(self.sources),
        )


@contextmanager
def collecting(depth: int) -> Iterator[None]:
    """A model of no weights (the signals do not depend on them) that re-ranks the best
    ``depth`` (the stores are opened with ``recall_learned`` on)."""
    with reranking_with(rerank.Reranker((0.0,) * len(rerank.FEATURES), 0.0, depth)):
        yield


def collect_locomo(path: Path, depth: int, out: Collected, tmp: Path) -> None:
    for sample in json.loads(path.read_text(encoding="utf-8")):
        rows = turns(sample["conversation"])
        session_of = {dia_id: int(session[1:]) for dia_id, _, session, _ in rows}
        config = Config(
            home=tmp / sample["sample_id"],
            embedder="minilm",
            profile="salience",
            recall_learned=True,
        )
        with Memory.open(config=config) as engine:
            ids = load_store(engine, sample["sample_id"], rows)
            back = {m: session_of[d] for d, m in ids.items()}
            as_of = max(when for _, when, _, _ in rows) + timedelta(days=1)
            for qa in sample["qa"]:
                gold = _gold(qa, ids)
                if not gold:
                    continue
                found, x = out.ask(engine, qa["question"], as_of, depth)
                meta = {
                    "set": "locomo",
                    "group": sample["sample_id"],
                    "type": f"{qa['category']} {CATEGORIES.get(int(qa['category']), '?')}",
                    "gold_turns": len(gold),
                }
                is_gold = np.array([m in gold for m in found], dtype=bool)
                sessions = np.array([back[m] for m in found], dtype=np.int32)
                out.add(meta, x, is_gold, sessions)
        print(f"  locomo {sample['sample_id']}: {len(out.questions)} questions", file=sys.stderr)


def collect_longmemeval(
    path: Path, depth: int, out: Collected, tmp: Path, cache: str, limit: int | None
) -> None:
    model: CachedEmbedder | None = None
    questions = select(load(path), limit=limit)
    for n, q in enumerate(questions, 1):
        rows = memories(q, "all")
        config = Config(
            home=tmp / f"lme_{n}",
            embedder="minilm",
            profile="salience",
            max_content_bytes=MAX_CONTENT,
            recall_learned=True,
        )
        if model is None:
            with Memory.open(config=config) as first:
                assert first.vectors.embedder is not None
                loaded = first.vectors.embedder
            model = CachedEmbedder(loaded, _cache_path(cache, loaded))
        with Memory.open(config=config, embedder=model) as engine:  # type: ignore[arg-type]
            model.loading = True
            try:
                ids, _ = import_turns(engine, q["question_id"], rows)
            finally:
                model.loading = False
            found, x = out.ask(engine, q["question"], parse_date(q["question_date"]), depth)
        answer = set(q["answer_session_ids"])
        gold_sessions = [s for s, sid in enumerate(q["haystack_session_ids"]) if sid in answer]
        meta = {
            "set": "longmemeval",
            "group": split(q["question_id"]),
            "type": q["question_type"],
            "gold_turns": sum(1 for _, g in ids.values() if g),
            "gold_sessions": gold_sessions,
        }
        is_gold = np.array([ids[m][1] for m in found], dtype=bool)
        sessions = np.array([ids[m][0] for m in found], dtype=np.int32)
        out.add(meta, x, is_gold, sessions)
        if n % 20 == 0 or n == len(questions):
            model.save()
            print(f"  longmemeval {n}/{len(questions)}", file=sys.stderr)


# --- fitting ------------------------------------------------------------------------------


def fit(x: np.ndarray, y: np.ndarray, l2: float, weight: np.ndarray) -> np.ndarray:
    """Logistic regression by Newton's method: coefficients for [standardised x, 1]."""
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-9
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    beta = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], l2)
    penalty[-1] = 0.0
    for _ in range(50):
        p = 1 / (1 + np.exp(-(z @ beta)))
        gradient = z.T @ (weight * (p - y)) + penalty * beta
        hessian = (z * (weight * p * (1 - p))[:, None]).T @ z + np.diag(penalty)
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.abs(step).max() < 1e-9:
            break
    # back to the raw inputs: logit = x @ w + b
    w = beta[:-1] / scale
    return np.append(w, beta[-1] - float(mean @ w))


def fit_lists(
    x: np.ndarray,
    y: np.ndarray,
    l2: float,
    groups: Sequence[tuple[int, int, float]],
    sessions: np.ndarray | None = None,
    session_weight: float = 0.0,
) -> np.ndarray:
    """A listwise fit (conditional logit): per question, a softmax over its candidates, the
    gold ones' mean log-probability maximised; ``groups``: (start, count, weight) of each
    question's rows in ``x``. With ``sessions`` (1 for a candidate of a gold session), the
    same again over them, weighted ``session_weight``: recall is measured by its sessions
    too. Coefficients for the raw inputs, then 0 (no intercept)."""
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-9
    z = (x - mean) / scale
    lists = [(z[a : a + n], y[a : a + n], w) for a, n, w in groups if y[a : a + n].any()]
    if sessions is not None and session_weight > 0:
        lists += [
            (z[a : a + n], sessions[a : a + n], w * session_weight)
            for a, n, w in groups
            if sessions[a : a + n].any()
        ]

    def objective(beta: np.ndarray) -> float:
        total = 0.5 * l2 * float(beta @ beta)
        for zq, yq, w in lists:
            logit = zq @ beta
            top = logit.max()
            log_sum = top + math.log(float(np.exp(logit - top).sum()))
            total += w * (log_sum - float(yq @ logit) / yq.sum())
        return total

    beta = np.zeros(z.shape[1])
    current = objective(beta)
    for _ in range(100):
        gradient = l2 * beta
        hessian = np.diag(np.full(z.shape[1], l2))
        for zq, yq, w in lists:
            logit = zq @ beta
            p = np.exp(logit - logit.max())
            p /= p.sum()
            expected = p @ zq
            gradient += w * (expected - yq @ zq / yq.sum())
            centred = zq - expected
            hessian += w * (centred * p[:, None]).T @ centred
        step = np.linalg.solve(hessian, gradient)
        size = 1.0
        while size > 1e-6:  # damped Newton: halve the step until the objective falls
            tried = beta - size * step
            value = objective(tried)
            if value <= current:
                break
            size /= 2
        beta, moved, current = tried, current - value, value
        if np.abs(size * step).max() < 1e-8 or moved < 1e-12:
            break
    return np.append(beta / scale, 0.0)


class Net:
    """A fitted model on the raw features: ``x @ weights + bias`` plus, for each hidden unit,
    ``out · tanh(x @ hidden + hidden_bias)`` (none: linear); ``names``: each unit's features
    that move it most."""

    def __init__(
        self,
        weights: np.ndarray,
        bias: float,
        hidden: np.ndarray | None = None,
        hidden_bias: np.ndarray | None = None,
        out: np.ndarray | None = None,
        names: Sequence[str] = (),
    ) -> None:
        d = len(weights)
        self.weights, self.bias = weights, float(bias)
        self.hidden = np.zeros((0, d)) if hidden is None else hidden
        self.hidden_bias = np.zeros(0) if hidden_bias is None else hidden_bias
        self.out = np.zeros(0) if out is None else out
        self.names = list(names)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        linear: np.ndarray = x @ self.weights + self.bias
        if not len(self.out):
            return linear
        return linear + np.tanh(x @ self.hidden.T + self.hidden_bias) @ self.out

    @classmethod
    def mean(cls, nets: Sequence[Net]) -> Net:
        """The mean of several nets' logits, as one net (their units side by side)."""
        k = len(nets)
        return cls(
            sum(n.weights for n in nets) / k,
            sum(n.bias for n in nets) / k,
            np.vstack([n.hidden for n in nets]),
            np.concatenate([n.hidden_bias for n in nets]),
            np.concatenate([n.out for n in nets]) / k,
            [name for n in nets for name in n.names],
        )

    def to_json(self) -> dict[str, Any]:
        units = [
            {
                "name": name,
                "weights": [round(w, 12) for w in row],
                "bias": round(b, 12),
                "out": round(o, 12),
            }
            for name, row, b, o in zip(
                self.names,
                self.hidden.tolist(),
                self.hidden_bias.tolist(),
                self.out.tolist(),
                strict=True,
            )
        ]
        return {
            "weights": [round(w, 12) for w in self.weights.tolist()],
            "bias": round(self.bias, 12),
            "units": units,
        }


def lbfgs(f: Any, start: np.ndarray, iterations: int = 5000, memory: int = 10) -> np.ndarray:
    """Minimise ``f`` (returning value and gradient) by L-BFGS with a backtracking line
    search; stops when the gradient's largest component is under 1e-5 or the value moves by
    less than 2.2e-9 of itself (scipy's L-BFGS-B defaults)."""
    x = start.copy()
    value, grad = f(x)
    steps: list[tuple[np.ndarray, np.ndarray, float]] = []  # (s, y, 1 / y·s)
    for _ in range(iterations):
        q = grad.copy()
        alphas = []
        for s, y, rho in reversed(steps):
            a = rho * float(s @ q)
            q -= a * y
            alphas.append(a)
        if steps:
            s, y, _ = steps[-1]
            q *= float(s @ y) / float(y @ y)
        else:
            q /= max(1.0, float(np.linalg.norm(grad)))
        for (s, y, rho), a in zip(steps, reversed(alphas), strict=True):
            q += s * (a - rho * float(y @ q))
        direction = -q
        slope = float(grad @ direction)
        if slope >= 0:  # (not a descent: start over from the gradient)
            steps.clear()
            direction = -grad / max(1.0, float(np.linalg.norm(grad)))
            slope = float(grad @ direction)
        size = 1.0
        while True:
            tried = x + size * direction
            new_value, new_grad = f(tried)
            if new_value <= value + 1e-4 * size * slope:
                break
            size /= 2
            if size < 1e-10:
                return x
        s, y = tried - x, new_grad - grad
        if float(s @ y) > 1e-12:
            steps = [*steps[-(memory - 1) :], (s, y, 1.0 / float(s @ y))]
        moved = value - new_value
        x, value, grad = tried, new_value, new_grad
        if np.abs(grad).max() < 1e-5 or moved <= 2.2e-9 * max(abs(value), abs(new_value), 1.0):
            break
    return x


def fit_net(
    x: np.ndarray,
    y: np.ndarray,
    groups: Sequence[tuple[int, int, float]],
    hidden: int,
    l2: float,
    l2_hidden: float,
    seed: int,
    names: Sequence[str],
    sessions: np.ndarray | None = None,
    session_weight: float = 0.0,
) -> Net:
    """The listwise fit of :func:`fit_lists` with ``hidden`` tanh units beside the linear
    terms (their weights penalised by ``l2_hidden``), from a random start (``seed``);
    ``names``: the features' (each unit is named by its three largest standardised
    weights). ``sessions`` and ``session_weight``: as in :func:`fit_lists`."""
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-9
    lists = [(a, n, w, y) for a, n, w in groups if y[a : a + n].any()]
    if sessions is not None and session_weight > 0:
        lists += [
            (a, n, w * session_weight, sessions) for a, n, w in groups if sessions[a : a + n].any()
        ]
    rows = np.concatenate([np.arange(a, a + n) for a, n, _, _ in lists])
    z = (x[rows] - mean) / scale
    yq = np.concatenate([gold[a : a + n] for a, n, _, gold in lists])
    counts = np.array([n for _, n, _, _ in lists])
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    weight = np.array([w for _, _, w, _ in lists])
    segment = np.repeat(np.arange(len(lists)), counts)
    target = yq / np.add.reduceat(yq, starts)[segment]  # (the gold ones' mean)
    row_weight = weight[segment]
    d = z.shape[1]

    def unpack(p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        at = d + hidden * d
        return p[:d], p[d:at].reshape(hidden, d), p[at : at + hidden], p[at + hidden :]

    def objective(p: np.ndarray) -> tuple[float, np.ndarray]:
        u, w, b, v = unpack(p)
        h = np.tanh(z @ w.T + b)
        logit = z @ u + h @ v
        top = np.maximum.reduceat(logit, starts)
        e = np.exp(logit - top[segment])
        total = np.add.reduceat(e, starts)
        value = float(weight @ (top + np.log(total) - np.add.reduceat(target * logit, starts)))
        value += 0.5 * l2 * float(u @ u) + 0.5 * l2_hidden * float((w * w).sum() + v @ v)
        d_logit = row_weight * (e / total[segment] - target)
        d_h = d_logit[:, None] * v[None, :] * (1 - h * h)
        grad = np.concatenate(
            [
                z.T @ d_logit + l2 * u,
                (d_h.T @ z + l2_hidden * w).ravel(),
                d_h.sum(axis=0),
                h.T @ d_logit + l2_hidden * v,
            ]
        )
        return value, grad

    rng = np.random.default_rng(seed)
    start = np.concatenate(
        [np.zeros(d), rng.normal(0, 0.3, hidden * d), np.zeros(hidden), rng.normal(0, 0.3, hidden)]
    )
    u, w, b, v = unpack(lbfgs(objective, start))
    named = [", ".join(names[i] for i in np.argsort(-np.abs(row), kind="stable")[:3]) for row in w]
    # back to the raw inputs: z = (x - mean) / scale
    return Net(u / scale, -float(u @ (mean / scale)), w / scale, b - w @ (mean / scale), v, named)


def weights_for(questions: Sequence[dict[str, Any]]) -> np.ndarray:
    """A weight per candidate row, in the questions' order: each question weighs the same
    within its benchmark, and each benchmark half of the whole (scaled to mean 1)."""
    per_set: dict[str, int] = defaultdict(int)
    for q in questions:
        per_set[q["set"]] += 1
    parts = [np.full(q["count"], 1 / (max(q["count"], 1) * per_set[q["set"]])) for q in questions]
    weight = np.concatenate(parts)
    return weight * len(weight) / weight.sum()


def metrics(q: dict[str, Any], order: np.ndarray, gold: np.ndarray, sess: np.ndarray) -> dict:
    """Recall's metrics of one question with its candidates in this order."""
    ranked = order.tolist()
    found = [i for i in ranked if gold[i]]
    out: dict[str, float] = {}
    if q["set"] == "locomo":
        top10 = sum(1 for i in ranked[:10] if gold[i])
        out["R@5"] = sum(1 for i in ranked[:5] if gold[i]) / q["gold_turns"]
        out["R@10"] = top10 / q["gold_turns"]
        out["any@10"] = float(top10 > 0)
        out["all@10"] = float(top10 == q["gold_turns"])
        return out
    for k in (5, 10):
        hits = sum(1 for i in ranked[:k] if gold[i])
        out[f"turn any@{k}"] = float(hits > 0)
        out[f"turn all@{k}"] = float(hits == q["gold_turns"])
    # every gold turn counts in the ideal ranking, also those that are not candidates
    absent = {f"absent {j}" for j in range(q["gold_turns"] - len(found))}
    out["turn nDCG@10"] = ndcg([str(i) for i in ranked], {str(i) for i in found} | absent, 10)
    sessions = distinct([int(sess[i]) for i in ranked])
    gold_s = set(q["gold_sessions"])
    for k in (5, 10):
        got = gold_s & set(sessions[:k])
        out[f"session any@{k}"] = float(bool(got))
        out[f"session all@{k}"] = float(got == gold_s)
    out["session nDCG@10"] = ndcg([str(s) for s in sessions], {str(s) for s in gold_s}, 10)
    return out


def score(
    questions: Sequence[dict[str, Any]],
    x: np.ndarray,
    gold: np.ndarray,
    sess: np.ndarray,
    model: Net | None,
) -> list[tuple[dict[str, Any], dict[str, float]]]:
    """Each question's metrics, its candidates re-ranked by ``model`` (None: the hand-set
    order) within the hand-set order of sessions, as recall does
    (:func:`salience.search.learned.by_sessions`)."""
    out = []
    for q in questions:
        a, n = q["start"], q["count"]
        if model is None:
            order = np.arange(n)
        else:
            logit = model(x[a : a + n])
            ranked = np.lexsort((np.arange(n), -logit)).tolist()
            order = np.array(by_sessions(ranked, sess[a : a + n])[0], dtype=np.intp)
        out.append((q, metrics(q, order, gold[a : a + n], sess[a : a + n])))
    return out


def table(results: Sequence[tuple[dict[str, Any], dict[str, float]]]) -> dict[str, dict]:
    groups: dict[str, list[dict[str, float]]] = defaultdict(list)
    for q, m in results:
        groups[q["type"]].append(m)
        if q["set"] == "locomo":
            if int(q["type"][0]) <= 4:
                groups["1-4"].append(m)
            groups["1-5"].append(m)
        else:
            groups["overall"].append(m)
    return {
        g: {"n": len(ms)} | {k: 100 * float(np.mean([m[k] for m in ms])) for k in ms[0]}
        for g, ms in sorted(groups.items())
    }


def gold_sessions(
    questions: Sequence[dict[str, Any]], gold: np.ndarray, sess: np.ndarray
) -> np.ndarray:
    """1 for each candidate of a gold session (LoCoMo: a session of a gold candidate)."""
    out = np.zeros(len(gold))
    for q in questions:
        a, n = q["start"], q["count"]
        wanted = q.get("gold_sessions", sess[a : a + n][gold[a : a + n] > 0])
        out[a : a + n] = np.isin(sess[a : a + n], wanted)
    return out


def evaluate(
    data: dict[str, Any],
    l2: float,
    loss: str,
    session_weight: float = 0.0,
    drop: Sequence[str] = (),
    hidden: int = 0,
    l2_hidden: float = 30.0,
    seeds: int = 1,
) -> dict[str, Any]:
    """Held-out and in-sample figures beside the hand fusion's, and the weights fitted on
    everything. ``hidden``: tanh units beside the linear terms (listwise only; the mean of
    ``seeds`` fits from random starts, as one model)."""
    if data["signals"] != list(rerank.SIGNALS):
        raise SystemExit("the signals were collected by another version: collect them again")
    questions = data["questions"]
    unknown = set(drop) - set(rerank.SIGNALS)
    if unknown:
        raise SystemExit(f"not signals: {', '.join(sorted(unknown))}")
    kept = [i for i, names in enumerate(rerank.FEATURES) if not set(names) & set(drop)]
    x = rerank.features(data["x"])[:, kept]
    gold, sess = data["gold"].astype(float), data["session"]
    in_session = gold_sessions(questions, gold, sess)

    names = [rerank.FEATURE_NAMES[i] for i in kept]
    if hidden and loss != "list":
        raise SystemExit("hidden units are fitted listwise")

    def fitted(train: list[dict[str, Any]]) -> Net:
        rows = np.concatenate([np.arange(q["start"], q["start"] + q["count"]) for q in train])
        if loss == "point":
            coef = fit(x[rows], gold[rows], l2, weights_for(train))
            return Net(coef[:-1], coef[-1])
        per_set: dict[str, int] = defaultdict(int)
        for q in train:
            per_set[q["set"]] += 1
        groups, at = [], 0
        for q in train:
            groups.append((at, q["count"], len(train) / (2 * per_set[q["set"]])))
            at += q["count"]
        if hidden:
            return Net.mean(
                [
                    fit_net(
                        x[rows],
                        gold[rows],
                        groups,
                        hidden,
                        l2,
                        l2_hidden,
                        seed,
                        names,
                        in_session[rows],
                        session_weight,
                    )
                    for seed in range(seeds)
                ]
            )
        coef = fit_lists(x[rows], gold[rows], l2, groups, in_session[rows], session_weight)
        return Net(coef[:-1], coef[-1])

    locomo = [q for q in questions if q["set"] == "locomo"]
    lme_fit = [q for q in questions if q["set"] == "longmemeval" and q["group"] == "fit"]
    lme_held = [q for q in questions if q["set"] == "longmemeval" and q["group"] == "held"]
    held: list[tuple[dict[str, Any], dict[str, float]]] = []
    for conv in sorted({q["group"] for q in locomo}):
        coef = fitted([q for q in locomo if q["group"] != conv] + lme_fit)
        held += score([q for q in locomo if q["group"] == conv], x, gold, sess, coef)
    coef = fitted(locomo + lme_fit)
    held += score(lme_held, x, gold, sess, coef)
    # the other half held out too: fitted on LoCoMo and the held-out half
    without_fit = fitted(locomo + lme_held)
    other = score(lme_fit, x, gold, sess, without_fit)
    everything = fitted(locomo + lme_fit + lme_held)
    return {
        "features": names,
        "dropped": list(drop),
        "l2": l2,
        "loss": loss,
        "session_weight": session_weight,
        "hidden": hidden,
        "l2_hidden": l2_hidden if hidden else None,
        "seeds": seeds if hidden else None,
        "questions": {
            "locomo": len(locomo),
            "longmemeval fit half": len(lme_fit),
            "longmemeval held-out half": len(lme_held),
        },
        "today": table(score(locomo + lme_held, x, gold, sess, None)),
        "held_out": table(held),
        "in_sample": table(score(locomo + lme_held, x, gold, sess, everything)),
        "fit_half": {
            "today": table(score(lme_fit, x, gold, sess, None)),
            "held_out": table(other),
        },
        "model": everything.to_json(),
        # the models recall can be measured with held out (bench/longmemeval.py --model), by
        # the half they were fitted without
        "without": {"held": coef.to_json(), "fit": without_fit.to_json()},
    }


def write_model(
    path: Path,
    result: dict[str, Any],
    depth: int,
    sources: list[str],
    without: str | None = None,
) -> None:
    """The model fitted on everything (``without``: on all but that LongMemEval half), as
    :func:`salience.search.rerank.load` reads it."""
    fitted = result["model"] if without is None else result["without"][without]
    model = {
        "features": result["features"],
        "weights": fitted["weights"],
        "bias": fitted["bias"],
        "units": fitted["units"],
        "depth": depth,
        "fitted": {
            "by": "bench/fusion_fit.py",
            "on": sources,
            "questions": result["questions"],
            "without": without,
            "loss": result["loss"],
            "l2": result["l2"],
            "session_weight": result["session_weight"],
            "hidden": result["hidden"],
            "l2_hidden": result["l2_hidden"],
            "seeds": result["seeds"],
            "held_out": {
                "locomo 1-4 R@10": round(result["held_out"]["1-4"]["R@10"], 1),
                "longmemeval turn all@10": round(result["held_out"]["overall"]["turn all@10"], 1),
                "longmemeval session all@10": round(
                    result["held_out"]["overall"]["session all@10"], 1
                ),
            },
        },
    }
    path.write_text(json.dumps(model, indent=1) + "\n", encoding="utf-8")
    print(f"wrote the model to {path}")


def report(result: dict[str, Any]) -> None:
    units = f", {result['hidden']} units x {result['seeds']} fits (l2 {result['l2_hidden']})"
    print(
        f"{len(result['features'])} features, l2 {result['l2']}, loss {result['loss']}"
        + (units if result["hidden"] else "")
    )
    locomo = ["R@5", "R@10", "any@10", "all@10"]
    lme = ["turn any@10", "turn all@10", "turn nDCG@10", "session any@5", "session all@10"]
    for name, keys in (("LoCoMo", locomo), ("LongMemEval, all turns, held-out half", lme)):
        rows = [["group", "n", *(f"{k} {w}" for k in keys for w in ("now", "held", "in"))]]
        for group, today in result["today"].items():
            if keys[0] not in today:
                continue
            cells = [
                f"{result[w][group][k]:.1f}"
                for k in keys
                for w in ("today", "held_out", "in_sample")
            ]
            rows.append([group, str(today["n"]), *cells])
        print(f"\n{name} (now: today's order; held: held out; in: in sample)")
        print_table(rows, right_align_from=1)
    half = result["fit_half"]
    rows = [["group", "n", *(f"{k} {w}" for k in lme for w in ("now", "held"))]]
    for group, today in half["today"].items():
        cells = [f"{half[w][group][k]:.1f}" for k in lme for w in ("today", "held_out")]
        rows.append([group, str(today["n"]), *cells])
    print("\nLongMemEval, all turns, the fit half held out (fitted on LoCoMo and the other half)")
    print_table(rows, right_align_from=1)


@contextmanager
def trying(extra: Sequence[tuple[str, ...]]) -> Iterator[None]:
    """Features recall does not read yet (signals it collects, or their products) added to
    :data:`salience.search.rerank.FEATURES` while a fit measures them (``fit --extra``)."""
    unknown = {name for names in extra for name in names} - set(rerank.SIGNALS)
    if unknown:
        raise SystemExit(
            f"--extra names what recall does not collect: {', '.join(sorted(unknown))}"
        )
    features, names = rerank.FEATURES, rerank.FEATURE_NAMES
    rerank.FEATURES = (*features, *extra)
    rerank.FEATURE_NAMES = tuple("*".join(f) for f in rerank.FEATURES)
    try:
        yield
    finally:
        rerank.FEATURES, rerank.FEATURE_NAMES = features, names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--locomo", type=Path, required=True)
    c.add_argument("--longmemeval", type=Path, required=True)
    c.add_argument("--depth", type=int, default=50)
    c.add_argument("--cache", default="~/.cache/salience-bench")
    c.add_argument("--limit", type=int, default=None, help="only the first N LongMemEval ones")
    c.add_argument("--out", type=Path, required=True)
    f = sub.add_parser("fit")
    f.add_argument("signals", type=Path)
    f.add_argument("--l2", type=float, default=1.0)
    f.add_argument("--loss", default="list", choices=["list", "point"])
    f.add_argument(
        "--session-weight", type=float, default=0.0, help="weight of the gold sessions' lists"
    )
    f.add_argument(
        "--hidden", type=int, default=HIDDEN, help="tanh units beside the linear terms (0: linear)"
    )
    f.add_argument("--l2-hidden", type=float, default=L2_HIDDEN, help="the units' L2 weight")
    f.add_argument("--seeds", type=int, default=SEEDS, help="fits averaged, from random starts")
    f.add_argument("--out", default="bench/results/fusion-fit.json")
    f.add_argument("--write", type=Path, default=None, help="save the model recall loads here")
    f.add_argument(
        "--write-halves",
        type=Path,
        default=None,
        help="save in this folder the models fitted without each LongMemEval half "
        "(without-held.json, without-fit.json) for bench/longmemeval.py --model",
    )
    f.add_argument(
        "--drop", default="", help="leave out every feature of these signals (comma list)"
    )
    f.add_argument(
        "--extra",
        default="",
        help="try features recall does not read yet: signals or their products (hop,hop*support)",
    )
    args = parser.parse_args()
    if args.command == "collect":
        out = Collected(args.depth, [args.locomo.name, args.longmemeval.name])
        with tempfile.TemporaryDirectory() as tmp, collecting(args.depth):
            collect_locomo(args.locomo, args.depth, out, Path(tmp))
            collect_longmemeval(
                args.longmemeval, args.depth, out, Path(tmp), args.cache, args.limit
            )
        out.save(args.out)
        return
    with np.load(args.signals) as saved:
        data = {
            "x": saved["x"],
            "gold": saved["gold"],
            "session": saved["session"],
            "signals": saved["signals"].tolist(),
            "questions": json.loads(str(saved["questions"])),
            "depth": int(saved["depth"]),
            "sources": [str(p) for p in saved["sources"]],
        }
    drop = [d for d in args.drop.split(",") if d]
    if drop and (args.write or args.write_halves):
        raise SystemExit("--write saves the model of every feature: no --drop with it")
    extra = tuple(tuple(e.split("*")) for e in args.extra.split(",") if e)
    if extra and (args.write or args.write_halves):
        raise SystemExit("recall reads rerank.FEATURES only: no --write with --extra")
    with trying(extra):
        result = evaluate(
            data,
            args.l2,
            args.loss,
            args.session_weight,
            drop,
            args.hidden,
            args.l2_hidden,
            args.seeds,
        ) | {"machine": machine()}
    report(result)
    write_results(args.out, result)
    if args.write is not None:
        write_model(args.write, result, data["depth"], data["sources"])
    if args.write_halves is not None:
        args.write_halves.mkdir(parents=True, exist_ok=True)
        for half in ("held", "fit"):
            path = args.write_halves / f"without-{half}.json"
            write_model(path, result, data["depth"], data["sources"], without=half)


if __name__ == "__main__":
    main()
