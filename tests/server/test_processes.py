"""Several ``salience serve`` processes on one store (SQLite file or PostgreSQL database):
a write acknowledged by one is recalled by another within a second, and kill -9 of one
loses no acknowledged write and doubles none."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from salience import Client, Config, Memory
from tests.server.test_process import ENV, running

pytestmark = [pytest.mark.process]


def _env(store_url: str, *, embedder: bool = False) -> dict[str, str]:
    env = dict(ENV)
    if embedder:
        env.pop("SALIENCE_EMBEDDER")  # the bundled model: vectors cross processes too
    if store_url:
        env["SALIENCE_STORE_URL"] = store_url
    return env


def server(home: Path, env: dict[str, str]) -> Any:
    return running(home, env=env)


def test_a_write_in_one_process_is_recalled_in_another(tmp_path: Path, store_url: str) -> None:
    home = tmp_path / "home"
    env = _env(store_url, embedder=True)
    with (
        server(home, env) as (_, first),
        server(home, env) as (_, second),
        Client(first) as writer,
        Client(second) as reader,
    ):
        reader.search("warm the model up")
        for n in range(6):
            made = writer.remember(f"crane {n} on pier {n + 10} passed its load test")
            assert made.ok
            # (how soon is bench/serve_load.py's to measure; here, a bound against a hang)
            deadline = time.monotonic() + 60
            while not any(
                h.record.id == made.id for h in reader.search(f"crane {n} pier {n + 10} load test")
            ):
                assert time.monotonic() < deadline, f"write {n} never recalled by the other"
                time.sleep(0.02)


def test_kill_9_of_one_process_loses_and_doubles_no_acknowledged_write(
    tmp_path: Path, store_url: str
) -> None:
    home = tmp_path / "home"
    env = _env(store_url)
    acknowledged: dict[str, str] = {}
    written: dict[str, int] = {}  # acknowledged writes per server
    lock = threading.Lock()
    stop = threading.Event()

    def write(base: str, name: str) -> None:
        n = 0
        with httpx.Client(base_url=base, timeout=10) as http:
            while not stop.is_set():
                text = f"{name} wrote note {n} about bay {n % 7}"
                n += 1
                try:
                    answer = http.post("/v1/memories", json={"content": text, "force": True})
                except httpx.HTTPError:
                    continue  # the process is gone: this write was never acknowledged
                if answer.status_code == 201:
                    with lock:
                        acknowledged[answer.json()["id"]] = text
                        written[base] = written.get(base, 0) + 1

    def until(base: str, count: int) -> None:
        """Wait until ``base`` has acknowledged ``count`` writes (a bound against a hang)."""
        deadline = time.monotonic() + 120
        while written.get(base, 0) < count:
            assert time.monotonic() < deadline, f"{base} acknowledged {written.get(base)} writes"
            time.sleep(0.02)

    with server(home, env) as (victim, first), server(home, env) as (_, second):
        writers = [
            threading.Thread(target=write, args=(base, f"w{i}"))
            for i, base in enumerate([first, first, second, second])
        ]
        for thread in writers:
            thread.start()
        until(first, 20)  # both servers are taking writes
        until(second, 20)
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait()
        until(second, written[second] + 20)  # the survivor goes on after the kill
        stop.set()
        for thread in writers:
            thread.join()
        with Client(second) as survivor:
            assert survivor.remember("written after the kill", force=True).ok
    assert len(acknowledged) > 20
    config = Config(home=home, store_url=store_url) if store_url else Config(home=home)
    with Memory.open(config=config, embedder=None) as memory:
        stored = [r for r in memory.list(limit=100_000) if " wrote note " in r.content]
    by_id = {r.id: r.content for r in stored}
    lost = [i for i, text in acknowledged.items() if by_id.get(i) != text]
    assert lost == []
    contents = [r.content for r in stored]
    assert len(contents) == len(set(contents))  # nothing doubled
