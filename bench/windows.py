"""Long memories read whole? Vector retrieval with one vector per memory against windows.

The bundled MiniLM reads at most 256 word pieces; a longer text's vector never sees its tail.
This measures, on LongMemEval (every turn a memory, the ``all`` protocol: assistant turns are
the long ones), vector-only retrieval three ways:

* ``cut``: one vector of the text as the model reads it (today: the first 256 word pieces);
* ``best``: the text cut into overlapping windows (254 word pieces each, ``--stride`` apart),
  each embedded, the memory scored by its best window (one hit per memory);
* ``mean``: one vector, the normalised mean of the windows' vectors.

A short text is one window, so the three differ only for long texts. Reported per question
type: turn any@10, all@10, nDCG@10 and session any@5, all@10 (first distinct sessions of the
ranking), and how many gold turns are long. Also the cost: windows per long text, and
embedding time per text cut and windowed.

    python bench/windows.py PATH/longmemeval_s_dev.json.gz [--sample 80] [--stride 190]

Prints a table and writes JSON (default bench/results/windows.json). Document vectors are
cached on disk by text, as bench/longmemeval.py does.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from common import machine, ndcg, print_table, write_results
from longmemeval import CachedEmbedder, _cache_path, distinct, load, memories, select
from salience.embeddings.minilm import MODEL_DIR, MiniLMEmbedder

WINDOW = 254  # word pieces of text per window ([CLS] and [SEP] make 256)
WAYS = ("cut", "best", "mean")


def windows(tokenizer: Any, text: str, stride: int) -> list[str]:
    """The text itself when it fits, else overlapping slices of it, ``stride`` word pieces
    apart, each at most :data:`WINDOW` word pieces (cut at the pieces' character offsets)."""
    encoding = tokenizer.encode(text, add_special_tokens=False)
    offsets = encoding.offsets
    if len(offsets) <= WINDOW:
        return [text]
    out = []
    for start in range(0, len(offsets), stride):
        end = min(start + WINDOW, len(offsets))
        out.append(text[offsets[start][0] : offsets[end - 1][1]])
        if end == len(offsets):
            break
    return out


def metrics(
    order: Sequence[int], gold: Sequence[bool], sessions: Sequence[int], gold_sessions: set[int]
) -> dict[str, float]:
    ranked = list(order)
    wanted = {i for i, g in enumerate(gold) if g}
    out: dict[str, float] = {}
    for k in (10,):
        top = wanted & set(ranked[:k])
        out[f"turn any@{k}"] = float(bool(top))
        out[f"turn all@{k}"] = float(top == wanted)
    out["turn nDCG@10"] = ndcg([str(i) for i in ranked], {str(i) for i in wanted}, 10)
    first = distinct([sessions[i] for i in ranked[:200]])
    out["session any@5"] = float(bool(gold_sessions & set(first[:5])))
    out["session all@10"] = float(gold_sessions <= set(first[:10]))
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    from tokenizers import Tokenizer

    model = MiniLMEmbedder()
    cached = CachedEmbedder(model, _cache_path(args.cache, model))
    cached.loading = True
    tokenizer = Tokenizer.from_file(str(MODEL_DIR / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    questions = select(load(args.path), sample=args.sample)
    per_way: dict[str, list[tuple[str, dict[str, float]]]] = defaultdict(list)
    long_gold = long_turns = turns = window_count = 0
    for n, q in enumerate(questions, 1):
        rows = memories(q, "all")
        texts = [r[3] for r in rows]
        cut = cached.embed(texts)
        parts = [windows(tokenizer, t, args.stride) for t in texts]
        flat = [w for p in parts for w in p]
        owner = np.repeat(np.arange(len(texts)), [len(p) for p in parts])
        vectors = cached.embed(flat)
        query = model.embed([q["question"]])[0]
        cosine = vectors @ query
        best = np.full(len(texts), -np.inf)
        np.maximum.at(best, owner, cosine)
        sums = np.zeros((len(texts), vectors.shape[1]), dtype=np.float64)
        np.add.at(sums, owner, vectors)
        mean = sums / np.linalg.norm(sums, axis=1, keepdims=True)
        scores = {"cut": cut @ query, "best": best, "mean": mean @ query}
        gold = [r[4] for r in rows]
        sessions = [r[0] for r in rows]
        answer = set(q["answer_session_ids"])
        gold_sessions = {s for s, sid in enumerate(q["haystack_session_ids"]) if sid in answer}
        for way, values in scores.items():
            order = np.lexsort((np.arange(len(texts)), -np.asarray(values))).tolist()
            per_way[way].append((q["question_type"], metrics(order, gold, sessions, gold_sessions)))
        lengths = [len(p) for p in parts]
        turns += len(texts)
        long_turns += sum(1 for x in lengths if x > 1)
        long_gold += sum(1 for x, g in zip(lengths, gold, strict=True) if g and x > 1)
        window_count += sum(x for x in lengths if x > 1)
        if n % 10 == 0 or n == len(questions):
            cached.save()
            print(f"  {n}/{len(questions)} questions", file=sys.stderr)
    return {
        "file": args.path.name,
        "questions": len(questions),
        "stride": args.stride,
        "turns": turns,
        "long_turns": long_turns,
        "windows_per_long_turn": window_count / max(long_turns, 1),
        "gold_turns_long": long_gold,
        "metrics": {way: summarise(results) for way, results in per_way.items()},
        "embedding_ms": timing(model, tokenizer, questions, args.stride),
        "machine": machine(),
    }


def summarise(results: Sequence[tuple[str, dict[str, float]]]) -> dict[str, dict[str, float]]:
    groups: dict[str, list[dict[str, float]]] = defaultdict(list)
    for kind, m in results:
        groups[kind].append(m)
        groups["overall"].append(m)
    return {
        g: {"n": len(ms)} | {k: 100 * statistics.fmean(m[k] for m in ms) for k in ms[0]}
        for g, ms in sorted(groups.items(), key=lambda kv: (kv[0] == "overall", kv[0]))
    }


def timing(
    model: MiniLMEmbedder, tokenizer: Any, questions: Sequence[dict[str, Any]], stride: int
) -> dict:
    """Milliseconds to embed 50 long texts cut and windowed (a write's cost), medians of 3."""
    texts = [
        t["content"]
        for q in questions
        for s in q["haystack_sessions"]
        for t in s
        if len(windows(tokenizer, t["content"], stride)) > 1
    ][:50]
    if not texts:
        return {}
    flat = [w for t in texts for w in windows(tokenizer, t, stride)]
    out: dict[str, list[float]] = {"cut": [], "windows": []}
    for _ in range(3):
        for way, batch in (("cut", texts), ("windows", flat)):
            started = time.perf_counter()
            model.embed(batch)
            out[way].append((time.perf_counter() - started) * 1000 / len(texts))
    return {way: statistics.median(v) for way, v in out.items()} | {"texts": len(texts)}


def report(results: dict[str, Any]) -> None:
    print(
        f"{results['file']}: {results['questions']} questions, all turns; {results['turns']} "
        f"turns, {results['long_turns']} longer than the model's window "
        f"({results['windows_per_long_turn']:.2f} windows each, stride {results['stride']}); "
        f"gold turns among them: {results['gold_turns_long']}"
    )
    keys = list(next(iter(results["metrics"]["cut"].values())))[1:]
    rows = [["type", "n", *(f"{k} {w}" for k in keys for w in WAYS)]]
    for group, cut in results["metrics"]["cut"].items():
        cells = [f"{results['metrics'][w][group][k]:.1f}" for k in keys for w in WAYS]
        rows.append([group, str(cut["n"]), *cells])
    print_table(rows, right_align_from=1)
    t = results["embedding_ms"]
    if t:
        print(
            f"embedding per long text: cut {t['cut']:.1f} ms, windowed {t['windows']:.1f} ms "
            f"(median of 3 runs over {t['texts']} texts)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("path", type=Path, help="a LongMemEval JSON file (.json or .json.gz)")
    parser.add_argument("--sample", type=int, default=80, help="a stratified sample of N")
    parser.add_argument("--stride", type=int, default=190, help="word pieces between windows")
    parser.add_argument("--cache", default="~/.cache/salience-bench")
    parser.add_argument("--out", default="bench/results/windows.json")
    args = parser.parse_args()
    results = run(args)
    report(results)
    write_results(args.out, results)


if __name__ == "__main__":
    main()
