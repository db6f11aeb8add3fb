"""The optional LLM for consolidation summaries, against a small local server that speaks
the OpenAI-compatible chat API (and Ollama's): the request, the gates on the answer, and the
fallback when the endpoint is down or answers nonsense."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from salience import Config, Memory
from salience.cli import cli
from salience.errors import ConfigError, LLMError
from salience.lifecycle.llm import SYSTEM_PROMPT, OllamaChat, OpenAIChat, load_llm
from salience.models import MemoryRecord
from salience.stores.grant import granted
from salience.write.entities import extract_entities
from tests.conftest import FakeClock
from tests.jsonserver import Request, json_server

KEY = "sk-test-abcdefghijklmnopqrstuvwxyz0123456789"
SUMMARY = "The CheckoutService keeps carts, sessions and rate limits in Redis at REDIS_URL."
OBSERVATIONS = [
    "The checkout service keeps shopping carts in Redis with a one day expiry",
    "Session tokens for checkout live in the same Redis cluster as the carts",
    "Rate limits for the checkout API are counted in Redis per customer",
    "Redis memory alarms fire when the checkout carts pile up during sales",
    "A Redis failover took the checkout service down for four minutes last week",
]


@dataclass
class Chat:
    """What the server received, and what it answers next."""

    requests: list[Request] = field(default_factory=list)
    status: int = 200
    answer: str = SUMMARY
    raw: Any = None  # a whole JSON answer instead of a chat reply


@pytest.fixture
def server() -> Iterator[tuple[str, Chat]]:
    chat = Chat()

    def reply(path: str, body: dict[str, Any]) -> tuple[int, Any]:
        if chat.raw is not None:
            return chat.status, chat.raw
        message = {"role": "assistant", "content": chat.answer}
        if path == "/v1/chat/completions":
            return chat.status, {"choices": [{"index": 0, "message": message}]}
        return chat.status, {"message": message}

    with json_server(reply) as (url, requests):
        chat.requests = requests
        yield url, chat


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _config(home: Path, url: str, kind: str = "openai") -> Config:
    return Config(
        home=home,
        signal_gate=False,
        llm=kind,
        llm_url=url,
        llm_model="tiny-chat",
        llm_api_key=KEY,
        llm_timeout_s=5,
    )


def _fill(memory: Memory, texts: list[str]) -> list[str]:
    return [str(memory.remember(text, type="observation", tags=["redis"]).id) for text in texts]


def test_openai_request_shape(server: tuple[str, Chat]) -> None:
    url, chat = server
    llm = OpenAIChat(f"{url}/v1", "tiny-chat", api_key=KEY, timeout=5)
    assert llm.summarize(["first text", "second text"]) == SUMMARY
    path, headers, body = chat.requests[0]
    assert path == "/v1/chat/completions"
    assert headers["Authorization"] == f"Bearer {KEY}"
    assert body["model"] == "tiny-chat"
    assert body["temperature"] == 0
    assert body["messages"][0] == {"role": "system", "content": SYSTEM_PROMPT}
    assert body["messages"][1]["content"] == (
        "Observations:\n1. first text\n2. second text\n\nInsight:"
    )
    assert KEY not in repr(llm)


def test_ollama_request_shape(server: tuple[str, Chat]) -> None:
    url, chat = server
    assert OllamaChat(url, "tiny-chat", timeout=5).summarize(["a text"]) == SUMMARY
    path, _, body = chat.requests[0]
    assert path == "/api/chat"
    assert body["stream"] is False
    assert body["messages"][1]["content"].startswith("Observations:\n1. a text")


@pytest.mark.parametrize(
    ("status", "raw", "message"),
    [
        (500, None, "answered HTTP 500"),
        (200, {"unexpected": True}, "no choices"),
        (200, {"choices": [{"message": {"content": "   "}}]}, "no text"),
    ],
)
def test_failures_are_llm_errors_without_the_key(
    server: tuple[str, Chat], status: int, raw: Any, message: str
) -> None:
    url, chat = server
    chat.status, chat.raw = status, raw
    with pytest.raises(LLMError, match=message) as caught:
        OpenAIChat(f"{url}/v1", "tiny-chat", api_key=KEY, timeout=5).summarize(["x"])
    assert KEY not in str(caught.value)


def test_load_llm_from_config(tmp_path: Path) -> None:
    assert load_llm(Config(home=tmp_path)) is None
    loaded = load_llm(_config(tmp_path, "http://127.0.0.1:1/v1"))
    assert isinstance(loaded, OpenAIChat)
    assert loaded.identity == "openai:tiny-chat"
    assert isinstance(load_llm(_config(tmp_path, "", kind="ollama")), OllamaChat)
    with pytest.raises(ConfigError, match="SALIENCE_LLM_MODEL"):
        load_llm(Config(home=tmp_path, llm="ollama"))
    with pytest.raises(ConfigError, match="unknown llm 'gpt'"):
        Config(home=tmp_path, llm="gpt")
    assert KEY not in repr(_config(tmp_path, "http://x/v1"))


def test_a_group_of_five_gets_the_llm_summary(
    server: tuple[str, Chat], home: Path, clock: FakeClock
) -> None:
    url, chat = server
    with Memory.open(config=_config(home, f"{url}/v1"), clock=clock, embedder=None) as memory:
        members = _fill(memory, OBSERVATIONS)
        plan = memory.consolidate(dry_run=True)
        assert chat.requests == []  # a dry run never calls the LLM
        assert plan.groups[0].summary == "llm"
        report = memory.consolidate()
        [group] = report.groups
        assert (group.summary, group.note) == ("llm", None)
        insight = memory.get(str(group.insight_id))
        assert insight.content == SUMMARY
        assert set(insight.derived_from) == set(members)
        assert insight.entities == extract_entities(SUMMARY)
        assert "REDIS_URL" in insight.entities
        sent = chat.requests[0][2]["messages"][1]["content"]
        assert all(text in sent for text in OBSERVATIONS)
        entry = memory.log(group.insight_id)[0]
        assert entry.detail["summary"] == "llm"
        assert entry.detail["llm"] == "openai:tiny-chat"
        assert memory.consolidate().groups == ()  # still idempotent
        assert len(chat.requests) == 1


def test_groups_under_five_stay_extractive(
    server: tuple[str, Chat], home: Path, clock: FakeClock
) -> None:
    url, chat = server
    with Memory.open(config=_config(home, f"{url}/v1"), clock=clock, embedder=None) as memory:
        _fill(memory, OBSERVATIONS[:4])
        [group] = memory.consolidate().groups
        assert group.summary == "extractive"
        assert chat.requests == []


def test_the_endpoint_down_falls_back_to_extractive(home: Path, clock: FakeClock) -> None:
    config = _config(home, f"http://127.0.0.1:{_closed_port()}/v1")
    with Memory.open(config=config, clock=clock, embedder=None) as memory:
        _fill(memory, OBSERVATIONS)
        [group] = memory.consolidate().groups
        assert group.summary == "extractive"
        assert group.note is not None
        assert group.note.startswith("LLM failed (cannot reach http://127.0.0.1:")
        assert memory.get(str(group.insight_id)).content in OBSERVATIONS
        assert memory.log(group.insight_id)[0].detail["note"] == group.note


@pytest.mark.parametrize(
    ("answer", "gate"),
    [
        ("The Redis password is in AWS: AKIAIOSFODNN7EXAMPLE for the checkout cluster", "secret"),
        ("ok", "signal"),
        ("I will remember that the checkout service uses Redis for everything", "signal"),
    ],
)
def test_the_answer_passes_the_write_gates(
    server: tuple[str, Chat], home: Path, clock: FakeClock, answer: str, gate: str
) -> None:
    url, chat = server
    chat.answer = answer
    with Memory.open(config=_config(home, f"{url}/v1"), clock=clock, embedder=None) as memory:
        _fill(memory, OBSERVATIONS)
        [group] = memory.consolidate().groups
        assert group.summary == "extractive"
        assert group.note is not None
        assert f"refused by the {gate} gate" in group.note
        assert "AKIA" not in group.note
        assert memory.get(str(group.insight_id)).content in OBSERVATIONS
        assert "AKIA" not in json.dumps([e.detail for e in memory.log()])


def test_text_sent_has_passed_the_secret_scanner_and_redaction(
    server: tuple[str, Chat], home: Path, clock: FakeClock
) -> None:
    url, chat = server
    with Memory.open(config=_config(home, f"{url}/v1"), clock=clock, embedder=None) as memory:
        _fill(memory, OBSERVATIONS[:3])
        memory.remember(
            "Checkout Redis runs on port 6379 <private>behind the office VPN</private>",
            type="observation",
            tags=["redis"],
        )
        # A record that never went through the gates (written straight into the store, as an
        # old or hand-edited file might hold): it must not reach the LLM.
        planted = memory.list()[0]
        values = {**planted.__dict__, "id": "01KAAAAAAAAAAAAAAAAAAAAAAA"}
        values["content"] = "Checkout Redis key is AKIAIOSFODNN7EXAMPLE"
        with granted("a planted record"):
            memory.store.insert(MemoryRecord(**values))
        [group] = memory.consolidate().groups
        sent = chat.requests[0][2]["messages"][1]["content"]
        assert "AKIAIOSFODNN7EXAMPLE" not in sent
        assert "office VPN" not in sent
        assert group.note == "1 member(s) withheld from the LLM by the secret scanner"


def test_cli_consolidate_shows_the_summary_method(server: tuple[str, Chat], home: Path) -> None:
    url, _ = server
    env = {
        "SALIENCE_SIGNAL_GATE": "0",
        "SALIENCE_EMBEDDER": "none",
        "SALIENCE_LLM": "openai",
        "SALIENCE_LLM_URL": f"{url}/v1",
        "SALIENCE_LLM_MODEL": "tiny-chat",
    }
    runner = CliRunner(env=env)
    for text in OBSERVATIONS:
        runner.invoke(cli, ["remember", text, "--tag", "redis", "--home", str(home)])
    done = runner.invoke(cli, ["consolidate", "--home", str(home)])
    assert done.exit_code == 0
    assert "[llm]" in done.stdout
