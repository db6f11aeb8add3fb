"""Leave-one-conversation-out tuning of the salience profile's recall on LoCoMo files.

Every combination of the given recall-plan values (and ``recall_prior``) is scored on every
conversation; then, for each conversation in turn, the combination with the best mean R@10
(categories 1-4) on the *other* conversations is chosen and scored on the held-out one. The
mean of those held-out scores is the honest (cross-validated) figure; the best combination
over all conversations is the in-sample one. Both are printed, per category.

    python bench/locomo_cv.py PATH/locomo.json --grid context_weight=0.2,0.4 expand=0,10

Each conversation is loaded (and embedded) once; the plan is swapped between runs. Prints a
table and writes JSON (default bench/results/locomo-cv.json).
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import statistics
import sys
import tempfile
from collections import defaultdict
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from common import machine, print_table, write_results
from locomo import CATEGORIES, K, _gold, evaluate, load_store, turns
from salience import Config, Memory
from salience import profiles as registry
from salience.profiles.base import RecallPlan

PLAN_FIELDS = {f.name: f.type for f in dataclasses.fields(RecallPlan)}
GROUPS = ("1-4", *(f"{c} {CATEGORIES[c]}" for c in (1, 2, 3, 4)))


def parse_grid(items: list[str]) -> list[dict[str, float]]:
    """``["a=1,2", "b=0.5"]`` -> every combination, as dicts."""
    axes: list[tuple[str, list[float]]] = []
    for item in items:
        name, _, values = item.partition("=")
        if name != "prior" and name not in PLAN_FIELDS:
            raise SystemExit(f"unknown setting {name!r}; recall-plan fields: {sorted(PLAN_FIELDS)}")
        axes.append((name, [float(v) for v in values.split(",")]))
    return [
        dict(zip([n for n, _ in axes], combo, strict=True))
        for combo in itertools.product(*(v for _, v in axes))
    ]


def with_plan(base: Any, setting: dict[str, float]) -> Any:
    """The salience profile with those recall-plan values."""
    changes: dict[str, Any] = {}
    for name, value in setting.items():
        if name == "prior":
            continue
        current = getattr(base.recall, name)
        changes[name] = (
            int(value) if isinstance(current, int) and not isinstance(current, bool) else value
        )
    return dataclasses.replace(base, recall=dataclasses.replace(base.recall, **changes))


def score_conversation(
    sample: dict[str, Any], settings: list[dict[str, float]], tmp: Path, model: Any
) -> tuple[list[list[tuple[int, float]]], Any]:
    """Per setting, (category, R@10) of each question of the conversation."""
    base = registry.PROFILES["salience"]
    config = Config(home=tmp / sample["sample_id"], embedder="minilm", profile="salience")
    rows = turns(sample["conversation"])
    out: list[list[tuple[int, float]]] = []
    with Memory.open(config=config, embedder=model) as engine:
        model = engine.vectors.embedder
        ids = load_store(engine, sample["sample_id"], rows)
        as_of = max(when for _, when, _, _ in rows) + timedelta(days=1)
        questions = [(int(qa["category"]), qa["question"], _gold(qa, ids)) for qa in sample["qa"]]
        questions = [q for q in questions if q[2] and q[0] <= 4]
        try:
            for setting in settings:
                registry.PROFILES["salience"] = with_plan(base, setting)
                # the prior is a setting of the engine; a benchmark swaps it between runs
                engine._settings = dataclasses.replace(
                    engine._settings, recall_prior=setting.get("prior", 0.15)
                )
                results = []
                for category, question, gold in questions:
                    hits = engine.search(question, K, as_of=as_of, touch=False)
                    ranked = [h.record.id for h in hits]
                    results.append((category, evaluate(ranked, gold)["R@10"]))
                out.append(results)
        finally:
            registry.PROFILES["salience"] = base
    return out, model


def table(results: list[tuple[int, float]]) -> dict[str, float]:
    """Mean R@10 (in %) over categories 1-4 and each category."""
    groups: dict[str, list[float]] = defaultdict(list)
    for category, r10 in results:
        groups["1-4"].append(r10)
        groups[f"{category} {CATEGORIES[category]}"].append(r10)
    return {g: 100 * statistics.fmean(groups[g]) if groups[g] else 0.0 for g in GROUPS}


def cross_validate(
    per_conv: list[list[list[tuple[int, float]]]], settings: list[dict[str, float]]
) -> dict[str, Any]:
    """In-sample best and leave-one-conversation-out figures."""
    n = len(per_conv)

    def pooled(convs: list[int], s: int) -> list[tuple[int, float]]:
        return [r for c in convs for r in per_conv[c][s]]

    everyone = list(range(n))
    in_sample = max(range(len(settings)), key=lambda s: table(pooled(everyone, s))["1-4"])
    held_out = []
    for c in everyone:
        others = [o for o in everyone if o != c]
        best = max(range(len(settings)), key=lambda s: table(pooled(others, s))["1-4"])
        held_out.append(
            {"conversation": c, "chosen": settings[best], "scores": table(per_conv[c][best])}
        )
    pooled_held_out = [
        r
        for h, c in zip(held_out, everyone, strict=True)
        for r in per_conv[c][settings.index(h["chosen"])]
    ]
    loo = table(pooled_held_out)
    loo["mean of held-out 1-4"] = statistics.fmean(h["scores"]["1-4"] for h in held_out)
    return {
        "in_sample": {"setting": settings[in_sample], "scores": table(pooled(everyone, in_sample))},
        "leave_one_out": {"scores": loo, "folds": held_out},
        "every_setting": [
            {"setting": s, "scores": table(pooled(everyone, i))} for i, s in enumerate(settings)
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("path", type=Path)
    parser.add_argument(
        "--grid", nargs="+", default=[], help="name=v1,v2 (recall-plan fields, prior)"
    )
    parser.add_argument("--conversations", type=int, default=None)
    parser.add_argument("--out", default="bench/results/locomo-cv.json")
    args = parser.parse_args()
    settings = parse_grid(args.grid) or [{}]
    data = json.loads(args.path.read_text(encoding="utf-8"))[: args.conversations]
    per_conv = []
    model: Any = "config"
    with tempfile.TemporaryDirectory() as tmp:
        for sample in data:
            scored, model = score_conversation(sample, settings, Path(tmp), model)
            per_conv.append(scored)
            print(f"  {sample['sample_id']} done", file=sys.stderr)
    cv = cross_validate(per_conv, settings)
    rows = [["setting", *GROUPS]]
    for item in cv["every_setting"]:
        rows.append([json.dumps(item["setting"]), *(f"{item['scores'][g]:.1f}" for g in GROUPS)])
    print_table(rows, right_align_from=1)
    print(f"\nin-sample best: {json.dumps(cv['in_sample']['setting'])}")
    rows = [
        ["figure", *GROUPS],
        ["in-sample", *(f"{cv['in_sample']['scores'][g]:.1f}" for g in GROUPS)],
        ["leave-one-out", *(f"{cv['leave_one_out']['scores'][g]:.1f}" for g in GROUPS)],
    ]
    print_table(rows, right_align_from=1)
    for fold in cv["leave_one_out"]["folds"]:
        print(
            f"  held out {data[fold['conversation']]['sample_id']}: chose "
            f"{json.dumps(fold['chosen'])}, R@10 {fold['scores']['1-4']:.1f}"
        )
    write_results(args.out, {"file": args.path.name, "grid": args.grid, **cv, "machine": machine()})


if __name__ == "__main__":
    main()
