"""Shared helpers for the benchmarks: machine facts, a plain-text table, the JSON file."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import platform
import sqlite3
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

AVX2_PATHS = "SALIENCE_BENCH_AVX2"
"""Set (to 1) in the environment: the benchmark runs the vector code an AVX2-only CPU runs."""
NUMPY_AVX512 = "X86_V4 AVX512_ICL AVX512_SPR"
"""NumPy's dispatch targets above AVX2 (its names for them since 2.0)."""
NUMKONG_AVX512 = ("skylake", "icelake", "genoa", "sapphire", "sapphireamx", "turin", "diamond")
"""numkong's kernels above AVX2 (Haswell's)."""


def avx2_paths() -> None:
    """With :data:`AVX2_PATHS` set, make this process (and the processes it starts) take the
    code an AVX2-only x86 CPU takes: NumPy's AVX-512 kernels are switched off by
    ``NPY_DISABLE_CPU_FEATURES`` (read when NumPy is imported, so the process starts again
    if it already was), and numkong's AVX-512 and VNNI kernels are disabled.

    The clock, caches and memory stay this machine's: the figures show what the AVX2 code
    paths cost here, not what an older CPU takes. Without the variable: nothing changes."""
    if not os.environ.get(AVX2_PATHS) or not _has_avx512():
        return  # (an AVX2-only CPU takes these paths anyway)
    if os.environ.get("NPY_DISABLE_CPU_FEATURES") != NUMPY_AVX512:
        os.environ["NPY_DISABLE_CPU_FEATURES"] = NUMPY_AVX512
        if "numpy" in sys.modules:  # (too late for this process: start it again)
            sys.stdout.flush()
            os.execv(sys.executable, [sys.executable, *sys.orig_argv[1:]])
    try:
        import numkong
    except ImportError:
        return
    for capability in NUMKONG_AVX512:
        if numkong.get_capabilities().get(capability):
            numkong.disable_capability(capability)


def _has_avx512() -> bool:
    try:
        return " avx512f " in Path("/proc/cpuinfo").read_text(encoding="utf-8").replace("\n", " ")
    except OSError:
        return False


def machine() -> dict[str, object]:
    """What the numbers were measured on: the CPU model, whether it has AVX-512 VNNI (int8
    speed differs about twice between machines with and without it), cores, Python, and
    whether the AVX2 code paths were forced (:func:`avx2_paths`)."""
    model, vnni = platform.processor() or platform.machine(), False
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8")
    except OSError:
        cpuinfo = ""
    for line in cpuinfo.splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
        elif line.startswith("flags"):
            vnni = "avx512_vnni" in line.split()
    return {
        "cpu": model,
        "avx512_vnni": vnni,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "avx2_paths": bool(os.environ.get(AVX2_PATHS)),
    }


avx2_paths()


def ndcg(ranked: Sequence[str], gold: set[str], k: int) -> float:
    """Binary-gain nDCG@k of a ranking against a set of gold items."""
    dcg = sum(1 / math.log2(i + 2) for i, m in enumerate(ranked[:k]) if m in gold)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(gold), k)))
    return dcg / ideal if ideal else 0.0


def print_table(rows: Sequence[Sequence[str]], right_align_from: int | None = None) -> None:
    """Print rows as aligned columns; the first row is the header, underlined.

    Columns at index >= ``right_align_from`` are right-aligned (numbers), the rest left.
    """
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for i, row in enumerate(rows):
        cells = []
        for j, cell in enumerate(row):
            right = right_align_from is not None and j >= right_align_from
            cells.append(cell.rjust(widths[j]) if right else cell.ljust(widths[j]))
        print("  ".join(cells).rstrip())
        if i == 0:
            print("  ".join("-" * w for w in widths))


def write_results(path: str | Path, results: dict[str, object]) -> None:
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2), encoding="utf-8")
    print(f"\nwrote {out}")


@contextmanager
def store_in(url: str | None, name: str, keep: bool = False) -> Iterator[str]:
    """A fresh, empty store for one run: "" (the run's own SQLite home) when ``url`` is None,
    else a new schema ``name`` on the PostgreSQL server at ``url``, dropped afterwards;
    ``keep``: the schema as an earlier run kept it (made if missing), and kept again."""
    if not url:
        yield ""
        return
    import psycopg

    schema = "bench_" + "".join(c if c.isalnum() else "_" for c in name.lower())
    with psycopg.connect(url, autocommit=True) as admin:
        if not keep:
            admin.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        admin.execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")
    joiner = "&" if "?" in url else "?"
    try:
        yield f"{url}{joiner}options=-csearch_path%3D{schema},public"
    finally:
        if not keep:
            with psycopg.connect(url, autocommit=True) as admin:
                admin.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


@contextmanager
def recall_plan(values: dict[str, float] | None) -> Iterator[None]:
    """The salience profile with these recall-plan values for the block (None: as it is)."""
    from salience import profiles as registry

    base = registry.PROFILES["salience"]
    if values is not None:
        typed = {k: type(getattr(base.recall, k))(v) for k, v in values.items()}
        plan = dataclasses.replace(base.recall, **typed)
        registry.PROFILES["salience"] = dataclasses.replace(base, recall=plan)
    try:
        yield
    finally:
        registry.PROFILES["salience"] = base


@contextmanager
def reranking_with(model: Any) -> Iterator[None]:
    """Recall re-ranks with ``model`` (a ``salience.search.rerank.Reranker``) for the block
    instead of the shipped one."""
    from salience.search import rerank

    shipped = rerank.load
    rerank.load = lambda path=rerank.MODEL: model  # type: ignore[assignment]
    try:
        yield
    finally:
        rerank.load = shipped  # type: ignore[assignment]


@contextmanager
def learned_model(path: Path | None) -> Iterator[None]:
    """Recall re-ranks with the learned model in ``path`` for the block instead of the shipped
    one (None: the shipped one): a model fitted without the questions asked, for a held-out
    figure from recall itself."""
    from salience.search import rerank

    if path is None:
        yield
        return
    with reranking_with(rerank.load.__wrapped__(path)):  # (checked as the shipped one is)
        yield


def parse_plan(text: str | None) -> dict[str, float] | None:
    """``"pool=50 reply_weight=0"`` -> ``{"pool": 50.0, "reply_weight": 0.0}``."""
    from salience.profiles.base import RecallPlan

    if not text:
        return None
    fields = {f.name for f in dataclasses.fields(RecallPlan)}
    values = {}
    for item in text.replace(",", " ").split():
        name, _, value = item.partition("=")
        if name not in fields:
            raise SystemExit(f"{name!r} is not a recall-plan field")
        values[name] = float(value)
    return values


UNDO = {
    "0013_row_counts": "DROP TRIGGER vectors_counted_in; DROP TRIGGER vectors_counted_out; "
    "DROP TABLE row_counts;",
    "0014_vector_sessions": "",  # (nothing on SQLite)
    "0018_spaces": "DROP INDEX memories_author; DROP INDEX memories_agent; "
    "ALTER TABLE memories DROP COLUMN author; ALTER TABLE memories DROP COLUMN agent; "
    "ALTER TABLE api_keys DROP COLUMN agent; ALTER TABLE api_keys DROP COLUMN spaces; "
    "DROP TABLE space_grants; DROP TABLE spaces;",
}
"""How to take a store back past a migration the code compared with does not know."""


def take_back(path: Path, src: Path) -> None:
    """Undo, in the copy at ``path``, the migrations that ``src``'s code does not know (it
    refuses a store written by a newer salience)."""
    known = subprocess.run(
        [
            sys.executable,
            "-c",
            "from salience.stores.migrations import MIGRATION_NAMES as M; print(' '.join(M))",
        ],
        check=True,
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(src)),
    ).stdout.split()
    conn = sqlite3.connect(path)
    applied = [r[0] for r in conn.execute("SELECT name FROM schema_migrations")]
    for name in reversed([n for n in applied if n not in known]):
        if name not in UNDO:
            raise SystemExit(f"--before: cannot take the store back past {name}")
        conn.executescript(UNDO[name])
        conn.execute("DELETE FROM schema_migrations WHERE name = ?", (name,))
    conn.commit()
    conn.close()
