"""salience beside a peer on the same LoCoMo questions, with the same vectors.

Each conversation's turns go into a salience store (as bench/locomo.py loads them) and into
a chromadb collection given salience's own stored MiniLM vectors, so both search identical
embeddings. Every question's vector is computed once before any timing; each question is
then asked of chromadb (vector only, cosine HNSW) and of salience (full-text, vectors,
fusion, context and profile scoring) in turn, so both are measured side by side in one run.
Reported: search time beyond the query embedding, p50/p95, and R@10 on the evidence turns.

chromadb is a development-only dependency this benchmark installs for itself, apart from
the project's environment (it pulls in many packages):

    python -m venv .venv-peers
    .venv-peers/bin/pip install -e . chromadb==1.5.9
    .venv-peers/bin/python bench/peers.py PATH/locomo_dev.json

chromadb's telemetry is turned off and no embedding function is given to it (it would
download a model). mem0 is not run: see docs/benchmarks.md. Prints a table and writes JSON
(default bench/results/peers.json). The data file is never copied into the repository.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import locomo
import rankings
from common import machine, print_table, write_results
from salience import Config, Memory


def chroma_collection(path: Path, name: str) -> Any:
    """A new chromadb collection on disk, cosine space, no embedding function, no telemetry."""
    try:
        import chromadb
        from chromadb.config import Settings
    except ImportError:
        raise SystemExit(
            "chromadb is not installed: python -m venv .venv-peers && "
            ".venv-peers/bin/pip install -e . chromadb==1.5.9 (see this file's docstring)"
        ) from None
    client = chromadb.PersistentClient(
        path=str(path), settings=Settings(anonymized_telemetry=False, allow_reset=True)
    )
    return client.create_collection(
        name, metadata={"hnsw:space": "cosine"}, embedding_function=None
    )


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"p50": statistics.median(ordered), "p95": ordered[int(0.95 * (len(ordered) - 1))]}


def recall_at(ranked: list[str], gold: set[str], k: int = 10) -> float:
    return len(gold & set(ranked[:k])) / len(gold)


def run(path: Path, conversations: int | None, profile: str) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))[:conversations]
    times: dict[str, list[float]] = {"chromadb": [], "salience": []}
    recall: dict[str, list[float]] = {"chromadb": [], "salience": []}
    with tempfile.TemporaryDirectory() as tmp:
        with Memory.open(config=Config(home=Path(tmp) / "model", embedder="minilm")) as first:
            loaded = first.vectors.embedder
        assert loaded is not None
        model = rankings.Remembering(loaded)
        for sample in data:
            sid = sample["sample_id"]
            turns = locomo.turns(sample["conversation"])
            rows = [(f"{sid}/{d}", w, f"{sid}-{s}", f"session:{s}", t) for d, w, s, t in turns]
            ids = {d: rankings.stable_id(w, f"{sid}/{d}") for d, w, _, _ in turns}
            as_of = max(w for _, w, _, _ in turns) + timedelta(days=1)
            config = Config(home=Path(tmp) / sid, embedder="minilm", profile=profile)
            with Memory.open(config=config, embedder=model) as engine:  # type: ignore[arg-type]
                engine.import_(rankings.documents(rows))
                stored = engine.vectors.stored(list(ids.values()))
                collection = chroma_collection(Path(tmp) / f"chroma-{sid}", sid.replace("-", ""))
                keys = list(stored)
                collection.add(ids=keys, embeddings=[stored[k].tolist() for k in keys])
                questions = [qa for qa in sample["qa"] if locomo._gold(qa, ids)]
                vectors = model.embed([qa["question"] for qa in questions])
                for qa, vector in zip(questions, vectors, strict=True):
                    gold = locomo._gold(qa, ids)
                    started = time.perf_counter()
                    found = collection.query(query_embeddings=[vector.tolist()], n_results=10)
                    times["chromadb"].append((time.perf_counter() - started) * 1000)
                    recall["chromadb"].append(recall_at(found["ids"][0], gold))
                    started = time.perf_counter()
                    hits = engine.search(qa["question"], 10, as_of=as_of, touch=False)
                    times["salience"].append((time.perf_counter() - started) * 1000)
                    recall["salience"].append(recall_at([h.record.id for h in hits], gold))
            print(f"  {sid}: {len(questions)} questions", file=sys.stderr)
    import chromadb

    return {
        "file": path.name,
        "conversations": len(data),
        "profile": profile,
        "versions": {"chromadb": chromadb.__version__},
        "search_ms": {name: percentiles(values) for name, values in times.items()},
        "R@10": {name: 100 * statistics.fmean(values) for name, values in recall.items()},
        "questions": len(times["salience"]),
        "machine": machine(),
    }


def report(results: dict[str, Any]) -> None:
    rows = [["system", "what it does", "p50 ms", "p95 ms", "R@10"]]
    what = {
        "chromadb": f"vector only (HNSW, chromadb {results['versions']['chromadb']})",
        "salience": f"hybrid, profile {results['profile']}",
    }
    for name, spent in results["search_ms"].items():
        rows.append(
            [
                name,
                what[name],
                f"{spent['p50']:.2f}",
                f"{spent['p95']:.2f}",
                f"{results['R@10'][name]:.1f}",
            ]
        )
    print(
        f"{results['file']}: {results['conversations']} conversations, "
        f"{results['questions']} questions; search time beyond the query embedding"
    )
    print_table(rows, right_align_from=2)
    ratio = results["search_ms"]["salience"]["p50"] / results["search_ms"]["chromadb"]["p50"]
    print(f"salience / chromadb, p50: {ratio:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("path", type=Path, help="a LoCoMo-format JSON file")
    parser.add_argument("--conversations", type=int, default=None, help="only the first N")
    parser.add_argument("--profile", default="salience")
    parser.add_argument("--out", default="bench/results/peers.json")
    args = parser.parse_args()
    results = run(args.path, args.conversations, args.profile)
    report(results)
    write_results(args.out, results)


if __name__ == "__main__":
    main()
