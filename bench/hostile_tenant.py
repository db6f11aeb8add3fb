"""A hostile tenant against a keyed ``salience serve`` (``serve_load.py --hostile``).

One tenant (mallory) sends, all at once, the hostile uploads of the trial that found issue
#55 (an endless view, a 3M-row view, a 300 MB row, a bbolt file that loops, a zip bomb, nine
malformed stores) and ``--waits`` imports that each ask ``Prefer: wait=300``; an upload
refused for too many jobs (429) is sent again after its ``Retry-After``, as a client would.
Meanwhile another tenant (alice) asks ``/healthz`` and ``/v1/stats`` twice a second. Then
the waits are sent again and the server gets SIGTERM while they wait.

Measured: every answer's status (the goal: no 5xx), alice's slowest answer (goal: under 2 s
throughout), when each hostile job ended and why (goal: within 3 minutes, failed with its
reason), the server's peak resident memory (VmHWM; goal: under 2 GB), and how long it took
to stop after SIGTERM (goal: 15 s).
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import shutil
import signal
import sqlite3
import struct
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).parent.parent
DATA = ROOT / "tests" / "data" / "importers"
MB = 1024 * 1024
OCTETS, ZIP, JSON = "application/octet-stream", "application/zip", "application/json"


def _sqlite(path: Path, *statements: str, params: tuple[Any, ...] = ()) -> bytes:
    conn = sqlite3.connect(path)
    for n, statement in enumerate(statements):
        conn.execute(statement, params if n == len(statements) - 1 else ())
    conn.commit()
    conn.close()
    return path.read_bytes()


def _bolt(fan_out: int, size: int = 1 << 16) -> bytes:
    """A bbolt file (format v2, valid meta page 0) whose root branch page names itself
    ``fan_out`` times."""
    from salience.sharing.importers.bolt import MAGIC, _fnv64a

    data = bytearray(size * 3)
    meta = struct.pack("<QHHI", 0, 0x04, 0, 0) + struct.pack("<IIII", MAGIC, 2, size, 0)
    meta += struct.pack("<QQQQQ", 2, 0, 0, 3, 1)  # root 2, sequence, freelist, pgid, txid
    data[: len(meta) + 8] = meta + struct.pack("<Q", _fnv64a(bytes(meta[16:72])))
    branch = struct.pack("<QHHI", 2, 0x01, fan_out, 0) + struct.pack("<IIQ", 0, 0, 2) * fan_out
    data[2 * size : 2 * size + len(branch)] = branch
    return bytes(data)


def _zip(members: list[tuple[str, bytes]]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members:
            archive.writestr(name, data)
    return out.getvalue()


def _talome_row(size: int, work: Path) -> bytes:
    path = work / "row.db"
    shutil.copy(DATA / "talome" / "talome.db", path)
    return _sqlite(
        path,
        "INSERT INTO memories (type, content, created_at, updated_at) "
        "VALUES ('fact', ?, '2026-01-01', '2026-01-01')",
        params=("x" * size,),
    )


def _odd_qdrant(work: Path) -> bytes:
    folder = work / "qdrant" / "collection" / "mem0"
    folder.mkdir(parents=True)
    shutil.copy(DATA / "mem0" / "qdrant" / "collection" / "mem0" / "storage.sqlite", folder)
    _sqlite(
        folder / "storage.sqlite",
        "UPDATE points SET point = ? WHERE rowid = 1",
        params=(b"\x80\x04\x95",),
    )
    return _zip([(f"qdrant/collection/mem0/{f.name}", f.read_bytes()) for f in folder.iterdir()])


def hostile_uploads(work: Path) -> list[tuple[str, str, str, bytes]]:
    """(label, system, content type, body) of every hostile upload of the trial."""
    endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n{limit}) "
    columns = (
        "SELECT i AS id, 'fact' AS type, 'x' AS content, NULL AS source, 1.0 AS confidence, "
        "0 AS access_count, 1 AS enabled, '2026-01-01' AS created_at, "
        "'2026-01-01' AS updated_at FROM n"
    )
    engram = work / "engram.db"
    shutil.copy(DATA / "engram" / "engram.db", engram)
    return [
        (
            "endless view",
            "talome",
            OCTETS,
            _sqlite(
                work / "endless.db", "CREATE VIEW memories AS " + endless.format(limit="") + columns
            ),
        ),
        (
            "3M-row view",
            "talome",
            OCTETS,
            _sqlite(
                work / "rows.db",
                "CREATE VIEW memories AS " + endless.format(limit=" LIMIT 3000000") + columns,
            ),
        ),
        ("300 MB row", "talome", OCTETS, _talome_row(300 * MB, work)),
        ("bbolt fan-out 4000", "aide", OCTETS, _bolt(4000)),
        ("bbolt self-loop", "aide", OCTETS, _bolt(1)),
        (
            "zip bomb (200 MB CLAUDE.md)",
            "claude-code",
            ZIP,
            _zip([("home/CLAUDE.md", bytes(200 * MB))]),
        ),
        (
            "zip: file then folder",
            "claude-code",
            ZIP,
            _zip([("n/a.md", b"- x"), ("n/a.md/b.md", b"- y")]),
        ),
        ("zip: folder then file", "claude-code", ZIP, _zip([("n/b/", b""), ("n/b", b"- y")])),
        ("zip: 300-char name", "claude-code", ZIP, _zip([("n/" + "n" * 300 + ".md", b"- y")])),
        ("odd Qdrant point", "mem0", ZIP, _odd_qdrant(work)),
        ("talome list of numbers", "talome", JSON, b"[1, 2, 3]"),
        ("aide list of numbers", "aide", JSON, b"[1, 2, 3]"),
        (
            "engram generated column",
            "engram",
            OCTETS,
            _sqlite(
                engram,
                "ALTER TABLE observations ADD COLUMN bomb BLOB "
                "GENERATED ALWAYS AS (zeroblob(100000000)) VIRTUAL",
            ),
        ),
        ("RAE database URL", "rae", OCTETS, b"postgresql://mallory@db.internal/rae"),
    ]


def _lines(batch: int, count: int) -> bytes:
    return "".join(
        json.dumps(
            {
                "content": f"hostile wait {batch} note {n}: the crane {n * 7919 % 997} "
                f"passed inspection on site {batch}"
            }
        )
        + "\n"
        for n in range(count)
    ).encode()


class Server:
    """A keyed ``salience serve`` on a free loopback port, with two tenants' keys."""

    def __init__(self, home: Path, env: dict[str, str]) -> None:
        from serve_load import free_port

        self.env = {**os.environ, "SALIENCE_HOME": str(home), **env}
        self.keys = {user: self._key(user) for user in ("mallory", "alice")}
        self.port = free_port()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "salience", "serve", "--port", str(self.port)],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.base}/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
        raise SystemExit("the server did not start")

    def _key(self, user: str) -> str:
        made = subprocess.run(
            [sys.executable, "-m", "salience", "keys", "create", "--user", user, "--json"],
            env=self.env,
            capture_output=True,
            text=True,
            check=True,
        )
        return str(json.loads(made.stdout)["key"])

    def headers(self, user: str, **extra: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.keys[user]}", **extra}

    def peak_mb(self) -> float:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self) -> float:
        """SIGTERM; the seconds until the process exited (killed after 60)."""
        started = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return float("inf")
        return time.monotonic() - started


async def watch(server: Server, stop: asyncio.Event, seen: dict[str, list[float]]) -> None:
    """Alice's /healthz and /v1/stats twice a second, until ``stop``; their latencies."""
    async with httpx.AsyncClient(base_url=server.base, timeout=30) as http:
        while not stop.is_set():
            for path in ("/healthz", "/v1/stats"):
                started = time.perf_counter()
                try:
                    answer = await http.get(path, headers=server.headers("alice"))
                    ok = answer.status_code == 200
                except httpx.HTTPError:
                    ok = False
                seen[path].append(time.perf_counter() - started if ok else float("inf"))
            await asyncio.sleep(0.5)


async def upload(
    http: httpx.AsyncClient, server: Server, label: str, system: str, kind: str, body: bytes
) -> dict[str, Any]:
    """Send one hostile upload (again after Retry-After on 429); follow its job to its end."""
    started = time.monotonic()
    statuses: list[int] = []
    while True:
        answer = await http.post(
            f"/v1/import/{system}",
            content=body,
            headers=server.headers("mallory", **{"Content-Type": kind, "Prefer": "respond-async"}),
        )
        statuses.append(answer.status_code)
        if answer.status_code != 429 or time.monotonic() - started > 180:
            break
        await asyncio.sleep(float(answer.headers.get("retry-after", "5")))
    reason = answer.json().get("error", {}).get("message", "") if answer.status_code >= 400 else ""
    if answer.status_code == 202:
        href = answer.json()["href"]
        while True:
            job = (await http.get(href, headers=server.headers("mallory"))).json()
            if job["state"] not in ("queued", "running") or time.monotonic() - started > 240:
                break
            await asyncio.sleep(0.25)
        statuses.append(job["error"]["status"] if job.get("error") else 200)
        reason = job["error"]["message"] if job.get("error") else job["state"]
    return {
        "label": label,
        "statuses": statuses,
        "ended_s": time.monotonic() - started,
        "reason": reason[:90],
    }


async def wait_request(http: httpx.AsyncClient, server: Server, batch: int) -> int:
    try:
        answer = await http.post(
            "/v1/import",
            content=_lines(batch, 300),
            headers=server.headers(
                "mallory", **{"Content-Type": "application/x-ndjson", "Prefer": "wait=300"}
            ),
        )
        return answer.status_code
    except httpx.HTTPError:
        return -1  # (the connection closed: the server stopped)


async def attack(server: Server, uploads: list[tuple[str, str, str, bytes]], waits: int) -> Any:
    stop = asyncio.Event()
    seen: dict[str, list[float]] = {"/healthz": [], "/v1/stats": []}
    watcher = asyncio.create_task(watch(server, stop, seen))
    limits = httpx.Limits(max_connections=waits + len(uploads) + 8)
    async with httpx.AsyncClient(base_url=server.base, timeout=400, limits=limits) as http:
        waiting = [asyncio.create_task(wait_request(http, server, n)) for n in range(waits)]
        ended = await asyncio.gather(*(upload(http, server, *u) for u in uploads))
        statuses = await asyncio.gather(*waiting)
    stop.set()
    await watcher
    return ended, statuses, seen


async def stop_while_waiting(server: Server, waits: int) -> tuple[float, list[int]]:
    limits = httpx.Limits(max_connections=waits + 4)
    async with httpx.AsyncClient(base_url=server.base, timeout=400, limits=limits) as http:
        waiting = [asyncio.create_task(wait_request(http, server, 1000 + n)) for n in range(waits)]
        await asyncio.sleep(3)
        stopped = await asyncio.to_thread(server.stop)
        statuses = await asyncio.gather(*waiting)
    return stopped, statuses


def run(waits: int) -> dict[str, Any]:
    """The whole hostile run; its measurements."""
    work = Path(tempfile.mkdtemp(prefix="hostile-"))
    try:
        uploads = hostile_uploads(work)
        server = Server(work / "home", {"SALIENCE_MAX_REQUEST_BYTES": str(400 * MB)})
        started = time.monotonic()
        ended, statuses, seen = asyncio.run(attack(server, uploads, waits))
        attack_s = time.monotonic() - started
        peak_mb = server.peak_mb()
        stopped_s, stop_statuses = asyncio.run(stop_while_waiting(server, waits))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    every = [s for e in ended for s in e["statuses"]] + list(statuses) + list(stop_statuses)
    return {
        "uploads": ended,
        "waits": {str(s): statuses.count(s) for s in sorted(set(statuses))},
        "waits_at_stop": {str(s): stop_statuses.count(s) for s in sorted(set(stop_statuses))},
        "answers_5xx": sum(1 for s in every if s >= 500),
        "slowest_healthz_s": max(seen["/healthz"]),
        "slowest_stats_s": max(seen["/v1/stats"]),
        "probes": len(seen["/healthz"]),
        "last_job_ended_s": max(e["ended_s"] for e in ended),
        "attack_s": attack_s,
        "peak_rss_mb": peak_mb,
        "sigterm_to_exit_s": stopped_s,
    }


def print_run(result: dict[str, Any]) -> None:
    from common import print_table

    rows = [["hostile upload", "statuses", "ended (s)", "why"]]
    for e in result["uploads"]:
        statuses = ",".join(str(s) for s in e["statuses"])
        rows.append([e["label"], statuses, f"{e['ended_s']:.1f}", e["reason"]])
    print_table(rows)
    goals = [
        ["measure", "value", "goal"],
        ["answers 5xx", str(result["answers_5xx"]), "0"],
        ["42 waits: statuses", json.dumps(result["waits"]), "no 5xx"],
        ["alice /healthz slowest (s)", f"{result['slowest_healthz_s']:.2f}", "< 2"],
        ["alice /v1/stats slowest (s)", f"{result['slowest_stats_s']:.2f}", "< 2"],
        ["last hostile job ended (s)", f"{result['last_job_ended_s']:.1f}", "< 180"],
        ["server peak RSS (MB)", f"{result['peak_rss_mb']:.0f}", "< 2048"],
        ["SIGTERM to exit (s)", f"{result['sigterm_to_exit_s']:.1f}", "< 15"],
        ["waits at SIGTERM: statuses", json.dumps(result["waits_at_stop"]), "no 5xx"],
    ]
    print_table(goals)
