"""Fit the second reading of the instruction detector (salience.write.gates.sentences):
a small network over the MiniLM vector of each segment the word model finds suspicious.

Used by ``bench/injection_fit.py`` after the word model is fitted, on the same train data:
each text's segments are scored by the word model, the ones the detector would read again
(``sentences.chosen``: the best two at or above the floor) are embedded by the bundled
MiniLM (cached on disk by text), and labelled as the word fit labels them (an order's
segments 1, every other 0). The network (one hidden layer of ReLUs) is fitted by full-batch
Adam from a fixed seed: orders weigh half, chat segments ``chat_share`` and our benign
segments the rest. The threshold is the lowest second score that holds no more than
``chat_fp`` of the train half's chat turns beyond those already held (by the rules or the
word model: a turn held twice is one false hold) and ``benign_fp`` of our benign texts.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from salience.write.gates import learned, sentences
from salience.write.gates.redaction import redact

CACHE = Path("~/.cache/salience-bench").expanduser()

Item = dict[str, str]


def candidates(
    text: str, judge: learned.Model, floor: float, payload: str = ""
) -> list[tuple[str, float, int]]:
    """(segment, word score, 1 if it overlaps ``payload``) of each segment read again."""
    text = redact(text)
    start = text.find(payload) if payload else -1
    end = start + len(payload)
    read, at, places = learned.read(text), 0, []
    for segment, _, _ in read:
        where = text.find(segment, at)
        at = where + len(segment) if where >= 0 else at
        places.append(where)
    scores = [judge.score_parsed(parsed, before) for _, parsed, before in read]
    out = []
    for i in sentences.chosen(scores, floor):
        where, segment = places[i], read[i][0]
        inside = start >= 0 and where >= 0 and where < end and where + len(segment) > start
        out.append((segment, scores[i], int(inside)))
    return out


class Vectors:
    """MiniLM vectors of segments, cached on disk by the text's SHA-256."""

    def __init__(self, embed: Callable[[Sequence[str]], np.ndarray], identity: str) -> None:
        digest = hashlib.sha256(identity.encode()).hexdigest()[:16]
        self.path = CACHE / f"injection-segments-{digest}.npz"
        self.embed = embed
        self.known: dict[str, np.ndarray] = {}
        if self.path.exists():
            with np.load(self.path) as saved:
                self.known = dict(zip(saved["keys"].tolist(), saved["vectors"], strict=True))

    @staticmethod
    def key(text: str) -> str:
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    def of(self, texts: Sequence[str]) -> np.ndarray:
        missing = sorted({t for t in texts if self.key(t) not in self.known})
        if missing:
            made = self.embed(missing)
            self.known.update(zip(map(self.key, missing), made, strict=True))
            self.path.parent.mkdir(parents=True, exist_ok=True)
            keys = sorted(self.known)
            np.savez(
                self.path, keys=np.array(keys), vectors=np.stack([self.known[k] for k in keys])
            )
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        return np.stack([self.known[self.key(t)] for t in texts]).astype(np.float32)


def network(
    inputs: np.ndarray, labels: np.ndarray, weights: np.ndarray, hidden: int, l2: float, steps: int
) -> dict[str, np.ndarray]:
    """One hidden layer of ReLUs, a logistic output, weighted and L2-regularised, by Adam."""
    rng = np.random.default_rng(0)
    size = inputs.shape[1]
    params = {
        "w1": rng.normal(0, 1 / np.sqrt(size), (size, hidden)),
        "b1": np.zeros(hidden),
        "w2": rng.normal(0, 1 / np.sqrt(hidden), hidden),
        "b2": np.zeros(1),
    }
    first = {k: np.zeros_like(v) for k, v in params.items()}
    second = {k: np.zeros_like(v) for k, v in params.items()}
    share = weights / len(labels)
    for step in range(1, steps + 1):
        h = np.maximum(inputs @ params["w1"] + params["b1"], 0)
        z = h @ params["w2"] + params["b2"][0]
        residual = (1 / (1 + np.exp(-np.clip(z, -30, 30))) - labels) * share
        back = np.outer(residual, params["w2"]) * (h > 0)
        grads = {
            "w2": h.T @ residual + l2 * params["w2"],
            "b2": np.array([residual.sum()]),
            "w1": inputs.T @ back + l2 * params["w1"],
            "b1": back.sum(0),
        }
        for k, g in grads.items():
            first[k] = 0.9 * first[k] + 0.1 * g
            second[k] = 0.999 * second[k] + 0.001 * g * g
            mean, var = first[k] / (1 - 0.9**step), second[k] / (1 - 0.999**step)
            params[k] -= 0.01 * mean / (np.sqrt(var) + 1e-8)
    return params


def fit_second(
    judge: learned.Model,
    ours: list[Item],
    chat: list[str],
    vectors: Vectors,
    *,
    already: Sequence[bool] = (),
    floor: float = 2.0,
    hidden: int = 32,
    l2: float = 1e-2,
    steps: int = 800,
    chat_fp: float = 0.0001,
    benign_fp: float = 0.005,
    scale: float = 5.0,
    chat_share: float = 0.4,
) -> tuple[sentences.SentenceModel, dict[str, float]]:
    """The second reading fitted on our texts and chat (benign), and what it holds in sample."""
    rows: list[tuple[str, int, str, float, int]] = []  # (group, text, segment, score, label)
    for i, item in enumerate(ours):
        order = item["label"] == "instruction"
        for segment, score, inside in candidates(
            item["text"], judge, floor, item.get("payload", "")
        ):
            rows.append(("order" if order else "ours", i, segment, score, inside if order else 0))
    for i, turn in enumerate(chat):
        rows.extend(
            ("chat", i, segment, score, 0) for segment, score, _ in candidates(turn, judge, floor)
        )
    found = vectors.of([r[2] for r in rows])
    inputs = np.hstack([found, np.array([[r[3] / scale] for r in rows])])
    labels = np.array([r[4] for r in rows], dtype=float)
    groups = np.array([r[0] for r in rows])
    negative_ours = (labels == 0) & (groups != "chat")
    from_chat = groups == "chat"
    weights = np.where(labels == 1, 0.5 / max(labels.sum(), 1), 0.0)
    weights += np.where(negative_ours, (0.5 - chat_share) / max(negative_ours.sum(), 1), 0.0)
    weights += np.where(from_chat, chat_share / max(from_chat.sum(), 1), 0.0)
    weights *= len(rows)
    params = network(inputs, labels, weights, hidden, l2, steps)
    model = sentences.SentenceModel(
        floor=floor,
        threshold=0.0,
        scale=scale,
        w1=params["w1"].astype(np.float32),
        b1=params["b1"].astype(np.float32),
        w2=params["w2"].astype(np.float32),
        b2=float(params["b2"][0]),
    )
    again = model.scores(found, [r[3] for r in rows])
    best_chat = np.full(len(chat), -1e9)
    best_ours = np.full(len(ours), -1e9)
    for row, value in zip(rows, again, strict=True):
        into = best_chat if row[0] == "chat" else best_ours
        into[row[1]] = max(into[row[1]], value)
    benign = np.array([item["label"] == "benign" for item in ours])
    if len(already):  # (held already: holding it again adds no false hold)
        best_chat = np.where(np.asarray(already, dtype=bool), -1e9, best_chat)
    threshold = max(
        float(np.quantile(best_chat, 1 - chat_fp)),
        float(np.quantile(best_ours[benign], 1 - benign_fp)),
    )
    threshold = round(threshold + 1e-3, 3)
    model = sentences.SentenceModel(floor, threshold, scale, model.w1, model.b1, model.w2, model.b2)
    held = {
        "segments read again": len(rows),
        "orders held": round(float((best_ours[~benign] >= threshold).mean()), 4),
        "chat turns held": round(float((best_chat >= threshold).mean()), 5),
        "benign held": round(float((best_ours[benign] >= threshold).mean()), 4),
    }
    return model, held
