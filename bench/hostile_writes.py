"""The write authority tried as a hostile user would: the 30 planted orders of the held-out
set (tests/data/injection/held_out.jsonl) sent through every face by writers below the user,
each claiming the user's word and a pin; then every way an agent has to let a held one out.

    python bench/hostile_writes.py [--orders N] [--store-url URL] [--out FILE]

Faces: the HTTP API with an agent's key (remember, rewrite, supersede, JSON Lines import),
each MCP tool set (an agent), the eidet and RAE compat routes (an agent's key), an unsigned
JSON Lines file and an unsigned pack imported by the user, and ``import --from mem0``.
Counts, per face: the orders found in the store (a refused rewrite stores none), stored
as the user's, pinned, briefed (each line marked with its source), briefed without a mark
(as the user's words), held in quarantine, and let out of it without a person. The goal is
0 as the user's, pinned, unmarked and released. Prints the table and writes JSON (default
bench/results/hostile_writes.json).
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import logging
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from fastapi.testclient import TestClient
from mcp import Client

from common import machine, print_table, store_in, write_results
from salience import Config, Memory
from salience.mcp_server import create_mcp_server
from salience.server.app import create_app

HELD_OUT = (
    Path(__file__).resolve().parent.parent / "tests" / "data" / "injection" / "held_out.jsonl"
)
USER = "default"
COLUMNS = (
    "face",
    "planted",
    "stored",
    "as user",
    "pinned",
    "briefed",
    "unmarked",
    "held",
    "released",
)


def orders(count: int) -> list[str]:
    """The held-out instructions (written after the detector's rules were frozen)."""
    rows = [json.loads(line) for line in HELD_OUT.read_text().splitlines() if line]
    return [r["text"] for r in rows if r.get("label") == "instruction"][:count]


class Trial:
    """One store, a server on it with a person's key and an agent's key, and the user's own
    pinned memories for the agent to aim at."""

    def __init__(self, home: Path, store_url: str) -> None:
        config = Config(home=home, store_url=store_url, signal_gate=False, embedder="none")
        self.memory = Memory.open(config=config)
        self.person = _bearer(self.memory.create_key(user=USER).key)
        self.agent = _bearer(self.memory.create_key(user=USER, source="agent").key)
        self.client = TestClient(create_app(self.memory))
        self.client.__enter__()
        self.home = home

    def close(self) -> None:
        self.client.__exit__(None, None, None)
        self.memory.close()

    def users_memory(self, n: int, face: str) -> str:
        """A memory in the user's own words, pinned, with a topic key, for a face to aim at."""
        made = self.memory.remember(
            f"Release checklist item {n} for {face}: the user signs off on it.",
            source="user",
            priority=100,
            topic_key=f"checklist-{face}-{n}",
        )
        assert made.id is not None
        return made.id

    def http(self, method: str, path: str, body: Any = None, *, person: bool = False) -> Any:
        headers = self.person if person else self.agent
        if isinstance(body, bytes | str):
            kind = "application/zip" if isinstance(body, bytes) else "application/x-ndjson"
            answer = self.client.request(
                method, path, content=body, headers={**headers, "Content-Type": kind}
            )
        else:
            answer = self.client.request(method, path, json=body, headers=headers)
        if answer.status_code >= 500:
            raise RuntimeError(f"{method} {path}: {answer.status_code} {answer.text}")
        return answer

    def tool(self, tools: str, name: str, **arguments: Any) -> None:
        async def main() -> None:
            async with Client(create_mcp_server(self.memory, tools=tools)) as client:
                await client.call_tool(name, arguments)

        asyncio.run(main())


def _bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def _line(text: str) -> str:
    return json.dumps({"content": text, "source": "user", "priority": 100, "type": "procedure"})


def _pack(trial: Trial, texts: list[str]) -> bytes:
    """An unsigned pack a stranger made in their own store (where they are the user):
    every memory the user's word, pinned."""
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory.open(
            config=Config(home=Path(tmp), embedder="none", signal_gate=False),
            clock=trial.memory._clock,
        ) as stranger,
    ):
        for text in texts:
            stranger.remember(text, source="user", priority=100, type="procedure")
        stranger.export_pack(Path(tmp) / "stranger.pack")
        return (Path(tmp) / "stranger.pack").read_bytes()


def _mem0(trial: Trial, texts: list[str]) -> Path:
    path = trial.home / "mem0.json"
    stamp = "2026-01-05T10:00:00+00:00"
    rows = [
        {"id": f"m{n}", "memory": t, "user_id": USER, "created_at": stamp}
        for n, t in enumerate(texts)
    ]
    path.write_text(json.dumps({"results": rows}))
    return path


Plant = Callable[[Trial, int, str], None]


def _rewrite(trial: Trial, n: int, text: str) -> None:
    target = trial.users_memory(n, "rewrite")
    trial.http("PATCH", f"/v1/memories/{target}", {"content": text, "priority": 1000})


def _supersede(trial: Trial, n: int, text: str) -> None:
    target = trial.users_memory(n, "supersede")
    trial.http("POST", f"/v1/memories/{target}/supersede", {"content": text})


def _topic(trial: Trial, n: int, text: str) -> None:
    trial.users_memory(n, "ilab")
    trial.tool("ilab", "mem_save", user_id=USER, content=text, type="decision",
               topic_key=f"checklist-ilab-{n}")  # fmt: skip


def _mcp_update(tools: str, name: str, key: str) -> Plant:
    def plant(trial: Trial, n: int, text: str) -> None:
        target = trial.users_memory(n, f"{tools}-{name}")
        trial.tool(tools, name, **{key: target, "content": text})

    return plant


ONE_BY_ONE: dict[str, Plant] = {
    "http remember": lambda t, n, x: t.http(
        "POST", "/v1/memories", {"content": x, "source": "user", "priority": 100}
    ),
    "http rewrite": _rewrite,
    "http supersede": _supersede,
    "mcp salience remember": lambda t, n, x: t.tool("salience", "remember", content=x),
    "mcp salience update": _mcp_update("salience", "update", "memory_id"),
    "mcp aide memory_add": lambda t, n, x: t.tool(
        "aide", "memory_add", content=x, tags=["source:user", "verified:true"]
    ),
    "mcp eidet store": lambda t, n, x: t.tool(
        "eidet", "eidet_store", content=x, provenance="user_stated"
    ),
    "mcp eidet edit": _mcp_update("eidet", "eidet_edit", "id"),
    "mcp ilab topic": _topic,
    "mcp talome remember": lambda t, n, x: t.tool("talome", "remember", content=x),
    "mcp talome update": _mcp_update("talome", "update_memory", "id"),
    "mcp rae save": lambda t, n, x: t.tool("rae", "save_memory", content=x, source="user"),
    "rest eidet store": lambda t, n, x: t.http(
        "POST", "/compat/eidet/api/eidet", {"content": x, "source": "user_stated", "importance": 1}
    ),
    "rest rae store": lambda t, n, x: t.http(
        "POST", "/compat/rae/v2/memories", {"content": x, "source": "user", "importance": 1}
    ),
}
ALL_AT_ONCE: dict[str, Callable[[Trial, list[str]], None]] = {
    "http import (agent key)": lambda t, xs: t.http(
        "POST", "/v1/import", "\n".join(_line(x) for x in xs) + "\n"
    ),
    "import file (user)": lambda t, xs: t.memory.import_(io.StringIO("\n".join(map(_line, xs)))),
    "pack, unsigned (user)": lambda t, xs: t.http(
        "POST", "/v1/packs/import", _pack(t, xs), person=True
    ),
    "import --from mem0 (user)": lambda t, xs: t.memory.import_from("mem0", _mem0(t, xs)),
}


def release_attempts(trial: Trial) -> None:
    """Every way an agent has to let a held memory out, tried on each held one."""
    for record in trial.memory.quarantined():
        rid = record.id
        trial.http("PATCH", f"/v1/memories/{rid}", {"enabled": True})
        trial.http("PATCH", f"/v1/memories/{rid}", {"tags": []})
        trial.http("POST", f"/v1/quarantine/{rid}/approve")
        trial.http("PUT", f"/compat/eidet/api/eidet/{rid}", {"tags": ["ok"]})
        trial.tool("salience", "update", memory_id=rid, tags=["ok"])
        trial.tool("eidet", "eidet_edit", id=rid, importance=1.0)


def _key(text: str) -> str:
    return text[:48]


def count(trial: Trial, face: str, texts: list[str], held_before: set[str]) -> dict[str, Any]:
    keys = {_key(t) for t in texts}
    rows = [r for r in trial.memory.list(limit=None) if _key(r.content) in keys]
    briefing = trial.memory.briefing(profile="salience", budget=1_000_000).text
    pinned = (
        briefing.split("## Pinned", 1)[1].split("\n## ", 1)[0] if "## Pinned" in briefing else ""
    )
    briefed = [line for line in briefing.splitlines() if any(k in line for k in keys)]
    unmarked = [line for line in briefed if not line.startswith("- [")]
    held_now = {r.id for r in trial.memory.quarantined()}
    return {
        "face": face,
        "planted": len(texts),
        "stored": len(rows),
        "as user": sum(1 for r in rows if r.source == "user"),
        "pinned": sum(1 for r in rows if r.priority != 0) + sum(1 for k in keys if k in pinned),
        "briefed": len(briefed),
        "unmarked": len(unmarked),
        "held": len(held_before),
        "released": len(held_before - held_now),
    }


def run(texts: list[str], store_url: str = "") -> list[dict[str, Any]]:
    """The trial, one fresh store per face; a row of counts per face."""
    rows = []
    faces: list[tuple[str, Callable[[Trial, list[str]], None]]] = [
        (name, lambda t, xs, p=plant: [p(t, n, x) for n, x in enumerate(xs)])  # type: ignore[misc]
        for name, plant in ONE_BY_ONE.items()
    ]
    faces += list(ALL_AT_ONCE.items())
    for face, plant_all in faces:
        with tempfile.TemporaryDirectory() as tmp, store_in(store_url, face) as url:
            trial = Trial(Path(tmp), url)
            try:
                plant_all(trial, texts)
                held = {r.id for r in trial.memory.quarantined()}
                release_attempts(trial)
                rows.append(count(trial, face, texts, held))
            finally:
                trial.close()
    return rows


def _schema(url: str, face: str) -> str:
    """A schema of its own for each face on a PostgreSQL server (``options=-csearch_path``)."""
    import psycopg

    name = "hostile_" + "".join(c if c.isalnum() else "_" for c in face)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")
        conn.execute(f"CREATE SCHEMA {name}")
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}options=-csearch_path%3D{name}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--orders", type=int, default=30, help="how many planted orders")
    parser.add_argument("--store-url", default="", help="a PostgreSQL URL (default: SQLite)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    logging.disable(logging.INFO)  # (the client logs every request otherwise)
    started = time.perf_counter()
    rows = run(orders(args.orders), args.store_url)
    totals = {c: sum(r[c] for r in rows) for c in COLUMNS[1:]}
    table = [list(COLUMNS)] + [
        [str(r[c]) for c in COLUMNS] for r in [*rows, {"face": "all", **totals}]
    ]
    print_table(table, right_align_from=1)
    print(f"({time.perf_counter() - started:.0f} s on {machine()['cpu']})")
    out = args.out or Path(__file__).parent / "results" / "hostile_writes.json"
    write_results(out, {"machine": machine(), "rows": rows, "totals": totals})


if __name__ == "__main__":
    main()
