"""Update detection (#61): how often a changed fact is linked to the version it changes, how
often a link is false, and what a write pays for the search.

Four measures, each printed as a table and written to JSON:

- **Labelled pairs** (``bench/data/update_pairs.txt``, written for this and frozen before any
  tuning, and ``update_pairs_v2.txt`` and ``_v3.txt``, frozen the same way on 2026-11-30, and
  ``_v4.txt``, ``_v5.txt`` and ``_v6.txt`` on 2026-12-03, ``_v7.txt`` and ``_v8.txt`` (terse
  pairs, written after the rule they measure) on 2026-12-04):
  precision and recall of the decision on each set's dev part and held-out part (every third
  pair), the candidate given, an update counted as a write keeps it (confidence 0.6 or more).
- **LongMemEval knowledge updates** (the dev file's ``knowledge-update`` questions whose
  evidence turns lie in two or more sessions): every turn of a question's haystack written in
  order through ``remember`` (the engine finds the candidates and decides, as in use), then
  the share of questions whose newest evidence turn is linked to an older evidence turn, and
  the share whose recall of the question (salience profile, top 20) ranks the newest evidence
  turn above every older one, with the links acting and with ``updates=off`` (today).
- **False links per 1,000 turns**: links not between two evidence turns of that question
  (LongMemEval), and every link on LoCoMo conversations (``--locomo``), where facts change
  rarely: an upper bound on the false ones.
- **Write cost** (``--cost N``): remember on a store of N memories with ``updates=off`` and
  ``link``, in turns of 20 writes each (``--cost-block 1``: alternating write by write),
  medians side by side; each policy on its own copy of the store, both writing the same texts
  (the turn's, which policy first alternating), so that each text's two times are a pair: the
  median and mean of the pairs' differences beside the medians (the texts' own spread, 8 to
  30 words, moved two runs' unpaired medians by half a millisecond). ``--cost-shared``: both
  policies on one store, as the eighth to thirteenth sessions measured it (each its own texts
  then: one text twice in one store is a duplicate).

    python bench/updates.py [PATH/longmemeval_s_dev.json.gz] [--locomo PATH/locomo_dev.json]
        [--questions N] [--cost 100000 [--cost-shared] [--cost-block 20]]
        [--out bench/results/updates.json]
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from common import machine, print_table, write_results
from longmemeval import CachedEmbedder, parse_date
from salience import Config, Memory
from salience.embeddings.minilm import MiniLMEmbedder
from salience.engine.updating import ACT_AT, LINK_AT
from salience.errors import InvalidInputError
from salience.models import WriteResult
from salience.write.updates import Update, compare, is_document, sentences, stating

HERE = Path(__file__).parent
PAIRS = {
    "": HERE / "data" / "update_pairs.txt",  # (frozen 2026-11-28)
    "v2 ": HERE / "data" / "update_pairs_v2.txt",  # (frozen 2026-11-30)
    "v3 ": HERE / "data" / "update_pairs_v3.txt",  # (frozen 2026-11-30, later)
    "v4 ": HERE / "data" / "update_pairs_v4.txt",  # (frozen 2026-12-03)
    "v5 ": HERE / "data" / "update_pairs_v5.txt",  # (frozen 2026-12-03, later)
    "v6 ": HERE / "data" / "update_pairs_v6.txt",  # (frozen 2026-12-03, a later session)
    "v7 ": HERE / "data" / "update_pairs_v7.txt",  # (frozen 2026-12-04)
    "v8 ": HERE / "data" / "update_pairs_v8.txt",  # (terse pairs; written after their rule)
}
"""The labelled sets, by the prefix of their parts' names."""
DEPTH = 20
BLOCK = 20
"""Writes each policy makes in a turn of the write cost (see :func:`write_cost`)."""


class Clock:
    """The time a turn was said: writes are dated as the conversation was."""

    def __init__(self) -> None:
        self.now = datetime(2023, 1, 1).astimezone()

    def __call__(self) -> datetime:
        return self.now


def labelled_pairs() -> dict[str, dict[str, float]]:
    """Precision and recall on each labelled set (:data:`PAIRS`), dev and held-out."""
    out: dict[str, dict[str, float]] = {}
    for prefix, path in PAIRS.items():
        rows = [
            line.rstrip("\n").split("|")
            for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")
        ]
        for part in ("dev", "held-out"):
            tp = fp = fn = tn = sure_tp = sure_fp = 0
            for i, (label, _, old, new) in enumerate(rows):
                if (i % 3 == 2) != (part == "held-out"):
                    continue
                compared = compare(sentences(new), sentences(old), "old")
                found = _kept(compared)
                sure = compared is not None and compared.confidence >= ACT_AT
                update = label == "U"
                tp, fp = tp + (found and update), fp + (found and not update)
                fn, tn = fn + (update and not found), tn + (not found and not update)
                sure_tp, sure_fp = sure_tp + (sure and update), sure_fp + (sure and not update)
            out[prefix + part] = {
                "pairs": tp + fp + fn + tn,
                "precision": tp / max(1, tp + fp),
                "recall": tp / max(1, tp + fn),
                "false": fp,
                "missed": fn,
                "sure_precision": sure_tp / max(1, sure_tp + sure_fp),
                "sure_recall": sure_tp / max(1, tp + fn),
            }
    return out


def _kept(update: Update | None) -> bool:
    """Whether a write keeps what :func:`compare` found (at :data:`LINK_AT` or above)."""
    return update is not None and update.confidence >= LINK_AT


def _engine(home: Path, clock: Clock, model: CachedEmbedder, updates: str) -> Memory:
    config = Config(home=home, signal_gate=False, updates=updates, max_content_bytes=1 << 20)
    return Memory.open(config=config, clock=clock, embedder=model)


def knowledge_updates(path: Path, model: CachedEmbedder, limit: int | None) -> dict[str, Any]:
    """Links and recall order on LongMemEval's knowledge-update questions."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        questions = [q for q in json.load(f) if q["question_type"] == "knowledge-update"]
    linked = sure_linked = above_on = above_off = asked = turns = false = sure_false = 0
    for question in questions:
        rows = _turns(question)
        evidence_sessions = {s for s, _, _, gold in rows if gold}
        if len(evidence_sessions) < 2:
            continue
        if limit is not None and asked >= limit:
            break
        asked += 1
        clock = Clock()
        with tempfile.TemporaryDirectory() as tmp:
            gold: list[str] = []
            links = []
            with _engine(Path(tmp), clock, model, "link") as memory:
                model.loading = True
                for _, when, text, is_gold in rows:
                    clock.now = when
                    result = _written(memory, text)
                    if result is None or result.id is None:
                        continue
                    turns += 1
                    if is_gold and result.id not in gold:
                        gold.append(result.id)
                    links += list(result.updates)
                model.loading = False
                clock.now = parse_date(question["question_date"])
                on = [h.record.id for h in memory.search(question["question"], DEPTH, touch=False)]
            with _engine(Path(tmp), clock, model, "off") as memory:
                off = [h.record.id for h in memory.search(question["question"], DEPTH, touch=False)]
        newest, older = gold[-1], set(gold[:-1])
        sure = [x for x in links if x.confidence >= ACT_AT]
        linked += any(x.new_id == newest and x.old_id in older for x in links)
        sure_linked += any(x.new_id == newest and x.old_id in older for x in sure)
        false += sum(1 for x in links if not (x.new_id in gold and x.old_id in gold))
        sure_false += sum(1 for x in sure if not (x.new_id in gold and x.old_id in gold))
        above_on += _above(on, newest, older)
        above_off += _above(off, newest, older)
    return {
        "questions": asked,
        "linked": linked / max(1, asked),
        "linked_sure": sure_linked / max(1, asked),
        "newest_above_with_links": above_on / max(1, asked),
        "newest_above_today": above_off / max(1, asked),
        "turns": turns,
        "false_links_per_1000": 1000 * false / max(1, turns),
        "false_sure_links_per_1000": 1000 * sure_false / max(1, turns),
    }


def _written(memory: Memory, text: str) -> WriteResult | None:
    """The turn written (None: refused as bad input, such as a turn emptied by screening)."""
    try:
        return memory.remember(text, force=True)
    except InvalidInputError:
        return None


def _above(ranked: list[str], newest: str, older: set[str]) -> bool:
    """Whether the newest evidence is found and ranks above every older evidence found."""
    if newest not in ranked:
        return False
    first = ranked.index(newest)
    return all(ranked.index(o) > first for o in older if o in ranked)


def _turns(question: dict[str, Any]) -> list[tuple[int, datetime, str, bool]]:
    """(session, time, text, evidence) of every non-empty turn, sessions in date order."""
    sessions = sorted(
        zip(question["haystack_dates"], question["haystack_sessions"], strict=True),
        key=lambda x: parse_date(x[0]),
    )
    out = []
    for s, (date, session) in enumerate(sessions):
        start = parse_date(date)
        for t, turn in enumerate(session):
            if turn["content"].strip():
                gold = bool(turn.get("has_answer"))
                out.append((s, start + timedelta(seconds=t), turn["content"], gold))
    return out


def locomo_links(path: Path, model: CachedEmbedder) -> dict[str, Any]:
    """Links per 1,000 turns on LoCoMo conversations (every link counted)."""
    from locomo import turns as locomo_turns

    data = json.loads(path.read_text(encoding="utf-8"))
    written = links = sure = 0
    for conversation in data:
        clock = Clock()
        with tempfile.TemporaryDirectory() as tmp, _engine(Path(tmp), clock, model, "link") as m:
            model.loading = True
            for _, when, _, text in locomo_turns(conversation["conversation"]):
                clock.now = when
                result = _written(m, text)
                if result is not None and result.id is not None:
                    written += 1
                    links += len(result.updates)
                    sure += sum(1 for x in result.updates if x.confidence >= ACT_AT)
            model.loading = False
    return {
        "conversations": len(data),
        "turns": written,
        "links_per_1000": 1000 * links / max(1, written),
        "sure_links_per_1000": 1000 * sure / max(1, written),
    }


def write_cost(
    size: int,
    writes: int,
    shared: bool = False,
    block: int = BLOCK,
    real: Path | None = None,
    cache: Path | None = None,
) -> dict[str, Any]:
    """remember's latency on a store of ``size`` memories, updates off and on, in turns of
    ``block`` writes each (the first of a turn not counted: the other engine just wrote, and
    its helper thread may still run), so that each engine writes a while as one process
    writing alone does; ``block`` 1 alternates write by write (every write then finds the
    other engine's data in the caches). Each policy writes the turn's texts to its own copy of
    the store (which goes first alternating), or with ``shared`` both to one, each its own
    texts (then each engine also catches up with the other's last write before it searches:
    the link engine pays for that, the off engine does not).
    ``real``: a LongMemEval file whose first ``size`` distinct turns fill the store (their
    vectors cached in ``cache``) and whose next ones are written; else synthetic texts."""
    from bench_store import TextMaker
    from scale import POOL, fill, fill_real, real_turns

    counted = max(1, block - 1) if block > 1 else 1
    turns = -(-writes // counted)  # (each policy writes in every turn)
    maker = TextMaker(seed=5)
    if real is not None:
        rows = real_turns(real, size + 2 * turns * block)
        texts = iter([text for text, _ in rows[size:]] * 2)  # (a small file: turns again)

        def filled(memory: Memory) -> None:
            fill_real(memory, rows[:size], cache or Path(tempfile.gettempdir()))
    else:
        pool = MiniLMEmbedder().embed([maker.sentence() for _ in range(POOL)])
        texts = iter([maker.sentence(8, 30) for _ in range(2 * turns * block)])

        def filled(memory: Memory) -> None:
            fill(memory, size, maker, pool, seed=3)

    return _timed(filled, shared, block, texts, turns, real is not None) | {"size": size}


def _timed(
    filled: Callable[[Memory], None],
    shared: bool,
    block: int,
    texts: Iterator[str],
    turns: int,
    real: bool,
) -> dict[str, Any]:
    """:func:`write_cost` once its store is to be filled by ``filled``."""
    import shutil

    times: dict[str, list[float]] = {"off": [], "link": []}
    paired: list[tuple[float, bool]] = []  # (link - off, and whether it looked)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "off"
        with Memory.open(config=Config(home=home, signal_gate=False), embedder=None) as memory:
            filled(memory)
        homes = {"off": home, "link": home}
        if not shared:
            homes["link"] = Path(tmp) / "link"
            shutil.copytree(home, homes["link"])
        engines = {
            name: Memory.open(
                config=Config(
                    home=homes[name], signal_gate=False, updates=name, max_content_bytes=1 << 20
                )
            )
            for name in times
        }
        try:
            for engine in engines.values():
                engine.search("warm up", touch=False)  # (vectors loaded)
            for turn in range(turns):
                written = [next(texts) for _ in range(block)]
                took: dict[str, list[float]] = {}
                for name in ("off", "link") if turn % 2 == 0 else ("link", "off"):
                    if shared and name == "link":  # (a text twice in one store: a duplicate)
                        written = [next(texts) for _ in range(block)]
                    took[name] = _writes(engines[name], written)
                for name, each in took.items():
                    times[name] += each[1:] if block > 1 else each
                if not shared:
                    pairs = zip(took["link"], took["off"], written, strict=True)
                    each_pair = [(a - b, _looks(t)) for a, b, t in pairs]
                    paired += each_pair[1 if block > 1 else 0 :]
        finally:
            for engine in engines.values():
                engine.close()
    return {
        "texts": "LongMemEval turns" if real else "synthetic",
        "writes_each": len(times["off"]),
        "block": block,
        "stores": "one, shared" if shared else "one each, the same texts",
        **{f"{name}_median_ms": statistics.median(v) * 1000 for name, v in times.items()},
        **(_differences(paired) if paired else {}),
    }


def _looks(text: str) -> bool:
    """Whether a write of ``text`` looks for updates: it is no document and states something
    (a question as a whole does not)."""
    return not is_document(text) and stating(sentences(text))


def _differences(paired: list[tuple[float, bool]]) -> dict[str, Any]:
    """The pairs' differences (ms), over every write and over those that looked (a document,
    or a write that states nothing, looks for nothing: on real turns over half the writes,
    whose difference is near 0)."""
    every = [d for d, _ in paired]
    looked = [d for d, looks in paired if looks]
    return {
        "difference_median_ms": statistics.median(every) * 1000,
        "difference_mean_ms": statistics.mean(every) * 1000,
        "looked": len(looked),
        **({"looked_median_ms": statistics.median(looked) * 1000} if looked else {}),
    }


def _writes(memory: Memory, texts: list[str]) -> list[float]:
    """Seconds each of ``texts`` took to remember, in order (the first of a turn: the other
    engine just wrote, and its helper threads may still run; the caller leaves it out)."""
    took = []
    for text in texts:
        started = time.perf_counter()
        memory.remember(text, force=True)
        took.append(time.perf_counter() - started)
    return took


@contextmanager
def _model(cache: Path) -> Iterator[CachedEmbedder]:
    """MiniLM, with the turns' vectors cached on disk by text (a second run embeds nothing)."""
    loaded = MiniLMEmbedder()
    model = CachedEmbedder(loaded, cache / f"updates-{loaded.identity.replace(':', '-')}.npz")
    yield model
    model.save()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("longmemeval", type=Path, nargs="?")
    parser.add_argument("--locomo", type=Path)
    parser.add_argument("--questions", type=int)
    parser.add_argument("--cost", type=int, default=0, help="a store this big for write cost")
    parser.add_argument("--cost-writes", type=int, default=200)
    parser.add_argument(
        "--cost-shared", action="store_true", help="both policies write to one store"
    )
    parser.add_argument(
        "--cost-block",
        type=int,
        default=BLOCK,
        help="writes a policy makes in a turn (1: alternate)",
    )
    parser.add_argument(
        "--cost-real", type=Path, metavar="LONGMEMEVAL", help="the store and writes: real turns"
    )
    parser.add_argument("--cache", type=Path, default=Path("~/.cache/salience-bench"))
    parser.add_argument("--out", type=Path, default=HERE / "results" / "updates.json")
    args = parser.parse_args()
    results: dict[str, Any] = {"machine": machine(), "pairs": labelled_pairs()}
    cache = args.cache.expanduser()
    cache.mkdir(parents=True, exist_ok=True)
    with _model(cache) as model:
        if args.longmemeval:
            results["longmemeval"] = knowledge_updates(args.longmemeval, model, args.questions)
        if args.locomo:
            results["locomo"] = locomo_links(args.locomo, model)
    if args.cost:
        results["cost"] = write_cost(
            args.cost,
            args.cost_writes,
            args.cost_shared,
            max(1, args.cost_block),
            args.cost_real,
            cache,
        )
    report(results)
    write_results(args.out, results)


def report(results: dict[str, Any]) -> None:
    pairs = results["pairs"]
    print(
        f"labelled pairs (the candidate given; kept at confidence >= {LINK_AT}, "
        f"sure at >= {ACT_AT}: those act)"
    )
    print_table(
        [["part", "pairs", "precision", "recall", "sure: precision", "sure: recall"]]
        + [
            [
                part,
                str(int(v["pairs"])),
                f"{v['precision']:.1%}",
                f"{v['recall']:.1%}",
                f"{v['sure_precision']:.1%}",
                f"{v['sure_recall']:.1%}",
            ]
            for part, v in pairs.items()
        ],
        right_align_from=1,
    )
    lme = results.get("longmemeval")
    if lme is None:
        _report_cost(results)
        return
    print("\nLongMemEval knowledge updates (dev), every turn written in order")
    rows = [
        ["questions", str(lme["questions"])],
        ["newest evidence linked to an older one (listed)", f"{lme['linked']:.1%}"],
        [f"... by a sure link (confidence >= {ACT_AT})", f"{lme['linked_sure']:.1%}"],
        ["recall ranks the newest first: today (updates=off)", f"{lme['newest_above_today']:.1%}"],
        ["recall ranks the newest first: with links", f"{lme['newest_above_with_links']:.1%}"],
        ["links not between evidence turns, per 1,000 turns", f"{lme['false_links_per_1000']:.1f}"],
        ["... sure ones", f"{lme['false_sure_links_per_1000']:.1f}"],
    ]
    if "locomo" in results:
        loc = results["locomo"]
        rows.append(["LoCoMo: links per 1,000 turns (all)", f"{loc['links_per_1000']:.1f}"])
        rows.append(["... sure ones", f"{loc['sure_links_per_1000']:.1f}"])
    print_table([["measure", "value"], *rows], right_align_from=1)
    _report_cost(results)


def _report_cost(results: dict[str, Any]) -> None:
    if "cost" in results:
        cost = results["cost"]
        print(
            f"\nremember at {cost['size']:,} memories (median of {cost['writes_each']} each, "
            f"in turns of {cost.get('block', 1)}; stores: {cost['stores']}; "
            f"texts: {cost.get('texts', 'synthetic')})"
        )
        rows = [
            ["updates", "median ms"],
            ["off", f"{cost['off_median_ms']:.2f}"],
            ["link", f"{cost['link_median_ms']:.2f}"],
        ]
        if "difference_median_ms" in cost:
            rows += [
                ["link - off, each text: median", f"{cost['difference_median_ms']:+.2f}"],
                ["link - off, each text: mean", f"{cost['difference_mean_ms']:+.2f}"],
            ]
            if "looked_median_ms" in cost:
                looked = f"link - off, the {cost['looked']} that looked: median"
                rows.append([looked, f"{cost['looked_median_ms']:+.2f}"])
        print_table(rows, right_align_from=1)


if __name__ == "__main__":
    main()
