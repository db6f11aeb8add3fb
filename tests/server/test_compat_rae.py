"""RAE's REST face (server/compat_rae.py): its query filters, and FastAPI's error shapes."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.conftest import fingerprint

V1 = "/compat/rae/v1/memory"
V2 = "/compat/rae/v2/memories"
NOTES = [
    {"content": "The deploy runs from the blue cluster", "layer": "em", "tags": ["ops"]},
    {"content": "The deploy of the billing service is manual", "layer": "sm", "tags": ["ops"]},
    {"content": "The deploy calendar lives in the wiki", "layer": "em", "source": "wiki"},
    {"content": "The deploy freeze starts on Friday", "layer": "em", "project": "billing"},
]


@pytest.fixture
def stored(client: TestClient) -> dict[str, str]:
    ids = {}
    for note in NOTES:
        answer = client.post(f"{V1}/store", json=note)
        assert answer.status_code == 200, answer.text
        ids[note["content"]] = answer.json()["id"]
    return ids


def _v1(client: TestClient, filters: dict[str, Any]) -> list[str]:
    answer = client.post(f"{V1}/query", json={"query_text": "deploy", "filters": filters})
    assert answer.status_code == 200, answer.text
    return sorted(r["content"] for r in answer.json()["results"])


def _v2(client: TestClient, filters: dict[str, Any], project: str = "billing") -> list[str]:
    body = {"query": "deploy", "project": project, "filters": filters}
    answer = client.post(f"{V2}/query", json=body)
    assert answer.status_code == 200, answer.text
    return sorted(r["content"] for r in answer.json()["results"])


def test_filters_are_applied_in_v1_and_v2(client: TestClient, stored: dict[str, str]) -> None:
    assert len(_v1(client, {})) == 4
    assert _v1(client, {"layer": "sm"}) == ["The deploy of the billing service is manual"]
    assert _v1(client, {"layer": "em", "tags": ["ops"]}) == [
        "The deploy runs from the blue cluster"
    ]
    assert _v1(client, {"tags": "ops"}) == sorted(n["content"] for n in NOTES[:2])
    assert _v1(client, {"source": "wiki"}) == ["The deploy calendar lives in the wiki"]
    assert _v1(client, {"project": "billing"}) == ["The deploy freeze starts on Friday"]
    assert _v2(client, {"layer": "em"}) == ["The deploy freeze starts on Friday"]
    assert _v2(client, {"layer": "sm"}) == []
    assert _v2(client, {"project": "elsewhere"}) == []  # two projects: none matches both


def test_an_unknown_or_malformed_filter_is_a_422_naming_it(
    client: TestClient, stored: dict[str, str]
) -> None:
    for path, body in (
        (f"{V1}/query", {"query_text": "deploy", "filters": {"colour": "blue"}}),
        (f"{V2}/query", {"query": "deploy", "project": "p", "filters": {"colour": "blue"}}),
    ):
        answer = client.post(path, json=body)
        assert answer.status_code == 422
        (error,) = answer.json()["detail"]
        assert error["loc"] == ["body", "filters", "colour"]
        assert "unknown filter 'colour'" in error["msg"]
        assert error["type"] == "value_error"
    answer = client.post(f"{V1}/query", json={"query_text": "x", "filters": {"tags": [1]}})
    assert answer.status_code == 422
    assert answer.json()["detail"][0]["loc"] == ["body", "filters", "tags"]


def test_a_request_that_does_not_validate_answers_fastapis_list(
    client: TestClient, engine: Any
) -> None:
    before = fingerprint(engine)
    answer = client.post(f"{V2}", json={"content": "", "importance": 7})
    assert answer.status_code == 422
    detail = answer.json()["detail"]
    assert isinstance(detail, list)
    assert {tuple(e["loc"]) for e in detail} == {("body", "content"), ("body", "importance")}
    assert all(set(e) == {"loc", "msg", "type"} for e in detail)  # never the input back
    broken = client.post(
        f"{V1}/query", content=b'{"query_text": ', headers={"Content-Type": "application/json"}
    )
    assert broken.status_code == 422
    assert isinstance(broken.json()["detail"], list)
    assert fingerprint(engine) == before
