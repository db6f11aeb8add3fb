"""salience beside a peer on the same LoCoMo questions, with the same vectors.

Each conversation's turns go into a salience store (as bench/locomo.py loads them) and into
a chromadb collection given salience's own stored MiniLM vectors, so both search identical
embeddings. Every question's vector is computed once before any timing; each question is
then asked of chromadb (vector only, cosine HNSW) and of salience (full-text, vectors,
fusion, context and profile scoring) in turn, so both are measured side by side in one run.
salience is given the vector as ``salience eval`` gives its probes' (``QUERY_VECTORS``): it
knows not to embed, so its full-text search runs on the calling thread. (The embedder
that remembers the import's vectors would also give them, but salience would then search
as if beside an embedding: in a worker, FTS5 rather than its copy of the index.)
Reported: search time beyond the query embedding, p50/p95, and R@10 on the evidence turns;
and, beside them, salience embedding each question itself (its full-text search runs while
the query is embedded, as in a user's recall) and the embedding alone: the difference of
their medians is what a user waits for beyond the model.

With ``--mem0``, mem0 (open source, 2.2.1) is run too: each turn added with ``infer=False``
(stored as said, no LLM), the same vectors given by an embedder that looks them up, its
local Qdrant store, and an LLM endpoint on loopback that answers every request with an error
and counts them: the run fails if mem0 ever called it. (mem0's keyword side needs fastembed's
BM25 model and its entity boost spaCy's model, both downloads: absent here, so its search
is vector search with its own scoring.)

The peers are development-only dependencies this benchmark installs for itself, apart from
the project's environment (they pull in many packages):

    python -m venv .venv-peers
    .venv-peers/bin/pip install -e . chromadb==1.5.9 mem0ai==2.2.1
    .venv-peers/bin/python bench/peers.py PATH/locomo_dev.json [--mem0]

chromadb's and mem0's telemetry are turned off and neither is given a model of its own (they
would download one). Prints a table and writes JSON (default bench/results/peers.json). The
data file is never copied into the repository.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import locomo
import rankings
from common import machine, print_table, write_results
from salience import Config, Memory
from salience.engine.record import QUERY_VECTORS


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


class RefusingLLM:
    """An HTTP endpoint on loopback that answers every request with 503 and counts them."""

    def __init__(self) -> None:
        import http.server
        import threading

        owner = self
        self.calls = 0

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                owner.calls += 1
                self.send_response(503)
                self.end_headers()

            do_GET = do_POST

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()


class LookedUp:
    """mem0's embedder: the vector salience stored for each text (and each question's)."""

    def __init__(self, vectors: dict[str, list[float]]) -> None:
        self.vectors = {text.strip(): vector for text, vector in vectors.items()}

    def embed(self, text: Any, memory_action: str | None = None) -> list[float]:
        return self.vectors[text.strip()]  # (mem0 trims a query)


def mem0_memory(path: Path, llm: RefusingLLM, vectors: dict[str, list[float]]) -> Any:
    """A mem0 Memory on a local Qdrant under ``path``, its LLM the refusing endpoint."""
    import os

    os.environ["MEM0_TELEMETRY"] = "False"
    os.environ["MEM0_DIR"] = str(path / "mem0-home")
    try:
        from mem0 import Memory as Mem0
    except ImportError:
        raise SystemExit("mem0 is not installed: see this file's docstring") from None
    stub = {"api_key": "never-used", "openai_base_url": llm.url}
    memory = Mem0.from_config(
        {
            "vector_store": {
                "provider": "qdrant",
                "config": {
                    "collection_name": "turns",
                    "embedding_model_dims": 384,
                    "path": str(path / "qdrant"),
                    "on_disk": False,
                },
            },
            "llm": {"provider": "openai", "config": {**stub, "model": "stub"}},
            "embedder": {"provider": "openai", "config": {**stub, "embedding_dims": 384}},
            "history_db_path": str(path / "history.db"),
        }
    )
    memory.embedding_model = LookedUp(vectors)
    return memory


def mem0_loaded(
    path: Path, llm: RefusingLLM, vectors: dict[str, list[float]], texts: dict[str, str]
) -> Any:
    """mem0 holding each turn (by salience id) as said: ``infer=False``, no LLM."""
    memory = mem0_memory(path, llm, vectors)
    for memory_id, text in texts.items():
        memory.add(
            [{"role": "user", "content": text}],
            user_id="bench",
            metadata={"salience_id": memory_id},
            infer=False,
        )
    return memory


def searchers(
    collection: Any, engine: Memory, as_of: datetime, mem0: Any
) -> dict[str, Callable[[str, Any], list[str]]]:
    """Each system's search: (question, its vector) -> memory ids, best first."""

    def chroma(question: str, vector: Any) -> list[str]:
        found = collection.query(query_embeddings=[vector.tolist()], n_results=10)
        return list(found["ids"][0])

    def salience(question: str, vector: Any) -> list[str]:
        given = QUERY_VECTORS.set({question: vector})  # (as an evaluation gives its vectors)
        try:
            return [h.record.id for h in engine.search(question, 10, as_of=as_of, touch=False)]
        finally:
            QUERY_VECTORS.reset(given)

    def mem0_search(question: str, vector: Any) -> list[str]:
        found = mem0.search(question, top_k=10, filters={"user_id": "bench"})
        return [r["metadata"]["salience_id"] for r in found["results"]]

    out = {"chromadb": chroma, "salience": salience}
    return out | ({"mem0": mem0_search} if mem0 is not None else {})


def embedding(live: Memory, as_of: datetime) -> dict[str, Callable[[str, Any], list[str]]]:
    """salience embedding each question itself, as a user's recall does (its full-text search
    runs while the query is embedded), and the embedding alone, timed apart."""
    model = live.vectors.embedder
    assert model is not None

    def embedded(question: str, vector: Any) -> list[str]:
        return [h.record.id for h in live.search(question, 10, as_of=as_of, touch=False)]

    def alone(question: str, vector: Any) -> list[str]:
        model.embed([question])
        return []

    return {EMBEDDED: embedded, EMBEDDING: alone}


EMBEDDED, EMBEDDING = "salience, embedding", "embedding alone"


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"p50": statistics.median(ordered), "p95": ordered[int(0.95 * (len(ordered) - 1))]}


def recall_at(ranked: list[str], gold: set[str], k: int = 10) -> float:
    return len(gold & set(ranked[:k])) / len(gold)


def run(path: Path, conversations: int | None, profile: str, with_mem0: bool) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))[:conversations]
    names = ["chromadb", "salience"] + (["mem0"] if with_mem0 else []) + [EMBEDDED, EMBEDDING]
    times: dict[str, list[float]] = {name: [] for name in names}
    recall: dict[str, list[float]] = {name: [] for name in names}
    llm = RefusingLLM()
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
            with (
                Memory.open(config=config, embedder=model) as engine,  # type: ignore[arg-type]
                Memory.open(config=config, embedder=loaded) as live,
            ):
                engine.import_(rankings.documents(rows))
                stored = engine.vectors.stored(list(ids.values()))
                collection = chroma_collection(Path(tmp) / f"chroma-{sid}", sid.replace("-", ""))
                keys = list(stored)
                collection.add(ids=keys, embeddings=[stored[k].tolist() for k in keys])
                questions = [qa for qa in sample["qa"] if locomo._gold(qa, ids)]
                vectors = model.embed([qa["question"] for qa in questions])
                mem0 = None
                if with_mem0:
                    texts = {ids[d]: t for d, _, _, t in turns}
                    lookup = {texts[k]: stored[k].tolist() for k in keys}
                    asked = zip(questions, vectors, strict=True)
                    lookup |= {qa["question"]: v.tolist() for qa, v in asked}
                    mem0 = mem0_loaded(Path(tmp) / f"mem0-{sid}", llm, lookup, texts)
                asks = searchers(collection, engine, as_of, mem0) | embedding(live, as_of)
                for qa, vector in zip(questions, vectors, strict=True):
                    gold = locomo._gold(qa, ids)
                    for name, ask in asks.items():  # one after another, question by question
                        started = time.perf_counter()
                        ranked = ask(qa["question"], vector)
                        times[name].append((time.perf_counter() - started) * 1000)
                        if name != EMBEDDING:
                            recall[name].append(recall_at(ranked, gold))
            print(f"  {sid}: {len(questions)} questions", file=sys.stderr)
    llm.close()
    if llm.calls:
        raise SystemExit(f"mem0 called its LLM {llm.calls} times: these figures are void")
    import chromadb

    return {
        "file": path.name,
        "conversations": len(data),
        "profile": profile,
        "versions": {"chromadb": chromadb.__version__} | ({"mem0": "2.2.1"} if with_mem0 else {}),
        "llm_calls": llm.calls,
        "search_ms": {name: percentiles(values) for name, values in times.items()},
        "R@10": {name: 100 * statistics.fmean(v) for name, v in recall.items() if v},
        "questions": len(times["salience"]),
        "machine": machine(),
    }


def report(results: dict[str, Any]) -> None:
    rows = [["system", "what it does", "p50 ms", "p95 ms", "R@10"]]
    what = {
        "chromadb": f"vector only (HNSW, chromadb {results['versions']['chromadb']})",
        "salience": f"hybrid, profile {results['profile']}",
        "mem0": "vector + its scoring (infer=False, local Qdrant)",
        EMBEDDED: "salience embedding the question itself (MiniLM)",
        EMBEDDING: "MiniLM embedding one question, nothing else",
    }
    for name, spent in results["search_ms"].items():
        rows.append(
            [
                name,
                what[name],
                f"{spent['p50']:.2f}",
                f"{spent['p95']:.2f}",
                f"{results['R@10'][name]:.1f}" if name != EMBEDDING else "",
            ]
        )
    print(
        f"{results['file']}: {results['conversations']} conversations, "
        f"{results['questions']} questions; search time beyond the query embedding"
    )
    print_table(rows, right_align_from=2)
    ratio = results["search_ms"]["salience"]["p50"] / results["search_ms"]["chromadb"]["p50"]
    print(f"salience / chromadb, p50: {ratio:.2f}x")
    spent = results["search_ms"]
    if EMBEDDED in spent:  # (what a user waits for beyond the model: medians subtracted)
        beyond = spent[EMBEDDED]["p50"] - spent[EMBEDDING]["p50"]
        print(
            f"salience embedding its question: {spent[EMBEDDED]['p50']:.2f} ms p50 - the "
            f"embedding alone {spent[EMBEDDING]['p50']:.2f} ms = {beyond:.2f} ms beyond it "
            f"({beyond / spent['chromadb']['p50']:.2f}x chromadb)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("path", type=Path, help="a LoCoMo-format JSON file")
    parser.add_argument("--conversations", type=int, default=None, help="only the first N")
    parser.add_argument("--profile", default="salience")
    parser.add_argument("--mem0", action="store_true", help="run mem0 too (see the docstring)")
    parser.add_argument("--out", default="bench/results/peers.json")
    args = parser.parse_args()
    results = run(args.path, args.conversations, args.profile, args.mem0)
    report(results)
    write_results(args.out, results)


if __name__ == "__main__":
    main()
