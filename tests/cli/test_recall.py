"""The CLI's recall and reindex with the bundled embedder: hybrid results, explained."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from salience.cli import cli
from salience.search.vectors import IDENTITY_KEY
from salience.stores.sqlite import SQLiteStore


@pytest.fixture
def run(home: Path):  # type: ignore[no-untyped-def]
    def invoke(*args: str, env: dict[str, str] | None = None) -> Result:
        runner = CliRunner(env={"SALIENCE_SIGNAL_GATE": "0", **(env or {})})
        return runner.invoke(cli, [*args, "--home", str(home)])

    return invoke


MEMORIES = (
    "My golden retriever loves chasing tennis balls in the park.",
    "The quarterly tax return is due at the end of April.",
    "We moved the staging database to a bigger server last week.",
)


def test_recall_finds_a_paraphrase_through_vectors(run) -> None:  # type: ignore[no-untyped-def]
    for text in MEMORIES:
        assert run("remember", text).exit_code == 0
    result = run("recall", "puppy playing fetch", "--json")
    assert result.exit_code == 0, result.output
    hits = json.loads(result.stdout)["hits"]
    assert hits[0]["record"]["content"] == MEMORIES[0]
    assert hits[0]["lexical"] == 0.0  # no word in common: only the vector found it
    assert hits[0]["vector"] > 0.3
    assert hits[0]["relevance"]["fused"] is not None
    explained = run("recall", "puppy playing fetch", "--explain")
    assert "vector cosine" in explained.stdout
    assert "full-text: no match" in explained.stdout
    assert "prior" in explained.stdout


def test_recall_with_no_embedder_is_full_text_only(run) -> None:  # type: ignore[no-untyped-def]
    for text in MEMORIES:
        run("remember", text, env={"SALIENCE_EMBEDDER": "none"})
    none = {"SALIENCE_EMBEDDER": "none"}
    unembedded = run("recall", "puppy playing fetch", "--json", env=none)
    assert json.loads(unembedded.stdout)["hits"] == []
    assert [d["cause"] for d in json.loads(unembedded.stdout)["degraded"]] == ["no_embedder"]
    assert "warning: degraded: no embedding model is configured" in unembedded.stderr
    short = run("recall", "puppy playing fetch", "--json")  # the model is back: none embedded
    assert json.loads(short.stdout)["degraded"] == [
        {
            "cause": "vectors_missing",
            "detail": "3 memories without a vector: only full text finds them",
            "fix": "salience reindex",
        }
    ]
    filled = run("reindex")
    assert filled.exit_code == 0
    assert "embedded 3 memories with minilm:" in filled.stdout
    hits = json.loads(run("recall", "puppy playing fetch", "--json").stdout)["hits"]
    assert hits[0]["record"]["content"] == MEMORIES[0]


def test_vectors_of_another_embedder_are_refused_clearly(  # type: ignore[no-untyped-def]
    run, home: Path
) -> None:
    run("remember", MEMORIES[0])
    store = SQLiteStore(home / "salience.db")
    store.set_meta(IDENTITY_KEY, "openai:text-embedding-3-small")
    store.close()
    result = run("recall", "dog")  # found by full text, and said
    assert result.exit_code == 0
    assert "warning: degraded: the query could not be embedded" in result.stderr
    assert "(fix: salience reindex)" in result.stderr
    assert "Traceback" not in result.output
    assert run("reindex").exit_code == 0
    again = run("recall", "dog")
    assert again.exit_code == 0
    assert "degraded" not in again.stderr


def test_an_unreachable_embedder_is_an_error_not_a_traceback(run) -> None:  # type: ignore[no-untyped-def]
    env = {
        "SALIENCE_EMBEDDER": "ollama",
        "SALIENCE_EMBEDDER_URL": "http://127.0.0.1:9",
        "SALIENCE_EMBEDDER_MODEL": "m",
    }
    result = run("remember", MEMORIES[0], env=env)
    assert result.exit_code == 1
    assert "cannot reach http://127.0.0.1:9" in result.output
    assert "Traceback" not in result.output
