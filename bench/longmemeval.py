"""Retrieval benchmark on LongMemEval_S (Wu et al., ICLR 2025) files.

Each question has its own haystack: one fresh store per question, every turn a memory dated
its session's date (``2023/05/30 (Tue) 23:40``, a second per turn) and tagged with its
session; the question is asked as of its own date. Two protocols: ``user`` (the benchmark's
official retrieval protocol: user turns only, gold = user turns with ``has_answer``) and
``all`` (every turn a memory, every ``has_answer`` turn gold). Abstention questions
(``_abs``) have no evidence and are skipped.

Reported per question type and overall, without an LLM judge, as the benchmark's own
retrieval evaluation does: turn-level recall_any@5/@10 (any gold turn in the top k),
recall_all@5/@10 (every gold turn in the top k) and nDCG@10 on ``search(question, 10)``;
session-level (gold = ``answer_session_ids``, by session index) the same metrics over the
first k distinct sessions of a 50-deep recall; and recall latency of ``search(question, 10)``.
``--profile bm25`` is the plain BM25 baseline: the store's full-text ranking alone.

    python bench/longmemeval.py PATH/longmemeval_s_dev.json.gz [--profile salience]
        [--protocol both|user|all] [--sample N] [--types T1,T2] [--limit N] [--half held]

``--half held`` asks only the half of the questions the salience profile's learned fusion
was not fitted on (``--half fit``: the other). ``--sample N`` takes a stratified sample
(each type in proportion, a fixed order by hash of the question id), so a run of a few
minutes is representative of the whole file. Document
embeddings are cached on disk by text (``--cache``; the query is always embedded afresh, so
latency includes it). Prints a table and writes JSON (default
bench/results/longmemeval-<profile>.json). The data file is never copied into the
repository: pass its path.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from common import (
    learned_model,
    machine,
    ndcg,
    parse_plan,
    print_table,
    recall_plan,
    store_in,
    write_results,
)
from salience import Config, Memory
from salience.embeddings import Embedder
from salience.errors import ImportFormatError
from salience.ids import new_ulid
from salience.stores.base import MemoryFilter

PROTOCOLS = ("user", "all")
TURN_K = 10
SESSION_DEPTH = 50
MAX_CONTENT = 1 << 20  # some haystack turns are pasted documents longer than the default cap


def parse_date(text: str) -> datetime:
    """``2023/05/30 (Tue) 23:40`` -> an aware datetime (UTC)."""
    return datetime.strptime(text.strip(), "%Y/%m/%d (%a) %H:%M").replace(tzinfo=UTC)


def load(path: Path) -> list[dict[str, Any]]:
    """The instances of a LongMemEval JSON file (gzip or not)."""
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    data = json.loads(raw)
    if not isinstance(data, list):
        raise SystemExit(f"{path}: expected a JSON list of LongMemEval instances")
    return data


def _order(question_id: str) -> str:
    return hashlib.sha256(question_id.encode()).hexdigest()


def split(question_id: str) -> str:
    """``fit`` or ``held``: the half a question belongs to, fixed by its id alone, before any
    fit (bench/fusion_fit.py fits on one half and measures on the other)."""
    return "fit" if hashlib.sha256(question_id.encode()).digest()[0] < 128 else "held"


def select(
    instances: Sequence[dict[str, Any]],
    *,
    types: Sequence[str] = (),
    sample: int | None = None,
    limit: int | None = None,
    half: str | None = None,
) -> list[dict[str, Any]]:
    """The questions to ask: no abstention questions, only ``types`` if given, only those of
    ``half`` (see :func:`split`) if given; ``sample`` draws a stratified sample (each type's
    share kept, at least one each, largest remainders first), in a fixed order by hash of the
    question id; ``limit`` keeps the first N."""
    chosen = [
        q
        for q in instances
        if not q["question_id"].endswith("_abs")
        and (not types or q["question_type"] in types)
        and (half is None or split(q["question_id"]) == half)
    ]
    if sample is not None and sample < len(chosen):
        by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for q in sorted(chosen, key=lambda q: _order(q["question_id"])):
            by_type[q["question_type"]].append(q)
        exact = {t: sample * len(qs) / len(chosen) for t, qs in by_type.items()}
        quota = {t: max(1, int(x)) for t, x in exact.items()}
        for t in sorted(exact, key=lambda t: (int(exact[t]) - exact[t], t)):
            if sum(quota.values()) >= sample:
                break
            quota[t] += 1
        picked = {q["question_id"] for t, qs in by_type.items() for q in qs[: quota[t]]}
        chosen = [q for q in chosen if q["question_id"] in picked]
    return chosen[:limit]


class CachedEmbedder:
    """An embedder that remembers the vectors of documents (while ``loading``), on disk.

    Same name, dimensions and identity as the model it wraps, so stores cannot tell them
    apart; queries are embedded by the model every time."""

    def __init__(self, model: Embedder, path: Path | None) -> None:
        self.model = model
        self.path = path
        self.loading = False
        self._vectors: dict[str, np.ndarray] = {}
        self._added = 0
        if path is not None and path.exists():
            with np.load(path) as saved:
                self._vectors = dict(zip(saved["keys"].tolist(), saved["vectors"], strict=True))

    @property
    def name(self) -> str:
        return self.model.name

    @property
    def dimensions(self) -> int:
        return self.model.dimensions

    @property
    def identity(self) -> str:
        return self.model.identity

    def missing(self, texts: Sequence[str]) -> int:
        """How many of ``texts`` the cache does not hold (each would be embedded)."""
        return sum(_key(t) not in self._vectors for t in set(texts))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not self.loading:
            return self.model.embed(texts)
        keys = [_key(t) for t in texts]
        wanted = {k: t for k, t in zip(keys, texts, strict=True) if k not in self._vectors}
        if wanted:
            made = self.model.embed(list(wanted.values()))
            self._vectors.update(zip(wanted, made, strict=True))
            self._added += len(wanted)
        return np.stack([self._vectors[k] for k in keys]).astype(np.float32)

    def save(self) -> None:
        if self.path is None or not self._added:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = list(self._vectors)
        partial = self.path.with_suffix(".tmp.npz")
        np.savez(partial, keys=np.array(keys), vectors=np.stack([self._vectors[k] for k in keys]))
        partial.replace(self.path)
        self._added = 0


def memories(question: dict[str, Any], protocol: str) -> list[tuple[int, int, datetime, str, bool]]:
    """(session index, turn index, time, content, gold) for every turn the protocol indexes."""
    out = []
    for s, (date, session) in enumerate(
        zip(question["haystack_dates"], question["haystack_sessions"], strict=True)
    ):
        start = parse_date(date)
        for t, turn in enumerate(session):
            if protocol == "user" and turn["role"] != "user":
                continue
            if not turn["content"].strip():
                continue
            gold = bool(turn.get("has_answer"))
            out.append((s, t, start + timedelta(seconds=t), turn["content"], gold))
    return out


def import_turns(
    engine: Memory, question_id: str, rows: list[tuple[int, int, datetime, str, bool]]
) -> tuple[dict[str, tuple[int, bool]], int]:
    """Import the turns; a turn the secret scanner refuses is left out (and counted).
    Returns memory id -> (session index, gold) and how many turns were refused."""
    lines, meta = [], []
    for session, turn, when, content, gold in rows:
        memory_id = new_ulid(when)
        record = {
            "id": memory_id,
            "content": content,
            "type": "observation",
            "source": "import",
            "session_id": f"{question_id}-s{session}",
            "tags": [f"session:s{session}", f"turn:{turn}"],
            "created_at": when.isoformat(),
            "updated_at": when.isoformat(),
        }
        lines.append(json.dumps(record))
        meta.append((memory_id, session, gold))
    refused = 0
    while lines:
        try:
            engine.import_(lines)
            break
        except ImportFormatError as error:  # a secret: drop that turn, keep the rest
            del lines[error.line - 1], meta[error.line - 1]
            refused += 1
    return {memory_id: (session, gold) for memory_id, session, gold in meta}, refused


def distinct(sessions: Sequence[int]) -> list[int]:
    """The sessions in order of first appearance."""
    return list(dict.fromkeys(sessions))


def scores(ranked: Sequence[Any], gold: set[Any], prefix: str) -> dict[str, float]:
    """recall_any@5/@10, recall_all@5/@10 and nDCG@10 of one ranking."""
    out = {}
    for k in (5, 10):
        found = gold & set(ranked[:k])
        out[f"{prefix} any@{k}"] = float(bool(found))
        out[f"{prefix} all@{k}"] = float(found == gold)
    out[f"{prefix} nDCG@10"] = ndcg([str(r) for r in ranked], {str(g) for g in gold}, 10)
    return out


def ask(
    engine: Memory, profile: str, question: str, as_of: datetime, limit: int
) -> tuple[list[str], float]:
    """Memory ids, best first, and the milliseconds the recall took."""
    started = time.perf_counter()
    if profile == "bm25":
        pairs = engine.store.search(question, MemoryFilter(as_of=as_of), limit)
        ids = [record.id for record, _ in pairs]
    else:
        ids = [h.record.id for h in engine.search(question, limit, as_of=as_of, touch=False)]
    return ids, (time.perf_counter() - started) * 1000


def evaluate_question(
    config: Config, model: CachedEmbedder | None, question: dict[str, Any], protocol: str
) -> dict[str, Any]:
    """One question under one protocol: its metrics, latency and counts."""
    rows = memories(question, protocol)
    gold_sessions = {
        s
        for s, sid in enumerate(question["haystack_session_ids"])
        if sid in set(question["answer_session_ids"])
    }
    with Memory.open(config=config, embedder=model) as engine:  # type: ignore[arg-type]
        if model is not None:
            model.loading = True
        try:
            ids, refused = import_turns(engine, question["question_id"], rows)
        finally:
            if model is not None:
                model.loading = False
        as_of = parse_date(question["question_date"])
        top, latency = ask(engine, config.profile, question["question"], as_of, TURN_K)
        deep, _ = ask(engine, config.profile, question["question"], as_of, SESSION_DEPTH)
    gold_turns = {m for m, (_, gold) in ids.items() if gold}
    result: dict[str, Any] = {
        "type": question["question_type"],
        "latency_ms": latency,
        "refused": refused,
        "gold_refused": sum(1 for r in rows if r[4]) - len(gold_turns),
    }
    if gold_turns:
        result |= scores(top, gold_turns, "turn")
    result |= scores(distinct([ids[m][0] for m in deep]), gold_sessions, "session")
    return result


METRICS = [
    f"{level} {m}"
    for level in ("turn", "session")
    for m in ("any@5", "any@10", "all@5", "all@10", "nDCG@10")
]


def summarise(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean of each metric (in %) per question type and overall; a metric counts only the
    questions that have it (turn metrics need a gold turn among the indexed ones)."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in results:
        groups[r["type"]].append(r)
        groups["overall"].append(r)
    table = {}
    for name in [*sorted(g for g in groups if g != "overall"), "overall"]:
        items = groups[name]
        row: dict[str, Any] = {
            "questions": len(items),
            "with gold turns": sum(1 for r in items if "turn any@10" in r),
        }
        for metric in METRICS:
            values = [r[metric] for r in items if metric in r]
            row[metric] = 100 * statistics.fmean(values) if values else None
        table[name] = row
    latencies = sorted(r["latency_ms"] for r in results)
    return {
        "metrics": table,
        "latency_ms": {
            "p50": statistics.median(latencies),
            "p95": latencies[int(0.95 * (len(latencies) - 1))],
        },
        "turns_refused": sum(r["refused"] for r in results),
        "gold_turns_refused": sum(r["gold_refused"] for r in results),
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    questions = select(
        load(args.path),
        types=[t for t in (args.types or "").split(",") if t],
        sample=args.sample,
        limit=args.limit,
        half=args.half,
    )
    if not questions:
        raise SystemExit("no questions selected (check --types)")
    protocols = PROTOCOLS if args.protocol == "both" else (args.protocol,)
    embedder = "none" if args.profile == "bm25" else args.embedder
    profile = "salience" if args.profile == "bm25" else args.profile
    plan = parse_plan(args.plan)
    model: CachedEmbedder | None = None
    results: dict[str, list[dict[str, Any]]] = {p: [] for p in protocols}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for n, question in enumerate(questions, 1):
            for protocol in protocols:
                name = f"lme_{question['question_id']}_{protocol}"
                with store_in(args.store, name) as url:
                    config = Config(
                        home=Path(tmp) / name,
                        embedder=embedder,
                        profile=profile,
                        recall_prior=args.prior,
                        store_url=url,
                        max_content_bytes=MAX_CONTENT,
                        recall_learned=args.learned,
                    )
                    if model is None and embedder != "none":
                        with Memory.open(config=config) as first:
                            loaded = first.vectors.embedder
                        assert loaded is not None
                        model = CachedEmbedder(loaded, _cache_path(args.cache, loaded))
                    with recall_plan(plan), learned_model(args.model):
                        found = evaluate_question(config, model, question, protocol)
                    results[protocol].append(found)
            if n % 10 == 0 or n == len(questions):
                if model is not None:
                    model.save()
                elapsed = time.perf_counter() - started
                print(f"  {n}/{len(questions)} questions, {elapsed:.0f} s", file=sys.stderr)
    by_type = Counter(q["question_type"] for q in questions)
    return {
        "file": args.path.name,
        "questions": len(questions),
        "question_types": dict(sorted(by_type.items())),
        "sample": args.sample,
        "half": args.half,
        "profile": args.profile,
        "embedder": embedder,
        "recall_prior": args.prior,
        "recall_learned": args.learned,
        "model": str(args.model) if args.model else "shipped",
        "plan": args.plan,
        "store": "postgresql" if args.store else "sqlite",
        "protocols": {p: summarise(results[p]) for p in protocols},
        "per_question": {
            p: [
                {"question_id": q["question_id"]} | r
                for q, r in zip(questions, results[p], strict=True)
            ]
            for p in protocols
        },
        "machine": machine(),
    }


def _key(text: str) -> str:
    """Where the cache keeps a text's vector: its SHA-256, the first 128 bits in hex."""
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _cache_path(cache: str, model: Embedder) -> Path | None:
    if cache == "none":
        return None
    digest = hashlib.sha256(model.identity.encode()).hexdigest()[:16]
    return Path(cache).expanduser() / f"longmemeval-{digest}.npz"


def report(results: dict[str, Any]) -> None:
    print(
        f"{results['file']}: {results['questions']} questions, profile {results['profile']}, "
        f"embedder {results['embedder']}"
    )
    for protocol, summary in results["protocols"].items():
        title = "user turns only (official)" if protocol == "user" else "all turns"
        print(f"\nprotocol: {title}")
        rows = [["type", "n", *METRICS]]
        for group, values in summary["metrics"].items():
            cells = [f"{values[m]:.1f}" if values[m] is not None else "-" for m in METRICS]
            rows.append([group, str(values["questions"]), *cells])
        print_table(rows, right_align_from=1)
        lat = summary["latency_ms"]
        print(
            f"recall latency p50 {lat['p50']:.1f} ms, p95 {lat['p95']:.1f} ms; turns refused "
            f"by the secret scanner: {summary['turns_refused']} "
            f"({summary['gold_turns_refused']} gold)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("path", type=Path, help="a LongMemEval JSON file (.json or .json.gz)")
    parser.add_argument("--profile", default="salience", help="a profile, or bm25 (baseline)")
    parser.add_argument("--embedder", default="minilm", choices=["minilm", "none"])
    parser.add_argument("--protocol", default="both", choices=["both", *PROTOCOLS])
    parser.add_argument("--sample", type=int, default=None, help="a stratified sample of N")
    parser.add_argument("--types", default=None, help="only these question types (comma list)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions")
    parser.add_argument(
        "--half",
        default=None,
        choices=["fit", "held"],
        help="only the questions of one half (the learned fusion is fitted on 'fit')",
    )
    parser.add_argument(
        "--prior", type=float, default=0.15, help="salience profile: recall_prior (0 = off)"
    )
    parser.add_argument(
        "--plan", default=None, help="salience recall-plan values, e.g. 'pool=50 reply_weight=0'"
    )
    parser.add_argument("--store", default=None, help="a postgresql:// URL (a schema per store)")
    parser.add_argument(
        "--learned",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="salience profile: the learned fusion (the default; --no-learned: the hand-set one)",
    )
    parser.add_argument(
        "--model",
        type=Path,
        default=None,
        help="re-rank with this learned model instead of the shipped one (bench/fusion_fit.py "
        "fit --write-halves: one fitted without the half asked)",
    )
    parser.add_argument(
        "--cache",
        default="~/.cache/salience-bench",
        help="where document embeddings are cached by text ('none': no cache)",
    )
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    results = run(args)
    report(results)
    write_results(args.out or f"bench/results/longmemeval-{args.profile}.json", results)


if __name__ == "__main__":
    main()
