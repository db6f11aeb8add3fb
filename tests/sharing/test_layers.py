"""Mounted layers: two projects' stores, one mounted into the other read-only.

Recall and briefings search both with the 0.8 de-boost on the mounted layer's memories;
writes land local; any write aimed at the mounted layer is refused and changes nothing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from salience import ALL_USERS, Config, Memory
from salience.cli import cli
from salience.errors import (
    InvalidInputError,
    LayerError,
    NotFoundError,
    ReadOnlyLayerError,
    StoreError,
    StoreReadOnlyError,
)
from salience.models import LOCAL_LAYER
from salience.profiles import PROFILES, ProfileSettings
from salience.profiles.scoring.signals import NON_LOCAL_WEIGHT
from salience.stores.grant import granted
from salience.stores.sqlite import SQLiteStore
from tests.conftest import FakeClock
from tests.embedder import WordHashEmbedder

SHARED_TEXT = "The billing service retries failed webhooks three times with backoff"
LOCAL_TEXT = "The search service caches webhook payloads for one hour"


def _open(home: Path, clock: FakeClock, embedder: WordHashEmbedder | None) -> Memory:
    return Memory.open(config=Config(home=home, signal_gate=False), clock=clock, embedder=embedder)


@pytest.fixture
def projects(
    tmp_path: Path, clock: FakeClock, embedder: WordHashEmbedder
) -> Iterator[tuple[Memory, Memory]]:
    """(api, billing): two projects' stores; billing is mounted into api as ``shared``."""
    with _open(tmp_path / "billing", clock, embedder) as billing:
        billing.remember(SHARED_TEXT, tags=["project:billing"], type="insight")
        billing.remember("Invoices are generated on the first day of each month", type="insight")
    with _open(tmp_path / "api", clock, embedder) as api:
        api.remember(LOCAL_TEXT, tags=["project:api"], type="insight")
        api.mount(tmp_path / "billing", kind="shared")
        with _open(tmp_path / "billing", clock, embedder) as billing:
            yield api, billing


def _ids(hits: list) -> list[str]:  # type: ignore[type-arg]
    return [h.record.id for h in hits]


def test_mount_is_recorded_and_listed(projects: tuple[Memory, Memory], tmp_path: Path) -> None:
    api, _ = projects
    [mount] = api.layers()
    assert (mount.name, mount.kind) == ("shared", "shared")
    assert mount.path == str((tmp_path / "billing" / "salience.db").resolve())
    assert api.log(limit=1, user=ALL_USERS)[0].action == "mount"  # the store's own entry
    assert all(e.action != "mount" for e in api.log())


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_recall_returns_both_layers_with_the_de_boost(
    projects: tuple[Memory, Memory], profile: str
) -> None:
    api, billing = projects
    hits = api.search("webhooks service retries", profile=profile, touch=False)
    layers = {h.record.layer for h in hits}
    assert layers == {LOCAL_LAYER, "shared"}
    rules = api.profile(profile)
    settings = ProfileSettings.from_config(api.config)
    for hit in hits:
        assert hit.relevance is not None
        assert hit.explanation is not None
        plain = rules.search_score(hit.record, api.now(), hit.relevance, settings)
        if hit.record.layer == "shared" and not rules.weighs_layers:
            assert hit.score == pytest.approx(plain.value * NON_LOCAL_WEIGHT)
            assert "from layer 'shared'" in (hit.explanation.note or "")
            total = sum(c.contribution for c in hit.explanation.components)
            assert total == pytest.approx(hit.score)
        else:
            assert hit.score == pytest.approx(plain.value)
    shared = next(h for h in hits if h.record.layer == "shared")
    assert billing.get(shared.record.id).content == shared.record.content


def test_the_same_memory_scores_0_8_times_from_a_mounted_layer(
    tmp_path: Path, clock: FakeClock
) -> None:
    text = "The deploy script lives in tools/deploy.sh and needs bash"
    with _open(tmp_path / "team", clock, None) as team:
        team.remember(text)
    with _open(tmp_path / "mine", clock, None) as mine:
        mine.remember(text)
        mine.mount(tmp_path / "team", kind="base", name="team")
        for profile in ("aide", "eidet", "salience", "talome"):
            hits = mine.search("deploy script", profile=profile, touch=False)
            by_layer = {h.record.layer: h.score for h in hits}
            assert by_layer["team"] == pytest.approx(NON_LOCAL_WEIGHT * by_layer[LOCAL_LAYER])


def test_writes_land_local_and_writes_to_the_layer_are_refused(
    projects: tuple[Memory, Memory],
) -> None:
    api, billing = projects
    before = billing.export_lines()
    snapshot = list(before)
    written = api.remember("The api gateway terminates TLS before the search service")
    assert api.store.get(str(written.id)) is not None
    assert billing.store.get(str(written.id)) is None
    shared_id = billing.list()[0].id
    log_size = len(api.log())
    refusals = [
        lambda: api.update(shared_id, importance=0.9),
        lambda: api.update(shared_id, content="A new text for the shared memory here"),
        lambda: api.supersede(shared_id, "The billing service retries webhooks five times"),
        lambda: api.forget(shared_id, "wrong"),
        lambda: api.feedback(shared_id, used=True),
        lambda: api.purge(shared_id),
    ]
    for attempt in refusals:
        with pytest.raises(ReadOnlyLayerError, match="read-only shared layer 'shared'"):
            attempt()
    with pytest.raises(ReadOnlyLayerError, match="writes always go to the local layer"):
        api.remember("This one asks to be written to the shared layer", layer="shared")
    assert list(billing.export_lines()) == snapshot
    assert len(api.log()) == log_size
    assert api.get(shared_id).layer == "shared"  # reading through the layer still works


def test_access_bumps_touch_only_local_memories(projects: tuple[Memory, Memory]) -> None:
    api, billing = projects
    hits = api.search("webhooks service", profile="eidet")
    assert {h.record.layer for h in hits} == {LOCAL_LAYER, "shared"}
    assert all(r.access_count == 0 for r in billing.list())
    local = [h.record.id for h in hits if h.record.layer == LOCAL_LAYER]
    assert all(api.get(i).access_count == 1 for i in local)


def test_vectors_of_a_layer_are_searched(
    tmp_path: Path, clock: FakeClock, embedder: WordHashEmbedder
) -> None:
    with _open(tmp_path / "team", clock, embedder) as team:
        team.remember("Postgres replicas lag behind the primary during nightly batch jobs")
    with _open(tmp_path / "mine", clock, embedder) as mine:
        mine.remember("Redis holds the session tokens for the web app")
        mine.mount(tmp_path / "team", kind="shared")
        # "lag" and "replicas" only: eidet's vector hits need cosine >= 0.70, so ask plainly
        hits = mine.search("postgres replicas lag behind the primary", profile="rae")
        assert hits
        assert hits[0].record.layer == "shared"
        assert hits[0].vector is not None
        assert hits[0].vector > 0.5


def test_a_layer_embedded_by_another_model_is_searched_by_full_text_only(
    tmp_path: Path, clock: FakeClock
) -> None:
    with _open(tmp_path / "team", clock, WordHashEmbedder(tag="other")) as team:
        team.remember("Postgres replicas lag behind the primary during nightly batch jobs")
    with _open(tmp_path / "mine", clock, WordHashEmbedder()) as mine:
        mine.remember("Redis holds the session tokens for the web app")
        mine.mount(tmp_path / "team", kind="shared")
        hits = mine.search("postgres replicas", profile="salience")
        assert [h.record.layer for h in hits] == ["shared"]
        assert hits[0].vector is None
        assert hits[0].lexical > 0
        assert [(d.cause, "'shared'" in d.detail) for d in hits.degraded] == [
            ("layer_full_text", True)
        ]


def test_briefings_include_layers_with_the_de_boost(projects: tuple[Memory, Memory]) -> None:
    api, _ = projects
    briefing = api.briefing("salience")
    assert SHARED_TEXT in briefing.text
    assert LOCAL_TEXT in briefing.text
    settings = ProfileSettings.from_config(api.config)
    rules = api.profile("salience")
    kept = {entry.id: entry for entry in briefing.manifest if entry.kept}
    for memory_id, entry in kept.items():
        record = api.get(memory_id)
        plain = rules.context_score(record, api.now(), settings).value
        weight = NON_LOCAL_WEIGHT if record.layer == "shared" else 1.0
        assert entry.score == pytest.approx(plain * weight)


def test_unmount_stops_searching_the_layer(projects: tuple[Memory, Memory]) -> None:
    api, _ = projects
    gone = api.unmount("shared")
    assert gone.name == "shared"
    assert api.layers() == []
    hits = api.search("webhooks service retries", touch=False)
    assert {h.record.layer for h in hits} == {LOCAL_LAYER}
    with pytest.raises(LayerError, match="no layer named 'shared' is mounted"):
        api.unmount("shared")


def test_another_process_sees_a_mount(tmp_path: Path, clock: FakeClock) -> None:
    with _open(tmp_path / "team", clock, None) as team:
        team.remember("The staging cluster runs in eu-west-1")
    with (
        _open(tmp_path / "mine", clock, None) as first,
        _open(tmp_path / "mine", clock, None) as second,
    ):
        assert second.search("staging cluster", touch=False) == []
        first.mount(tmp_path / "team", kind="shared")
        assert [h.record.layer for h in second.search("staging cluster", touch=False)] == ["shared"]
        first.unmount("shared")
        assert second.search("staging cluster", touch=False) == []


@pytest.mark.parametrize(
    ("target", "kind", "name", "error", "message"),
    [
        ("missing", "shared", None, LayerError, "no salience store at"),
        ("mine", "shared", None, LayerError, "cannot be mounted onto itself"),
        ("team", "local", None, InvalidInputError, "unknown layer kind 'local'"),
        ("team", "shared", "local", InvalidInputError, "'local' is the store's own layer"),
        ("team", "shared", "bad name!", InvalidInputError, "bad layer name"),
        ("notsalience", "shared", None, LayerError, "cannot be opened"),
    ],
)
def test_bad_mounts_are_refused_and_change_nothing(
    tmp_path: Path,
    clock: FakeClock,
    target: str,
    kind: str,
    name: str | None,
    error: type[Exception],
    message: str,
) -> None:
    with _open(tmp_path / "team", clock, None) as team:
        team.remember("The staging cluster runs in eu-west-1")
    other = sqlite3.connect(tmp_path / "notsalience.db")
    other.execute("CREATE TABLE t (x)")
    other.close()
    paths = {"notsalience": tmp_path / "notsalience.db"}
    with _open(tmp_path / "mine", clock, None) as mine:
        entries = len(mine.log())
        with pytest.raises(error, match=message):
            mine.mount(paths.get(target, tmp_path / target), kind=kind, name=name)
        assert mine.layers() == []
        assert len(mine.log()) == entries


def test_a_name_or_a_path_is_mounted_once(tmp_path: Path, clock: FakeClock) -> None:
    for project in ("team", "other"):
        with _open(tmp_path / project, clock, None) as store:
            store.remember(f"The {project} notes live in the wiki")
    with _open(tmp_path / "mine", clock, None) as mine:
        mine.mount(tmp_path / "team", kind="shared")
        with pytest.raises(LayerError, match="already mounted as layer 'shared'"):
            mine.mount(tmp_path / "team" / "salience.db", kind="base", name="again")
        with pytest.raises(LayerError, match="choose another name with --name"):
            mine.mount(tmp_path / "other", kind="shared")
        mine.mount(tmp_path / "other", kind="shared", name="other")
        assert [m.name for m in mine.layers()] == ["other", "shared"]


def test_a_vanished_layer_is_skipped_and_named(tmp_path: Path, clock: FakeClock) -> None:
    with _open(tmp_path / "team", clock, None) as team:
        team.remember("The staging cluster runs in eu-west-1")
    with _open(tmp_path / "mine", clock, None) as mine:
        mine.remember("Our staging deploys happen on Fridays")
        mine.mount(tmp_path / "team", kind="shared")
    (tmp_path / "team" / "salience.db").unlink()
    with _open(tmp_path / "mine", clock, None) as mine:
        hits = mine.search("staging", touch=False)  # the local store still answers
        assert [h.record.content for h in hits] == ["Our staging deploys happen on Fridays"]
        assert [d.cause for d in hits.degraded] == ["layer_unavailable", "no_embedder"]  # said
        assert "layer 'shared' is unavailable" in hits.degraded[0].detail
        assert "Fridays" in mine.briefing().text
        problems = mine.unavailable_layers()
        assert list(problems) == ["shared"]
        assert "cannot be opened" in problems["shared"]
        assert "layer unmount" in problems["shared"]
        mine.unmount("shared")
        assert mine.unavailable_layers() == {}


def test_cli_warns_about_an_unavailable_layer(tmp_path: Path, clock: FakeClock) -> None:
    with _open(tmp_path / "team", clock, None) as team:
        team.remember("The staging cluster runs in eu-west-1")
    with _open(tmp_path / "mine", clock, None) as mine:
        mine.remember("Our staging deploys happen on Fridays")
        mine.mount(tmp_path / "team", kind="shared")
    (tmp_path / "team" / "salience.db").unlink()
    runner = CliRunner(env={"SALIENCE_EMBEDDER": "none"})
    home = ["--home", str(tmp_path / "mine")]
    for args in (["recall", "staging"], ["briefing"], ["stats"]):
        result = runner.invoke(cli, [*args, *home])
        assert result.exit_code == 0, result.output
        said = "degraded: " if args[0] == "recall" else ""
        assert f"warning: {said}layer 'shared' is unavailable" in result.stderr
    listed = runner.invoke(cli, ["layer", "list", *home])
    assert "shared  (shared, read-only, unavailable:" in listed.stdout


def test_get_falls_back_to_layers_and_reports_missing(projects: tuple[Memory, Memory]) -> None:
    api, billing = projects
    shared = billing.list()[0]
    assert api.get(shared.id).layer == "shared"
    with pytest.raises(NotFoundError):
        api.get("01ARZ3NDEKTSV4RRFFQ69G5FAV")


def test_a_read_only_store_refuses_writes_and_old_schemas(tmp_path: Path, clock: FakeClock) -> None:
    with _open(tmp_path / "team", clock, None) as team:
        team.remember("The staging cluster runs in eu-west-1")
        record = team.list()[0]
    path = tmp_path / "team" / "salience.db"
    store = SQLiteStore(path, read_only=True)
    try:
        assert store.read_only
        assert store.get(record.id) == record
        with pytest.raises(StoreReadOnlyError), granted("test"):
            store.replace(record)
    finally:
        store.close()
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM schema_migrations WHERE name = '0006_layers'")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="older salience"):
        SQLiteStore(path, read_only=True)
