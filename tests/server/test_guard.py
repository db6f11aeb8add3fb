"""The server's edge (server/guard.py): no state change from another site, declared media
types only, and a size limit on every body, streamed or not. Each refusal changes nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from salience import Memory
from tests.server.conftest import fingerprint

LINE = json.dumps({"content": "IMPORTANT instruction for the agent", "type": "decision"})


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("/v1/import", "text/plain"),
        ("/v1/import", "text/plain; charset=utf-8"),
        ("/v1/import", "application/x-www-form-urlencoded"),
        ("/v1/import", "multipart/form-data; boundary=x"),
        ("/v1/import", None),
        ("/v1/memories", "text/plain"),
        ("/v1/search", "text/plain"),
        ("/v1/consolidate", "text/plain"),
    ],
)
def test_a_body_of_an_undeclared_type_is_refused(
    client: TestClient, engine: Memory, path: str, kind: str | None
) -> None:
    before = fingerprint(engine)
    headers = {} if kind is None else {"Content-Type": kind}
    body = LINE if path == "/v1/import" else json.dumps({"content": "x", "query": "x"})
    answer = client.post(path, content=body.encode(), headers=headers)
    assert answer.status_code == 415, answer.text
    error = answer.json()["error"]
    assert error["code"] == "unsupported_media_type"
    assert "application/json" in error["message"]
    assert fingerprint(engine) == before


@pytest.mark.parametrize("kind", ["application/x-ndjson", "application/jsonl", "application/json"])
def test_import_takes_json_lines_under_its_declared_types(
    client: TestClient, engine: Memory, kind: str
) -> None:
    answer = client.post("/v1/import", content=LINE.encode(), headers={"Content-Type": kind})
    assert answer.status_code == 200, answer.text
    assert answer.json()["created"] == 1


def test_json_with_parameters_and_json_suffixes_is_json(client: TestClient) -> None:
    kinds = ("application/json; charset=utf-8", "Application/JSON", "application/x+json")
    for port, kind in enumerate(kinds, start=8080):
        body = json.dumps({"content": f"The staging API listens on port {port}"}).encode()
        answer = client.post("/v1/memories", content=body, headers={"Content-Type": kind})
        assert answer.status_code == 201, (kind, answer.text)


def test_the_originals_faces_are_answered_in_their_own_shape(client: TestClient) -> None:
    rae = client.post(
        "/compat/rae/v1/memory/store", content=b"x", headers={"Content-Type": "text/plain"}
    )
    assert rae.status_code == 415
    assert set(rae.json()) == {"detail"}
    eidet = client.post(
        "/compat/eidet/api/eidet", content=b"x", headers={"Content-Type": "text/plain"}
    )
    assert eidet.status_code == 415
    assert eidet.json()["error"]


CROSS = [
    {"Origin": "http://evil.example"},
    {"Origin": "http://127.0.0.1:9999"},  # another port of the same host: another origin
    {"Origin": "https://127.0.0.1"},  # another scheme
    {"Origin": "null"},  # a sandboxed frame, a file:// page
    {"Sec-Fetch-Site": "cross-site"},
    {"Sec-Fetch-Site": "same-site"},
    {"Origin": "http://127.0.0.1", "Sec-Fetch-Site": "cross-site"},
]


@pytest.mark.parametrize("headers", CROSS)
@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/v1/consolidate", None),
        ("POST", "/v1/maintain", None),
        ("POST", "/v1/sessions/start", None),
        ("POST", "/v1/memories", {"content": "The staging API listens on 8080"}),
        ("POST", "/v1/import", None),
        ("DELETE", "/v1/memories/01J0000000000000000000000A", None),
        ("POST", "/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        ("POST", "/ui/logout", None),
    ],
)
def test_nothing_changes_from_another_site(
    client: TestClient,
    engine: Memory,
    headers: dict[str, str],
    method: str,
    path: str,
    body: object,
) -> None:
    engine.remember("Redis runs on port 6379")
    before = fingerprint(engine)
    answer = client.request(method, path, headers=headers, json=body)
    assert answer.status_code == 403, answer.text
    assert answer.json()["error"]["code"] == "cross_site"
    assert fingerprint(engine) == before


def test_the_servers_own_origin_and_clients_without_one_still_write(
    client: TestClient, engine: Memory
) -> None:
    body = {"content": "The staging API listens on 8080"}
    same = {"Origin": "http://127.0.0.1", "Sec-Fetch-Site": "same-origin"}
    assert client.post("/v1/memories", json=body, headers=same).status_code == 201
    assert client.post("/v1/consolidate", headers={"Sec-Fetch-Site": "none"}).status_code == 200
    assert client.post("/v1/sessions/start").status_code == 200  # curl sends neither header


def test_reads_from_another_site_are_not_refused_here(client: TestClient) -> None:
    """A cross-site read cannot be read back by the page (no CORS); the Host check stops
    rebinding. Refusing GETs would only break links."""
    answer = client.get("/v1/memories", headers={"Sec-Fetch-Site": "cross-site"})
    assert answer.status_code == 200


@pytest.mark.parametrize("site", ["cross-site", "same-site"])
def test_a_read_from_another_site_changes_nothing(
    client: TestClient, engine: Memory, site: str
) -> None:
    """An ``<img>`` or a link from another site may GET a route that counts an access or
    records a briefing: answered as a read-only key's read, it changes no stored value."""
    engine.remember("the north crane is rated for 40 tonnes", type="fact")
    before = fingerprint(engine)
    briefed = len(engine.briefing_log().entries)
    other = {"Sec-Fetch-Site": site}
    recalled = client.get("/compat/eidet/api/eidet/recall", params={"q": "crane"}, headers=other)
    assert recalled.status_code == 200, recalled.text
    assert client.get("/compat/eidet/api/eidet/context", headers=other).status_code == 200
    assert (
        client.get(
            "/compat/rae/v1/memory/query", params={"query": "crane"}, headers=other
        ).status_code
        < 500
    )
    assert fingerprint(engine) == before
    assert len(engine.briefing_log().entries) == briefed
    client.get("/compat/eidet/api/eidet/context")  # (the same read from the site itself)
    assert len(engine.briefing_log().entries) == briefed + 1


@pytest.mark.parametrize("name", ["Origin", "Sec-Fetch-Site", "Host"])
def test_a_repeated_guard_header_is_refused(client: TestClient, engine: Memory, name: str) -> None:
    value = {"Origin": "http://127.0.0.1", "Sec-Fetch-Site": "same-origin", "Host": "127.0.0.1"}
    twice = [
        (name, "https://evil.example" if name == "Origin" else "cross-site"),
        (name, value[name]),
    ]
    if name == "Host":
        twice = [("Host", "evil.example"), ("Host", "127.0.0.1")]
    answer = client.post("/v1/memories", json={"content": "x y z w"}, headers=twice)
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "repeated_header"
    assert engine.list() == []


def _chunks(total: int, size: int = 1 << 16) -> Iterator[bytes]:
    sent = 0
    while sent < total:
        yield b"x" * min(size, total - sent)
        sent += size


def test_a_streamed_body_over_the_limit_answers_413(client: TestClient, engine: Memory) -> None:
    before = fingerprint(engine)
    limit = engine.config.max_request_bytes
    headers = {"Content-Type": "application/x-ndjson"}
    answer = client.post("/v1/import", content=_chunks(limit + 1), headers=headers)
    assert (answer.status_code, answer.json()["error"]["code"]) == (413, "too_large")
    json_body = client.post(
        "/v1/memories", content=_chunks(limit * 2), headers={"Content-Type": "application/json"}
    )
    assert json_body.status_code == 413
    assert fingerprint(engine) == before


def test_a_streamed_body_within_the_limit_is_read_whole(client: TestClient) -> None:
    lines = "".join(
        json.dumps({"content": f"Streamed memory number {n} about port {8000 + n}"}) + "\n"
        for n in range(200)
    ).encode()
    pieces = (lines[i : i + 1000] for i in range(0, len(lines), 1000))
    headers = {"Content-Type": "application/x-ndjson"}
    answer = client.post("/v1/import", content=pieces, headers=headers)
    assert answer.status_code == 200, answer.text
    assert answer.json()["created"] == 200


def test_a_get_of_mcp_answers_at_once(client: TestClient) -> None:
    """The MCP endpoint is stateless and sends nothing unasked: a GET (which would open a
    stream that never speaks) answers 405 instead of holding the connection."""
    answer = client.get("/mcp", headers={"Accept": "text/event-stream"})
    assert answer.status_code == 405
    assert answer.json()["error"]["code"] == "method_not_allowed"
