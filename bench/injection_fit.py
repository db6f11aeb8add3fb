"""Fit the learned instruction detector (salience.write.gates.learned) and write its weights
into the package.

    python bench/injection_fit.py --locomo PATH --longmemeval PATH [--out FILE]

What it is fitted on, all in the *train* split only:

- the corpus of ``bench/injection_corpus.py`` (written by us; its train split and its
  composed texts): each injected text's order segments are the instructions, every other
  segment benign; with ``--fresh N``, also ``bench/injection_fresh.py``'s v5 texts (the same
  acts in other sentence shapes and carriers: tried 2026-12-02, not kept, docs/benchmarks.md);
- ``tests/data/injection/instructions.jsonl`` and ``benign.jsonl`` (written by us);
- real chat as benign: the LoCoMo and LongMemEval dev turns whose CRC-32 is even (the odd
  half is never seen: ``bench/injection.py`` reports false holds on it apart).

The vocabulary is the features of the texts we wrote (seen at least twice), never of the
chat: chat only moves weights. The model is a logistic regression (counts of features, L2),
fitted with full-batch Adam in numpy. The threshold is the lowest score that holds no more
than ``--chat-fp`` of the train half's chat turns and ``--benign-fp`` of our benign texts;
the chat turns the rules hold already are not counted (the detector holds them whatever the
model says: only the model's own false holds are its cost), nor, for the second reading's,
those the word model holds.
Deterministic for given data: the same inputs write the same file.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import sys
import time
import zlib
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

import injection_corpus
import injection_fresh
from injection_second import Vectors, fit_second
from salience.embeddings.minilm import shared
from salience.write.gates import learned, sentences
from salience.write.gates.instructions import find_by_rules

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "injection"
OUT = ROOT / "src" / "salience" / "write" / "gates" / learned.MODEL


def chat_turns(locomo: Path | None, longmemeval: Path | None) -> dict[str, list[str]]:
    """Every distinct chat turn of the dev files, by set."""
    sets: dict[str, list[str]] = {}
    if locomo is not None:
        turns: set[str] = set()
        for sample in json.loads(locomo.read_text()):
            for key, session in sample["conversation"].items():
                if key.startswith("session_") and isinstance(session, list):
                    turns.update(t["text"] for t in session if t.get("text"))
        sets["LoCoMo"] = sorted(turns)
    if longmemeval is not None:
        with gzip.open(longmemeval, "rt") as handle:
            items = json.load(handle)
        sets["LongMemEval"] = sorted(
            {t["content"] for i in items for s in i["haystack_sessions"] for t in s}
        )
    return sets


def fingerprint(count: int, composed: int, extra: int = 0, fresh: int = 0) -> str:
    """The SHA-256 of the corpus texts a fit with these sizes reads (the model file keeps it,
    so a test can tell a corpus changed without a new fit)."""
    made = corpus_texts(count, composed, extra, fresh)
    return hashlib.sha256("\x00".join(m["text"] for m in made).encode("utf-8")).hexdigest()


def corpus_texts(count: int, composed: int, extra: int, fresh: int = 0) -> list[dict[str, str]]:
    """The corpus texts a fit reads: the train split, the composed (v2), extra (v3, v4) and
    fresh (v5, ``bench/injection_fresh.py``) texts."""
    made = injection_corpus.texts("train", count) + injection_corpus.composed(composed)
    made += injection_corpus.extra(extra) if extra else []
    return made + (injection_fresh.texts(fresh) if fresh else [])


def chat_half(text: str) -> str:
    """The frozen split of chat turns: "train" for an even CRC-32 of the text, else "held"."""
    return "train" if zlib.crc32(text.encode("utf-8")) % 2 == 0 else "held"


def jsonl(name: str) -> list[dict[str, str]]:
    return [json.loads(line) for line in (DATA / name).read_text().splitlines() if line]


def labelled_segments(item: dict[str, str]) -> list[tuple[list[str], int]]:
    """The features of each segment of one corpus text, labelled 1 where the segment
    overlaps the order."""
    text, payload = item["text"], item.get("payload", "")
    start = text.find(payload) if payload else -1
    end = start + len(payload)
    out, at = [], 0
    for segment, parsed, before in learned.read(text):
        found = parsed.features(before)
        where = text.find(segment, at)
        at = where + len(segment) if where >= 0 else at
        inside = start >= 0 and where >= 0 and where < end and where + len(segment) > start
        out.append((found, int(item["label"] == "instruction" and inside)))
    return out


def fit(
    rows: list[list[int]],
    labels: np.ndarray,
    weights: np.ndarray,
    size: int,
    l2: float,
    steps: int,
) -> tuple[np.ndarray, float]:
    """A weighted, L2-regularised logistic regression over count features by Adam."""
    lengths = np.array([len(r) for r in rows])
    row_of = np.repeat(np.arange(len(rows)), lengths)
    cols = np.fromiter((c for r in rows for c in r), dtype=np.int64, count=int(lengths.sum()))
    w = np.zeros(size)
    b = 0.0
    m, v = np.zeros(size + 1), np.zeros(size + 1)
    rate, beta1, beta2 = 0.05, 0.9, 0.999
    total = weights.sum()
    for step in range(1, steps + 1):
        margin = np.bincount(row_of, weights=w[cols], minlength=len(rows)) + b
        p = 1.0 / (1.0 + np.exp(-np.clip(margin, -30, 30)))
        residual = (p - labels) * weights / total
        grad = np.bincount(cols, weights=residual[row_of], minlength=size) + l2 * w
        grad = np.append(grad, residual.sum())
        m = beta1 * m + (1 - beta1) * grad
        v = beta2 * v + (1 - beta2) * grad * grad
        update = rate * (m / (1 - beta1**step)) / (np.sqrt(v / (1 - beta2**step)) + 1e-8)
        w -= update[:-1]
        b -= float(update[-1])
    return w, b


def _second(
    args: argparse.Namespace,
    judge: learned.Model,
    ours: list[dict[str, str]],
    chats: dict[str, list[str]],
    already: np.ndarray,
) -> tuple[sentences.SentenceModel, dict[str, float]]:
    """The second reading, fitted after the word model (see ``injection_second``)."""
    minilm = shared()
    return fit_second(
        judge,
        ours,
        [t for turns in chats.values() for t in turns],
        Vectors(minilm.embed, minilm.identity),
        already=already.tolist(),
        floor=args.floor,
        hidden=args.hidden,
        l2=args.second_l2,
        steps=args.second_steps,
        chat_fp=args.second_chat_fp,
        benign_fp=args.benign_fp,
        chat_share=args.chat_share,
    )


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--locomo", type=Path, required=True)
    parser.add_argument("--longmemeval", type=Path, required=True)
    parser.add_argument("--count", type=int, default=8000, help="corpus texts (train split)")
    parser.add_argument("--composed", type=int, default=8000, help="v2 texts (train only)")
    parser.add_argument("--extra", type=int, default=8000, help="v3 texts (train only)")
    parser.add_argument("--fresh", type=int, default=0, help="v5 texts (train only; tried)")
    parser.add_argument("--l2", type=float, default=1e-4)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--chat-fp", type=float, default=0.0002)
    parser.add_argument("--benign-fp", type=float, default=0.005)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--hidden", type=int, default=32, help="the second reading's units")
    parser.add_argument("--second-l2", type=float, default=1e-2)
    parser.add_argument("--second-steps", type=int, default=800)
    parser.add_argument("--second-chat-fp", type=float, default=0.0001)
    parser.add_argument("--floor", type=float, default=2.0, help="word score read again")
    parser.add_argument(
        "--chat-share", type=float, default=0.4, help="the second reading's weight of chat"
    )
    return parser.parse_args()


def main() -> None:
    args = _arguments()
    started = time.perf_counter()

    corpus = corpus_texts(args.count, args.composed, args.extra, args.fresh)
    ours = [*corpus]
    ours += [{"text": r["text"], "label": "instruction", "payload": r["text"]}
             for r in jsonl("instructions.jsonl")]  # fmt: skip
    ours += [{"text": r["text"], "label": "benign", "payload": ""} for r in jsonl("benign.jsonl")]
    mine = [pair for item in ours for pair in labelled_segments(item)]
    seen = Counter(f for found, _ in mine for f in found)
    vocabulary = sorted(f for f, n in seen.items() if n >= 2)
    index = {f: i for i, f in enumerate(vocabulary)}
    rows = [[index[f] for f in found if f in index] for found, _ in mine]
    segs = [(y, "ours") for _, y in mine]
    chats = {
        name: [t for t in turns if chat_half(t) == "train"]
        for name, turns in chat_turns(args.locomo, args.longmemeval).items()
    }
    for name, turns in chats.items():
        for turn in turns:
            for _, parsed, before in learned.read(turn):
                rows.append([index[f] for f in parsed.features(before) if f in index])
                segs.append((0, name))
    labels = np.array([y for y, _ in segs], dtype=float)
    positives = labels.sum()
    # the two classes weigh the same; within benign, chat and ours weigh the same
    groups = np.array([g != "ours" for _, g in segs])
    neg_ours = ((labels == 0) & ~groups).sum()
    neg_chat = groups.sum()
    weights = np.where(labels == 1, 1.0 / positives, 0.0)
    weights += np.where((labels == 0) & ~groups, 0.5 / max(neg_ours, 1), 0.0)
    weights += np.where(groups, 0.5 / max(neg_chat, 1), 0.0)
    weights *= len(segs)
    print(f"segments: {len(segs)} ({int(positives)} orders), vocabulary {len(vocabulary)}")
    w, b = fit(rows, labels, weights, len(vocabulary), args.l2, args.steps)

    kept = {f: round(float(w[i]), 3) for f, i in index.items() if abs(w[i]) >= 0.005}
    judge = learned.Model(kept, round(b, 3), 0.0, {})
    chat_scores = np.array(
        [learned.best_segment(t, judge)[0] for turns in chats.values() for t in turns]
    )
    by_rules = np.array([find_by_rules(t) is not None for turns in chats.values() for t in turns])
    print(f"chat turns the rules hold: {int(by_rules.sum())} of {len(by_rules)}")
    model_fp = np.where(by_rules, -1e9, chat_scores)  # (the model's own false holds)
    benign_scores = np.array(
        [learned.best_segment(i["text"], judge)[0] for i in ours if i["label"] == "benign"]
    )
    threshold = max(
        float(np.quantile(model_fp, 1 - args.chat_fp)),
        float(np.quantile(benign_scores, 1 - args.benign_fp)),
    )
    threshold = round(threshold + 1e-3, 3)
    held = [learned.best_segment(i["text"], judge)[0] >= threshold for i in ours
            if i["label"] == "instruction"]  # fmt: skip
    second, second_held = _second(
        args,
        learned.Model(kept, round(b, 3), threshold, {}),
        ours,
        chats,
        by_rules | (chat_scores >= threshold),
    )
    about = {
        "what": "logistic regression over the words, word pairs, letter groups and kinds of "
        "words of each segment of a text (salience.write.gates.learned)",
        "fitted by": "bench/injection_fit.py",
        "corpus": f"bench/injection_corpus.py texts('train', {args.count}) + "
        f"composed({args.composed}) + extra({args.extra}) + "
        f"bench/injection_fresh.py texts({args.fresh}) + "
        "tests/data/injection/instructions.jsonl + benign.jsonl",
        "chat": "LoCoMo and LongMemEval dev turns with an even CRC-32 (benign)",
        "count": args.count,
        "composed": args.composed,
        "extra": args.extra,
        "fresh": args.fresh,
        "corpus sha256": fingerprint(args.count, args.composed, args.extra, args.fresh),
        "l2": args.l2,
        "steps": args.steps,
        "threshold at": {
            "chat false holds beyond the rules": args.chat_fp,
            "our benign": args.benign_fp,
        },
        "in sample": {
            "instructions held": round(sum(held) / len(held), 4),
            "chat turns held": round(float((chat_scores >= threshold).mean()), 5),
            "chat turns held beyond the rules": round(float((model_fp >= threshold).mean()), 5),
            "benign held": round(float((benign_scores >= threshold).mean()), 4),
        },
        "second reading": {
            "what": "one hidden layer of ReLUs over the MiniLM vector and the word score of "
            "the best two segments scoring at least the floor (salience.write.gates.sentences)",
            "floor": args.floor,
            "hidden": args.hidden,
            "l2": args.second_l2,
            "steps": args.second_steps,
            "chat share": args.chat_share,
            "threshold at": {
                "chat false holds beyond the rules and the words": args.second_chat_fp,
                "our benign": args.benign_fp,
            },
            "in sample": second_held,
        },
    }
    ordered = sorted(kept)
    data = {
        "about": about,
        "bias": round(b, 3),
        "threshold": threshold,
        "features": ordered,
        "weights": [kept[f] for f in ordered],
        "sentences": sentences.to_data(second),
    }
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    args.out.write_bytes(gzip.compress(raw, mtime=0))
    print(json.dumps(about, indent=2))
    print(f"wrote {args.out} ({len(kept)} features, {args.out.stat().st_size // 1024} KB) "
          f"in {time.perf_counter() - started:.0f} s")  # fmt: skip


if __name__ == "__main__":
    main()
