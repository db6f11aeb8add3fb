"""Does ``salience eval`` rank the profiles as the public benchmark does?

On each LoCoMo-format conversation (one store each, as ``bench/locomo.py`` loads it), the
loop a user's agent runs is simulated: every question is a recorded recall, its evidence turns
the memories then used (a trace and ``used`` feedback, written to the record as the engine
writes them; the memories themselves are not touched, so no profile's score moves). Then:

* ``salience eval`` (``salience.evaluation.evaluate``) runs its probes under each of the six
  profiles, as
  of the day after the conversation (as ``bench/locomo.py`` asks);
* the same questions are asked as ``bench/locomo.py`` asks them (``touch=False``) and scored
  the same way.

It prints R@10 per profile by both, the two orders and Spearman's rank correlation, and
writes JSON (default ``bench/results/eval_agreement.json``).

    python bench/eval_agreement.py PATH/locomo_dev.json [--embedder minilm|none]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from common import machine, print_table, write_results
from locomo import K, _gold, evaluate, load_store, turns
from salience import Config, Memory, Variant
from salience.evaluation import evaluate as evaluated
from salience.ids import new_ulid
from salience.models import Feedback, Trace, TraceHit
from salience.stores.traces import RECALL

PROFILES = ("salience", "aide", "eidet", "ilab", "talome", "rae")


def spearman(a: list[float], b: list[float]) -> float:
    """Spearman's rho of two score lists (average ranks for ties)."""

    def ranks(values: list[float]) -> list[float]:
        order = sorted(range(len(values)), key=lambda i: -values[i])
        out = [0.0] * len(values)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
                j += 1
            for k in range(i, j + 1):
                out[order[k]] = (i + j) / 2 + 1
            i = j + 1
        return out

    ra, rb = ranks(a), ranks(b)
    n = len(a)
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb, strict=True))
    sa = sum((x - ma) ** 2 for x in ra) ** 0.5
    sb = sum((y - mb) ** 2 for y in rb) ** 0.5
    return cov / (sa * sb) if sa and sb else 1.0


def run(path: Path, embedder: str) -> dict[str, Any]:
    import json

    data = json.loads(path.read_text(encoding="utf-8"))
    by_eval: dict[str, list[float]] = {p: [] for p in PROFILES}
    by_bench: dict[str, list[float]] = {p: [] for p in PROFILES}
    eval_seconds: list[float] = []
    model: Any = "config"
    with tempfile.TemporaryDirectory() as tmp:
        for sample in data:
            config = Config(home=Path(tmp) / sample["sample_id"], embedder=embedder)
            with Memory.open(config=config, embedder=model) as engine:
                model = engine.vectors.embedder
                rows = turns(sample["conversation"])
                ids = load_store(engine, sample["sample_id"], rows)
                as_of = max(when for _, when, _, _ in rows) + timedelta(days=1)
                questions = [(qa["question"], _gold(qa, ids)) for qa in sample["qa"]]
                questions = [(q, g) for q, g in questions if g]
                traces, used = [], []
                for question, gold in questions:  # the loop: asked, then these were used
                    trace = Trace(
                        new_ulid(as_of),
                        engine.config.user,
                        as_of,
                        RECALL,
                        "salience",
                        question,
                        hits=tuple(TraceHit(m, i) for i, m in enumerate(sorted(gold), 1)),
                    )
                    traces.append(trace)
                    used += [Feedback(trace.id, m, "used", as_of) for m in gold]
                engine.store.save_traces(traces)
                engine.store.save_feedback(used)
                started = time.perf_counter()
                variants = [Variant(p, profile=p, as_of=as_of) for p in PROFILES]
                report = evaluated(engine, variants, per_kind=10_000)
                eval_seconds.append(time.perf_counter() - started)
                for run in report.runs[1:]:
                    by_eval[run.variant.label] += [run.metrics.recall_at_10] * run.metrics.probes
                for profile in PROFILES:
                    for question, gold in questions:
                        hits = engine.search(question, K, profile=profile, as_of=as_of, touch=False)
                        ranked = [h.record.id for h in hits]
                        by_bench[profile].append(evaluate(ranked, gold)["R@10"])
    eval_r10 = [100 * sum(by_eval[p]) / len(by_eval[p]) for p in PROFILES]
    bench_r10 = [100 * sum(by_bench[p]) / len(by_bench[p]) for p in PROFILES]
    return {
        "data": path.name,
        "conversations": len(data),
        "questions": len(by_bench[PROFILES[0]]),
        "embedder": embedder,
        "profiles": list(PROFILES),
        "eval_r10": eval_r10,
        "bench_r10": bench_r10,
        "eval_order": [p for _, p in sorted(zip(eval_r10, PROFILES, strict=True), reverse=True)],
        "bench_order": [p for _, p in sorted(zip(bench_r10, PROFILES, strict=True), reverse=True)],
        "spearman": spearman(eval_r10, bench_r10),
        "eval_seconds_per_conversation": eval_seconds,
        "machine": machine(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--out", default="bench/results/eval_agreement.json")
    args = parser.parse_args()
    results = run(args.path, args.embedder)
    rows = [["profile", "eval R@10", "locomo R@10"]]
    for p, e, b in zip(PROFILES, results["eval_r10"], results["bench_r10"], strict=True):
        rows.append([p, f"{e:.1f}", f"{b:.1f}"])
    print_table(rows, right_align_from=1)
    print(f"order by eval:   {' > '.join(results['eval_order'])}")
    print(f"order by locomo: {' > '.join(results['bench_order'])}")
    print(f"Spearman rho: {results['spearman']:.3f} ({results['questions']} questions)")
    write_results(args.out, results)


if __name__ == "__main__":
    main()
