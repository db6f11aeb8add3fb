"""Knowledge packs: export -> import round trips, filters, vectors, refusals, mounting."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from salience import Config, Memory
from salience.cli import cli
from salience.errors import ImportFormatError, LayerError, PackError, ReadOnlyLayerError
from salience.search.vectors import IDENTITY_KEY
from salience.sharing.packs import MANIFEST, RECORDS, VECTORS, pack_name, read_pack
from tests.conftest import FakeClock
from tests.embedder import WordHashEmbedder

TEXTS = [
    ("Deploys go through the blue-green pipeline on Fridays", "procedure", "ops"),
    ("The payments service talks to Stripe through a queue", "insight", "payments"),
    ("Use ruff for linting in every Python repository", "heuristic", "ops"),
]

KEY = b"a key the team shares"


def _open(home: Path, clock: FakeClock, embedder: WordHashEmbedder | None) -> Memory:
    return Memory.open(config=Config(home=home, signal_gate=False), clock=clock, embedder=embedder)


@pytest.fixture
def source(tmp_path: Path, clock: FakeClock) -> Iterator[Memory]:
    with _open(tmp_path / "source", clock, WordHashEmbedder()) as memory:
        for text, kind, project in TEXTS:
            memory.remember(text, type=kind, project=project, tags=[f"project:{project}"])
            clock.advance(minutes=1)
        old = memory.remember("The cache TTL is five minutes for product pages", type="insight")
        memory.supersede(str(old.id), "The cache TTL is ten minutes for product pages")
        gone = memory.remember("A memory that was forgotten on purpose", type="insight")
        memory.forget(str(gone.id), "wrong")
        yield memory


def _vectors(memory: Memory) -> dict[str, bytes]:
    ids = [r.id for r in memory.list(include_superseded=True, include_forgotten=True)]
    return {i: v.tobytes() for i, v in memory.vectors.stored(ids).items()}


def test_round_trip_keeps_ids_records_and_vectors(
    source: Memory, tmp_path: Path, clock: FakeClock
) -> None:
    manifest = source.export_pack(tmp_path / "team.pack", key=KEY)
    current = sorted(source.list(), key=lambda r: r.id)
    assert manifest.records == len(current) == 4
    assert manifest.embedder == WordHashEmbedder().identity
    assert manifest.dimensions == 256
    target_embedder = WordHashEmbedder()
    with _open(tmp_path / "target", clock, target_embedder) as target:
        done = target.import_pack(tmp_path / "team.pack", key=KEY)  # (signed: sources kept)
        assert (done.result.created, done.vectors, done.mount) == (4, "kept", None)
        assert target_embedder.calls == []  # nothing re-embedded
        assert sorted(target.list(), key=lambda r: r.id) == current
        mine = _vectors(target)
        theirs = _vectors(source)
        assert mine == {r.id: theirs[r.id] for r in current}
        assert target.store.get_meta(IDENTITY_KEY) == WordHashEmbedder().identity
        again = target.import_pack(tmp_path / "team.pack")
        assert (again.result.created, again.result.unchanged) == (0, 4)


def test_an_unsigned_pack_stands_as_a_pack(
    source: Memory, tmp_path: Path, clock: FakeClock
) -> None:
    source.remember("Pin this: always deploy on Fridays.", source="user", priority=100)
    source.export_pack(tmp_path / "team.pack")
    with _open(tmp_path / "target", clock, WordHashEmbedder()) as target:
        target.import_pack(tmp_path / "team.pack")
        records = target.list()
        assert {r.source for r in records} == {"pack"}
        assert {r.priority for r in records} == {0.0}
        assert "## Pinned" not in target.briefing(profile="salience").text


def test_another_embedder_re_embeds(source: Memory, tmp_path: Path, clock: FakeClock) -> None:
    source.export_pack(tmp_path / "team.pack")
    other = WordHashEmbedder(dimensions=64, tag="other")
    with _open(tmp_path / "target", clock, other) as target:
        done = target.import_pack(tmp_path / "team.pack")
        assert done.vectors == "embedded"
        assert target.store.get_meta(IDENTITY_KEY) == other.identity
        for record in target.list():
            stored = target.vectors.stored([record.id])[record.id]
            assert np.allclose(stored, other.embed([record.content])[0])


def test_no_embedder_imports_records_without_vectors(
    source: Memory, tmp_path: Path, clock: FakeClock
) -> None:
    source.export_pack(tmp_path / "team.pack")
    with _open(tmp_path / "target", clock, None) as target:
        done = target.import_pack(tmp_path / "team.pack")
        assert done.vectors == "none"
        assert done.result.created == 4
        assert target.store.get_meta(IDENTITY_KEY) is None


def test_filters_choose_what_is_exported(source: Memory, tmp_path: Path) -> None:
    by_tag = source.export_pack(tmp_path / "a.pack", tags=["project:ops"])
    assert by_tag.records == 2
    assert by_tag.filters == {"tags": ["project:ops"]}
    by_type = source.export_pack(tmp_path / "b.pack", type="insight")
    assert by_type.by_type == {"insight": 2}
    by_project = source.export_pack(tmp_path / "c.pack", project="payments")
    assert by_project.records == 1
    lines = read_pack(tmp_path / "c.pack").lines
    assert json.loads(lines[0])["content"] == TEXTS[1][0]
    empty = source.export_pack(tmp_path / "d.pack", project="nothing")
    assert (empty.records, empty.embedder) == (0, None)


def test_the_same_memories_at_the_same_time_give_the_same_bytes(
    source: Memory, tmp_path: Path
) -> None:
    source.export_pack(tmp_path / "one.pack")
    source.export_pack(tmp_path / "two.pack")
    assert (tmp_path / "one.pack").read_bytes() == (tmp_path / "two.pack").read_bytes()


def test_a_pack_written_a_page_at_a_time_is_the_same_pack(
    source: Memory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Records read and vectors looked up (or embedded) a page at a time, in pages of 2: the
    bytes are those of one page. A memory without a vector in a later page is embedded."""
    from salience.engine import sharing
    from salience.stores.sqlite import memories

    for i in range(5):
        source.remember(f"another memory about pipelines, number {i}", type="insight")
    missing = source.remember("a memory whose vector is gone").id or ""
    source.export_pack(tmp_path / "whole.pack")
    with source.store.transaction():
        source.store._conn.execute(  # type: ignore[attr-defined]
            "DELETE FROM memory_vectors WHERE memory_id = ?", (missing,)
        )
    assert missing not in source.vectors.stored([missing])
    monkeypatch.setattr(sharing, "PAGE", 2)
    monkeypatch.setattr(memories, "PAGE", 2)
    source.export_pack(tmp_path / "paged.pack")
    assert (tmp_path / "paged.pack").read_bytes() == (tmp_path / "whole.pack").read_bytes()
    pack = read_pack(tmp_path / "paged.pack")
    assert pack.manifest.records == len(pack.lines) > 6
    assert pack.vectors is not None
    assert len(pack.vectors) == pack.manifest.records
    assert missing in (json.loads(line)["id"] for line in pack.lines)


def test_a_pack_without_one_vector_and_no_model_to_make_it_has_none(
    source: Memory, tmp_path: Path, clock: FakeClock
) -> None:
    late = source.remember("written last, its vector lost").id or ""
    source.store._conn.execute(  # type: ignore[attr-defined]
        "DELETE FROM memory_vectors WHERE memory_id = ?", (late,)
    )
    home = Path(source.store.location).parent
    source.close()
    with _open(home, clock, None) as reader:
        manifest = reader.export_pack(tmp_path / "p.pack")
    assert manifest.embedder is None
    assert read_pack(tmp_path / "p.pack").vectors is None


def _rewrite(path: Path, change: dict[str, bytes]) -> None:
    """Replace members of a pack, leaving the manifest's checksums as they were."""
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    members.update(change)
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def _manifest(path: Path) -> dict:  # type: ignore[type-arg]
    with zipfile.ZipFile(path) as archive:
        return json.loads(archive.read(MANIFEST))  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("tamper", "message"),
    [
        (lambda p: _rewrite(p, {RECORDS: b'{"content": "altered"}\n'}), "checksum of records"),
        (lambda p: _rewrite(p, {VECTORS: b"\0" * 16}), "checksum of vectors"),
        (
            lambda p: _rewrite(p, {MANIFEST: json.dumps({**_manifest(p), "version": 2}).encode()}),
            "pack version 2 is not supported",
        ),
        (
            lambda p: _rewrite(
                p, {MANIFEST: json.dumps({**_manifest(p), "format": "other"}).encode()}
            ),
            "is not a salience pack",
        ),
        (lambda p: p.write_bytes(b"not a zip at all"), "is not a salience pack"),
        (lambda p: p.unlink(), "no pack at"),
        (
            lambda p: _rewrite(
                p,
                {
                    MANIFEST: json.dumps(
                        {**_manifest(p), "counts": {"records": 9, "by_type": {}}}
                    ).encode()
                },
            ),
            "counts 9 records",
        ),
    ],
)
def test_a_bad_pack_is_refused_and_changes_nothing(
    source: Memory,
    tmp_path: Path,
    clock: FakeClock,
    tamper,
    message: str,  # type: ignore[no-untyped-def]
) -> None:
    path = tmp_path / "team.pack"
    source.export_pack(path)
    tamper(path)
    with _open(tmp_path / "target", clock, WordHashEmbedder()) as target:
        with pytest.raises(PackError, match=message):
            target.import_pack(path)
        with pytest.raises(PackError, match=message):
            target.import_pack(path, mount_as="base")
        assert target.list() == []
        assert target.layers() == []
    assert not (tmp_path / "target" / "layers" / "team.db").exists()


def test_a_secret_in_a_pack_refuses_the_whole_import(
    source: Memory, tmp_path: Path, clock: FakeClock
) -> None:
    path = tmp_path / "team.pack"
    from salience.sharing.packwrite import write_pack

    line = json.dumps({"content": "My key is AKIAIOSFODNN7EXAMPLE", "type": "insight"})
    source.export_pack(tmp_path / "ok.pack")
    good = read_pack(tmp_path / "ok.pack").lines
    write_pack(path, [*good, line], ["x"] * 5, vectors=None, embedder=None, filters={}, now=clock())
    with _open(tmp_path / "target", clock, None) as target:
        with pytest.raises(ImportFormatError, match="line 5"):
            target.import_pack(path)
        assert target.list() == []


def test_mount_as_base_searches_the_pack_read_only(
    source: Memory, tmp_path: Path, clock: FakeClock
) -> None:
    source.export_pack(tmp_path / "Team Knowledge.v1.pack")
    with _open(tmp_path / "target", clock, WordHashEmbedder()) as target:
        target.remember("Deploys of the api need a feature flag", type="procedure")
        done = target.import_pack(tmp_path / "Team Knowledge.v1.pack", mount_as="base")
        assert done.mount is not None
        assert done.mount.name == "Team-Knowledge"
        assert done.mount.path == str(tmp_path / "target" / "layers" / "Team-Knowledge.db")
        assert done.vectors == "kept"
        hits = target.search("deploys pipeline", touch=False)
        assert {h.record.layer for h in hits} == {"local", "Team-Knowledge"}
        assert len(target.list()) == 1
        layer_id = next(h.record.id for h in hits if h.record.layer != "local")
        with pytest.raises(ReadOnlyLayerError):
            target.forget(layer_id, "no")
        with pytest.raises(LayerError, match="already mounted"):
            target.import_pack(tmp_path / "Team Knowledge.v1.pack", mount_as="base")


def test_pack_name_comes_from_the_file_name() -> None:
    assert pack_name("/x/team-notes.pack") == "team-notes"
    assert pack_name("über wiki.zip") == "ber-wiki"
    assert pack_name("....") == "pack"


def test_cli_export_and_import(tmp_path: Path) -> None:
    runner = CliRunner(env={"SALIENCE_SIGNAL_GATE": "0", "SALIENCE_EMBEDDER": "none"})

    def run(home: str, *args: str):  # type: ignore[no-untyped-def]
        return runner.invoke(cli, [*args, "--home", str(tmp_path / home)])

    run("a", "remember", "Deploys go through the blue-green pipeline", "--tag", "ops")
    run("a", "remember", "The payments service talks to Stripe", "--tag", "payments")
    exported = run("a", "pack", "export", str(tmp_path / "ops.pack"), "--tag", "ops")
    assert exported.exit_code == 0
    assert exported.stdout.strip() == f"exported 1 memories (no vectors) to {tmp_path / 'ops.pack'}"
    imported = run("b", "pack", "import", str(tmp_path / "ops.pack"), "--json")
    assert json.loads(imported.stdout)["created"] == 1
    mounted = run("c", "pack", "import", str(tmp_path / "ops.pack"), "--mount-as", "base")
    assert "as base layer 'ops'" in mounted.stdout
    (tmp_path / "bad.pack").write_text("nonsense")
    bad = run("b", "pack", "import", str(tmp_path / "bad.pack"))
    assert bad.exit_code == 1
    assert bad.stderr.startswith("error: ")
    assert "Traceback" not in bad.output
