"""CLI: rank (REFERENCE scores through import + --as-of), briefing, session, profiles."""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from salience.cli import cli
from salience.engine import core
from salience.sharing.jsonl import signed
from tests.embedder import WordHashEmbedder

AS_OF = "2026-04-20T00:00:00Z"


@pytest.fixture
def run(home: Path):  # type: ignore[no-untyped-def]
    # Verb tests use placeholder texts; the signal gate is tested on its own.
    runner = CliRunner(env={"SALIENCE_SIGNAL_GATE": "0"})

    def invoke(*args: str, stdin: str | None = None) -> Result:
        return runner.invoke(cli, [*args, "--home", str(home)], input=stdin, catch_exceptions=False)

    return invoke


def _import(run, *records: dict[str, object]) -> None:  # type: ignore[no-untyped-def]
    """The records, signed with a key the user trusts: they keep the sources they claim (a
    person's tags and pins, as the reference's cases are written)."""
    key = Path(tempfile.mkdtemp()) / "key"
    key.write_bytes(b"a shared key for the test")
    lines = "\n".join(signed((json.dumps(r) for r in records), key.read_bytes()))
    assert run("import", "-", "--verify-with", str(key), stdin=lines).exit_code == 0


def _scores(run, profile: str) -> dict[str, float]:  # type: ignore[no-untyped-def]
    result = run("rank", "--profile", profile, "--as-of", AS_OF, "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    for row in rows:
        assert set(row) >= {"record", "score", "breakdown"}
        total = sum(c["contribution"] for c in row["breakdown"])
        if row["note"] is None:
            assert total == pytest.approx(row["score"])
    return {row["record"]["content"]: row["score"] for row in rows}


def test_rank_aide_prints_the_reference_scores(run) -> None:  # type: ignore[no-untyped-def]
    _import(
        run,
        {
            "content": "a",
            "type": "learning",
            "tags": ["project:aide", "source:discovered", "verified:true"],
            "access_count": 3,
            "created_at": "2026-04-13T00:00:00Z",
        },
        {
            "content": "b",
            "type": "learning",
            "tags": ["scope:global", "source:user", "verified:true", "source:discovered"],
            "access_count": 9,
            "created_at": AS_OF,
        },
        {"content": "c", "type": "abandoned", "tags": ["source:discovered"], "created_at": AS_OF},
        {"content": "d", "type": "other", "access_count": 1, "created_at": "2026-03-21T00:00:00Z"},
        {
            "content": "e",
            "type": "learning",
            "priority": 0.95,
            "source": "user",  # only the user's own memories may pin
            "created_at": "2025-04-20T00:00:00Z",
        },
    )
    scores = _scores(run, "aide")
    assert scores["a"] == pytest.approx(0.5953728, abs=1e-6)
    assert scores["b"] == pytest.approx(0.9025, abs=1e-6)
    assert scores["c"] == pytest.approx(0.7075, abs=1e-6)
    assert scores["d"] == pytest.approx(0.4051030, abs=1e-6)
    assert scores["e"] == 0.95
    assert list(scores) == ["e", "b", "c", "a", "d"]


def test_rank_other_profiles_print_their_reference_scores(run) -> None:  # type: ignore[no-untyped-def]
    _import(
        run,
        {
            "content": "eidet-vector",
            "importance": 0.8,
            "confidence": 0.7,
            "access_count": 5,
            "created_at": "2026-04-06T00:00:00Z",
        },
        {
            "content": "ilab-vector",
            "type": "decision",
            "revision_count": 5,
            "created_at": "2025-12-01T00:00:00Z",
        },
        {
            "content": "talome-vector",
            "confidence": 1.0,
            "access_count": 4,
            "created_at": "2026-04-05T00:00:00Z",
        },
        {
            "content": "rae-vector",
            "importance": 0.5,
            "access_count": 10,
            "created_at": "2026-04-19T00:00:00Z",
        },
    )
    assert _scores(run, "eidet")["eidet-vector"] == pytest.approx(0.5575, abs=1e-3)
    assert _scores(run, "ilab")["ilab-vector"] == pytest.approx(0.3096863, abs=1e-6)
    talome = 0.4 * 0.5 + 0.3 * math.log(5) + 0.3 * 1.0
    assert _scores(run, "talome")["talome-vector"] == pytest.approx(talome, abs=1e-12)
    rae = 0.1 * 0.5 + 0.2 * 0.5 + 0.1 * 1.0  # a day old: recency 0.5; 10 uses: usage 1
    assert _scores(run, "rae")["rae-vector"] == pytest.approx(rae, abs=1e-12)
    assert set(_scores(run, "salience")) == {
        "eidet-vector",
        "ilab-vector",
        "talome-vector",
        "rae-vector",
    }


def test_rank_human_output_and_explain(run) -> None:  # type: ignore[no-untyped-def]
    _import(run, {"content": "one memory", "created_at": AS_OF})
    out = run("rank", "--profile", "aide", "--as-of", AS_OF, "--explain").stdout
    assert "one memory" in out
    assert "category 0.5x" in out


def test_bad_as_of_and_unknown_profile(run) -> None:  # type: ignore[no-untyped-def]
    _import(run, {"content": "User prefers Jellyfin over Plex", "created_at": AS_OF})
    bad_time = run("rank", "--as-of", "last tuesday")
    assert bad_time.exit_code == 2
    assert "ISO 8601" in bad_time.output
    unknown = run("briefing", "--profile", "nope")
    assert unknown.exit_code == 1
    assert "known profiles: aide, eidet, ilab, rae, salience, talome" in unknown.stderr


def test_briefing_prints_exactly_the_injected_text(run) -> None:  # type: ignore[no-untyped-def]
    _import(
        run,
        {"content": "User prefers Jellyfin over Plex", "type": "preference", "created_at": AS_OF},
        {"content": "Media drive is at /mnt/media", "type": "fact", "created_at": AS_OF},
    )
    result = run("briefing", "--profile", "talome", "--as-of", AS_OF)
    assert result.stdout == (
        "## What I Remember About You\n- User prefers Jellyfin over Plex\n"
        "- Media drive is at /mnt/media\n"
    )
    explained = run("briefing", "--as-of", AS_OF, "--explain").stdout
    assert "--- manifest: 2 kept, 0 dropped" in explained
    document = json.loads(run("briefing", "--as-of", AS_OF, "--json", "--budget", "50").stdout)
    assert document["profile"] == "salience"
    assert document["tokens"] <= 50
    assert {e["kept"] for e in document["manifest"]} <= {True, False}
    assert len(document["manifest"]) == 2


def test_default_profile_comes_from_the_environment(home: Path) -> None:
    runner = CliRunner()
    created = runner.invoke(cli, ["remember", "User prefers Jellyfin", "--home", str(home)])
    assert created.exit_code == 0, created.output
    result = runner.invoke(
        cli, ["briefing", "--home", str(home)], env={"SALIENCE_PROFILE": "talome"}
    )
    assert result.exit_code == 0
    assert result.stdout.startswith("## What I Remember About You") or result.stdout == ""
    document = json.loads(
        runner.invoke(
            cli, ["briefing", "--home", str(home), "--json"], env={"SALIENCE_PROFILE": "eidet"}
        ).stdout
    )
    assert document["profile"] == "eidet"


def test_session_start_and_end(run) -> None:  # type: ignore[no-untyped-def]
    started = json.loads(run("session", "start", "--user", "alice", "--json").stdout)
    assert started["is_new"] is True
    again = json.loads(run("session", "start", "--user", "alice", "--json").stdout)
    assert again["session_id"] == started["session_id"]
    ended = run("session", "end", "--user", "alice", "--summary", "did things")
    assert ended.exit_code == 0
    assert ended.stdout.startswith("created ")
    assert run("session", "end", "--user", "alice", "--summary", "again").exit_code == 1
    human = run("session", "start", "--user", "alice").stdout
    assert "(new)" in human
    assert "did things" in human


def test_profiles_lists_all_six(run) -> None:  # type: ignore[no-untyped-def]
    names = [p["name"] for p in json.loads(run("profiles", "--json").stdout)]
    assert names == ["aide", "eidet", "ilab", "talome", "rae", "salience"]
    assert "(default)" in run("profiles").stdout


def test_recall_explain_and_json_breakdown(run) -> None:  # type: ignore[no-untyped-def]
    _import(run, {"content": "Redis caches the sessions", "created_at": AS_OF})
    hits = json.loads(run("recall", "redis", "--json", "--profile", "ilab").stdout)["hits"]
    assert [c["name"] for c in hits[0]["breakdown"]] == ["fts_rank", "recency", "revision"]
    assert "fts_rank 0.6x1.0000" in run("recall", "redis", "--explain", "--profile", "ilab").stdout


def test_recall_explains_the_learned_fusion_term_by_term(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the learned fusion re-ranks recalls by both retrievers: the test embedder serves
    monkeypatch.setattr(core, "load_embedder", lambda config: WordHashEmbedder())
    runner = CliRunner(env={"SALIENCE_SIGNAL_GATE": "0"})

    def run(*args: str, stdin: str | None = None) -> Result:
        return runner.invoke(cli, [*args, "--home", str(home)], input=stdin, catch_exceptions=False)

    _import(
        run,
        {"content": "Redis caches the sessions", "created_at": AS_OF},
        {"content": "Redis runs on the small box", "created_at": AS_OF},
    )
    explained = run("recall", "redis sessions", "--explain").stdout
    assert "learned 1.0000 (fused" in explained
    assert "logit " in explained
    assert "relevance (logit - " in explained
    hits = json.loads(run("recall", "redis sessions", "--json").stdout)["hits"]
    learned = hits[0]["relevance"]["learned"]
    terms = learned["terms"]
    assert learned["logit"] == pytest.approx(
        learned["bias"] + sum(t["contribution"] for t in terms)
    )
    assert hits[0]["relevance"]["fused"] == pytest.approx(
        (learned["logit"] - learned["low"]) / (learned["high"] - learned["low"])
    )
    monkeypatch.setenv("SALIENCE_RECALL_LEARNED", "false")
    assert "learned" not in run("recall", "redis sessions", "--explain").stdout


def test_the_explained_learned_sum_shows_the_largest_terms_and_sums_the_rest() -> None:
    from salience.cli.render import SHOWN_TERMS, learned_line
    from salience.models import Learned

    terms = (*((f"f{i}", 1.0, float(i)) for i in range(1, 21)), ("zero", 0.0, 5.0))
    logit = sum(float(i) for i in range(1, 21))
    line = learned_line(Learned(0.5, 0.0, terms, logit, 0.0, logit))
    assert line.count("*") == SHOWN_TERMS  # (the twelve largest, each value*weight)
    assert "f20 1.000*20.000 (+20.000)" in line
    assert "f8 1.000" not in line  # (the 13th largest: in the sum of the rest)
    assert "8 smaller terms (+36.000)" in line  # (1 + ... + 8; the zero term left out)
    assert "zero" not in line


def test_the_explained_learned_sum_says_where_its_session_came() -> None:
    from salience.cli.render import learned_line
    from salience.models import Learned

    terms = (("lexical", 1.0, 0.5),)
    assert learned_line(Learned(0.5, 0.0, terms, 0.5, 0.0, 1.0, 3)).endswith(
        "; session 3 in the fusion's order"
    )
    assert "session" not in learned_line(Learned(0.5, 0.0, terms, 0.5, 0.0, 1.0))
