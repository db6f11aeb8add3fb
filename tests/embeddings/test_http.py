"""The HTTP embedders against a small local server speaking each API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from salience import Config, Memory
from salience.embeddings import load_embedder
from salience.embeddings.http import OllamaEmbedder, OpenAIEmbedder
from salience.errors import EmbedderError
from tests.jsonserver import Request, json_server

KEY = "sk-test-abcdefghijklmnopqrstuvwxyz0123456789"


class Recorder:
    def __init__(self) -> None:
        self.requests: list[Request] = []
        self.status = 200


def _vector(text: str) -> list[float]:
    return [float(len(text)), 1.0, float(text.count("a"))]


@pytest.fixture
def server() -> Iterator[tuple[str, Recorder]]:
    recorder = Recorder()

    def reply(path: str, body: dict[str, Any]) -> tuple[int, Any]:
        texts = body["input"]
        if path == "/v1/embeddings":
            data = [
                {"index": i, "embedding": _vector(t)} for i, t in reversed(list(enumerate(texts)))
            ]
            return recorder.status, {"data": data}
        return recorder.status, {"embeddings": [_vector(t) for t in texts]}

    with json_server(reply) as (url, requests):
        recorder.requests = requests
        yield url, recorder


def test_openai_compatible_request_and_answer(server: tuple[str, Recorder]) -> None:
    url, recorder = server
    embedder = OpenAIEmbedder(f"{url}/v1", "text-embed", api_key=KEY)
    out = embedder.embed(["a", "banana"])
    path, headers, body = recorder.requests[0]
    assert path == "/v1/embeddings"
    assert body == {"model": "text-embed", "input": ["a", "banana"]}
    assert headers["Authorization"] == f"Bearer {KEY}"
    expected = np.array([_vector("a"), _vector("banana")], dtype=np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert np.allclose(out, expected)  # answer sorted back by index
    assert embedder.dimensions == 3
    assert embedder.identity == "openai:text-embed"
    assert KEY not in repr(embedder)


def test_ollama_request_and_answer(server: tuple[str, Recorder]) -> None:
    url, recorder = server
    embedder = OllamaEmbedder(url, "nomic-embed-text")
    assert embedder.embed(["abc"]).shape == (1, 3)
    assert recorder.requests[0][0] == "/api/embed"
    assert recorder.requests[0][2] == {"model": "nomic-embed-text", "input": ["abc"]}


def test_errors_name_the_host_and_never_the_key(server: tuple[str, Recorder]) -> None:
    url, recorder = server
    recorder.status = 401
    with pytest.raises(EmbedderError, match="HTTP 401") as caught:
        OpenAIEmbedder(f"{url}/v1", "m", api_key=KEY).embed(["x"])
    assert KEY not in str(caught.value)
    with pytest.raises(EmbedderError, match="cannot reach"):
        OllamaEmbedder("http://127.0.0.1:9", "m").embed(["x"])


def test_config_picks_the_http_embedders(tmp_path: Path, server: tuple[str, Recorder]) -> None:
    url, recorder = server
    config = Config(
        home=tmp_path,
        embedder="ollama",
        embedder_url=url,
        embedder_model="m",
        signal_gate=False,
    )
    assert KEY not in repr(Config(home=tmp_path, embedder_api_key=KEY))
    with Memory.open(config=config) as memory:
        memory.remember("banana bread recipe")
        hits = memory.search("banana", touch=False)
        assert hits[0].vector is not None
    assert isinstance(load_embedder(config), OllamaEmbedder)
    assert {r[0] for r in recorder.requests} == {"/api/embed"}
