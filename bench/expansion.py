"""Query expansion by the first hits' own names, probed on LoCoMo (issue #57): does it find
evidence the first hop does not?

Each question of categories 1-4 is recalled 70 deep by the salience profile. Its expansion:
the capitalised names (one word or several) and years of the first three hits' text, past
their speaker label, that neither the question nor a speaker's name holds, up to six, asked
again with the question for 20. Printed per category: the share of evidence turns among the
first 50 candidates, among those and the expansion's 20, and among the first 70 (a deeper
first hop finding as many new candidates for nothing but depth).

    python bench/expansion.py PATH/locomo_dev.json [--out bench/results/expansion.json]

It measures candidates, not a ranking: what expansion could add before any re-ranking.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import defaultdict
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import machine, print_table, write_results
from locomo import CATEGORIES, _gold, load_store, turns
from salience import Config, Memory
from salience.text import label

FIRST, EXPANDED, DEEPER, FROM_HITS, TERMS = 50, 20, 70, 3, 6
NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-zA-Z'-]+(?:\s[A-Z][a-zA-Z'-]+)*)|\b(\d{4})\b")
"""A capitalised word (or run of them) not opening a sentence, or a year."""


def expansion(texts: list[str], question: str, speakers: set[str]) -> list[str]:
    """The names and years of ``texts`` (past their labels) that the question does not hold
    and that are no speaker's name (or its start: "Mel" of "melanie"), up to :data:`TERMS`."""
    terms: list[str] = []
    asked = question.lower()
    for text in texts:
        for name, year in NAME.findall(text[label(text)[1] :]):
            term = name or year
            if term == "I" or "'" in term or term.lower() in asked:
                continue
            if any(s.startswith(term.lower()) for s in speakers):
                continue
            terms.append(term)
    return list(dict.fromkeys(terms))[:TERMS]


def probe(path: Path) -> dict[str, list[int]]:
    """Per category: [evidence turns, in the first 50, in those and the expansion's 20, in
    the first 70]."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    with tempfile.TemporaryDirectory() as tmp:
        for sample in json.loads(path.read_text(encoding="utf-8")):
            rows = turns(sample["conversation"])
            home = Path(tmp) / sample["sample_id"]
            config = Config(home=home, embedder="minilm", profile="salience")
            with Memory.open(config=config) as memory:
                ids = load_store(memory, sample["sample_id"], rows)
                as_of = max(when for _, when, _, _ in rows) + timedelta(days=1)
                speakers = {label(text)[0] for _, _, _, text in rows} - {""}
                for qa in sample["qa"]:
                    category = int(qa["category"])
                    gold = _gold(qa, ids)
                    if category > 4 or not gold:
                        continue
                    first = memory.search(qa["question"], DEEPER, as_of=as_of, touch=False)
                    top = {h.record.id for h in first[:FIRST]}
                    deeper = {h.record.id for h in first}
                    terms = expansion(
                        [h.record.content for h in first[:FROM_HITS]], qa["question"], speakers
                    )
                    more: set[str] = set()
                    if terms:
                        asked = f"{qa['question']} {' '.join(terms)}"
                        again = memory.search(asked, EXPANDED, as_of=as_of, touch=False)
                        more = {h.record.id for h in again}
                    for key in (f"{category} {CATEGORIES.get(category, '?')}", "1-4"):
                        row = counts[key]
                        row[0] += len(gold)
                        row[1] += len(gold & top)
                        row[2] += len(gold & (top | more))
                        row[3] += len(gold & deeper)
            print(f"  {sample['sample_id']}", file=sys.stderr)
    return dict(counts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("locomo", type=Path)
    parser.add_argument("--out", default="bench/results/expansion.json")
    args = parser.parse_args()
    counts = probe(args.locomo)
    rows = [["category", "evidence", "first 50 %", "+ expansion 20 %", "first 70 %"]]
    shares = {}
    for key, (gold, top, expanded, deeper) in sorted(counts.items()):
        share = [100 * top / gold, 100 * expanded / gold, 100 * deeper / gold]
        shares[key] = {
            "evidence": gold,
            "first": share[0],
            "expanded": share[1],
            "deeper": share[2],
        }
        rows.append([key, str(gold), *(f"{v:.1f}" for v in share)])
    print_table(rows, right_align_from=1)
    write_results(args.out, {"shares": shares, "machine": machine()})


if __name__ == "__main__":
    main()
