"""Updates found at write time and what follows (engine/updating.py), on both stores."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from salience import Config, Memory
from salience.engine.updating import ACT_AT, CANDIDATES
from salience.errors import ConflictError, ForbiddenError, NotFoundError, StoreError
from salience.models import Status, channel
from salience.stores.base import MemoryFilter
from tests.both_stores import stored_bytes
from tests.conftest import FakeClock
from tests.embedder import WordHashEmbedder

OLD = "The staging API listens on port 8080."
NEW = "The staging API listens on port 9090 now."


@pytest.fixture
def memory(config: Config, clock: FakeClock) -> Iterator[Memory]:
    with Memory.open(config=config, clock=clock, embedder=WordHashEmbedder()) as opened:
        yield opened


def _pair(memory: Memory, clock: FakeClock) -> tuple[str, str]:
    old = memory.remember(OLD, source="user")
    clock.advance(days=3)
    new = memory.remember(NEW, source="user")
    assert old.id is not None
    assert new.id is not None
    return old.id, new.id


def test_a_changed_value_is_linked_and_explained(memory: Memory, clock: FakeClock) -> None:
    old_id, new_id = _pair(memory, clock)
    listed = memory.updates()
    assert [(x.new_id, x.old_id, x.state) for x in listed] == [(new_id, old_id, "open")]
    assert "8080 -> 9090" in listed[0].why
    assert "words of change: now" in listed[0].why
    assert listed[0].confidence >= ACT_AT
    assert memory.get(old_id).status(memory.now()) is Status.CURRENT  # (a link changes nothing)


def test_the_write_says_what_it_updates(memory: Memory, clock: FakeClock) -> None:
    old = memory.remember(OLD)
    clock.advance(days=1)
    new = memory.remember(NEW)
    assert [(x.old_id, x.state) for x in new.updates] == [(old.id, "open")]
    assert new.updates[0].confidence >= 0.6


def test_a_look_alike_is_not_linked(memory: Memory, clock: FakeClock) -> None:
    memory.remember("My sister works as a nurse at the city hospital.")
    clock.advance(days=1)
    assert memory.remember("My brother works as a teacher at the city school.").updates == ()
    memory.remember("I bought a mountain bike for the trails.")
    clock.advance(days=1)
    assert memory.remember("I also bought a gravel bike for the trails.").updates == ()
    assert memory.updates(state="all") == []


def test_a_document_is_neither_updated_nor_an_update(
    memory: Memory, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A memory of over 120 words holds many facts: it is never linked, either way, and its
    text is never read for it."""
    from salience.write import updates

    read: list[str] = []
    reading = updates.sentences
    monkeypatch.setattr(updates, "sentences", lambda text: read.append(text) or reading(text))
    guide = " ".join(f"Step {i} of the guide covers the settings of the device." for i in range(12))
    memory.remember(f"{OLD} {guide}")
    clock.advance(days=1)
    assert memory.remember(NEW).updates == ()  # (a fact after a document)
    memory.remember(OLD)
    clock.advance(days=1)
    assert memory.remember(f"{NEW} {guide}").updates == ()  # (a document after a fact)
    later = memory.remember("The staging API listens on port 7070 now.")  # (two facts: linked)
    assert later.updates != ()
    assert read  # (the facts were read)
    assert not [text for text in read if guide in text]


def test_documents_nearer_than_the_older_memory_take_none_of_its_places(
    memory: Memory, clock: FakeClock
) -> None:
    """The nearest memories that are documents are skipped, not counted: the twelve compared
    are the nearest that may be updated."""
    old = memory.remember(OLD)
    for n in range(CANDIDATES + 2):  # (each nearer to the new one than the older fact is)
        memory.remember(" ".join([NEW] * 16) + f" Copy {n}.")
    clock.advance(days=1)
    new = memory.remember(NEW)
    assert new.record is not None
    vector = WordHashEmbedder().embed([new.record.content])[0]
    nearer = memory.vectors.search(vector, MemoryFilter(as_of=memory.now()), CANDIDATES + 3)
    assert old.id not in [h.record.id for h in nearer[: CANDIDATES + 2]]  # (documents first)
    assert [x.old_id for x in new.updates] == [old.id]
    assert "8080 -> 9090" in new.updates[0].why


def test_without_an_embedder_the_look_goes_by_words_and_reads_no_document(
    config: Config, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from salience.write import updates

    read: list[str] = []
    reading = updates.sentences
    monkeypatch.setattr(updates, "sentences", lambda text: read.append(text) or reading(text))
    guide = " ".join(f"Step {i} of the guide covers the staging API port." for i in range(12))
    with Memory.open(config=config, clock=clock, embedder=None) as memory:
        old = memory.remember(OLD)
        memory.remember(f"{OLD} {guide}")  # (found by its words too, and never read)
        clock.advance(days=1)
        new = memory.remember(NEW)
    assert [x.old_id for x in new.updates] == [old.id]
    assert read  # (the fact was read)
    assert not [text for text in read if guide in text]


def test_a_memory_further_off_that_names_the_same_one_is_compared(
    memory: Memory, clock: FakeClock
) -> None:
    old = memory.remember("Our cat Luna has been with me for 6 months.")
    pets = "Rex Bella Max Coco Milo Daisy Oscar Ruby Toby Rosie Leo Nala Zeus Olive".split()
    for pet, number in zip(pets, range(14), strict=True):  # (nearer by words, naming others)
        memory.remember(f"{pet} the dog number {number} sleeps on the sofa after a long walk.")
    clock.advance(days=30)
    new = memory.remember("Our cat Luna is 9 months old now and sleeps on the sofa.")
    assert new.record is not None
    vector = WordHashEmbedder().embed([new.record.content])[0]
    nearer = memory.vectors.search(vector, MemoryFilter(as_of=memory.now()), CANDIDATES + 1)
    assert old.id not in [h.record.id for h in nearer[:CANDIDATES]]  # (not among the nearest)
    assert [x.old_id for x in new.updates] == [old.id]
    assert "6 -> 9" in new.updates[0].why


def test_the_briefing_gives_the_newest_and_says_an_older_exists(
    memory: Memory, clock: FakeClock
) -> None:
    _pair(memory, clock)
    briefing = memory.briefing("salience").text
    assert f"{NEW} (updates an older memory)" in briefing
    assert OLD not in briefing
    assert OLD in memory.briefing("talome").text  # (an original briefs as it documents)


def test_recall_ranks_the_newer_first(memory: Memory, clock: FakeClock) -> None:
    old_id, new_id = _pair(memory, clock)
    found = [h.record.id for h in memory.search("staging API port 8080", touch=False)]
    assert found.index(new_id) < found.index(old_id)
    assert [h.rank for h in memory.search("staging API port 8080", touch=False)] == [1, 2]


def test_a_pair_less_sure_is_listed_but_does_not_act(memory: Memory, clock: FakeClock) -> None:
    memory.remember("I keep my old sneakers under my bed.")
    clock.advance(days=1)
    new = memory.remember("I keep my old sneakers in the closet.")  # (no word of change)
    assert [x.why for x in new.updates] == ["same subject (sneakers); bed -> closet"]
    assert new.updates[0].confidence < ACT_AT
    briefing = memory.briefing("salience").text
    assert "under my bed" in briefing  # (both briefed: a person decides)
    assert "(updates an older memory)" not in briefing


def test_a_value_said_to_have_changed_acts_on_one_shared_word(
    memory: Memory, clock: FakeClock
) -> None:
    memory.remember("I keep my sneakers under the bed")
    clock.advance(days=1)
    new = memory.remember("I moved my sneakers to the shoe rack")
    assert [x.why for x in new.updates] == [
        "same subject (sneakers); bed -> shoe; words of change: moved"
    ]
    assert new.updates[0].confidence >= ACT_AT
    briefing = memory.briefing("salience").text
    assert "under the bed" not in briefing
    assert "shoe rack (updates an older memory)" in briefing


def test_a_confirmed_pair_is_a_supersession_with_staleness(
    memory: Memory, clock: FakeClock
) -> None:
    old_id, new_id = _pair(memory, clock)
    built = memory.remember("Staging answers on 8080.", derived_from=[old_id], type="insight")
    assert built.id is not None
    result = memory.confirm_update(new_id, old_id)
    assert (result.outcome.value, result.id) == ("updated", new_id)
    assert memory.get(old_id).status(memory.now()) is Status.SUPERSEDED
    assert memory.get(new_id).parent_id == old_id
    assert [r.id for r in memory.history(new_id)] == [new_id, old_id]
    assert built.id in [r.id for r in memory.stale()]
    assert [x.state for x in memory.updates(state="all")] == ["confirmed"]
    assert memory.updates() == []
    with pytest.raises(ConflictError, match="decided already"):
        memory.confirm_update(new_id, old_id)


def test_a_dismissed_pair_never_returns(memory: Memory, clock: FakeClock) -> None:
    old_id, new_id = _pair(memory, clock)
    dismissed = memory.dismiss_update(new_id, old_id)
    assert dismissed.state == "dismissed"
    again = replace(dismissed, state="open", decided_at=None)
    memory.store.save_update_links([again])  # (found once more: kept as decided)
    assert memory.updates() == []
    assert [x.state for x in memory.updates(state="all")] == ["dismissed"]
    assert memory.get(old_id).status(memory.now()) is Status.CURRENT
    briefing = memory.briefing("salience").text
    assert OLD in briefing
    assert "(updates an older memory)" not in briefing
    with pytest.raises(NotFoundError):
        memory.dismiss_update(old_id, new_id)


def test_an_agent_cannot_end_a_persons_memory_by_confirming(
    memory: Memory, clock: FakeClock
) -> None:
    old_id, new_id = _pair(memory, clock)
    with channel("agent"), pytest.raises(ForbiddenError):
        memory.confirm_update(new_id, old_id)
    assert memory.get(old_id).status(memory.now()) is Status.CURRENT
    assert [x.state for x in memory.updates()] == ["open"]


def test_the_supersede_policy_acts_on_sure_pairs_the_writer_may_change(
    config: Config, clock: FakeClock
) -> None:
    settings = replace(config, updates="supersede")
    with Memory.open(config=settings, clock=clock, embedder=WordHashEmbedder()) as memory:
        mine = memory.remember(OLD, source="user")
        clock.advance(days=1)
        with channel("agent"):  # an agent's write does not end the user's memory
            theirs = memory.remember(NEW)
        assert [x.state for x in theirs.updates] == ["open"]
        assert memory.get(mine.id or "").status(memory.now()) is Status.CURRENT
        clock.advance(days=1)
        again = memory.remember("The staging API listens on port 7070 now.", source="user")
        assert {(x.old_id, x.state) for x in again.updates} >= {(mine.id, "confirmed")}
        assert memory.get(mine.id or "").status(memory.now()) is Status.SUPERSEDED
        assert memory.get(again.id or "").parent_id == mine.id
        assert again.record is not None
        assert again.record.parent_id == mine.id


def test_a_memory_that_states_nothing_looks_for_nothing(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A question as a whole states nothing another memory could have said: its write
    searches for no candidate (a memory that states something does)."""
    searched: list[str] = []
    nearby = memory.vectors.nearby_texts
    monkeypatch.setattr(
        memory.vectors, "nearby_texts", lambda *a, **k: searched.append("") or nearby(*a, **k)
    )
    memory.remember(OLD)
    assert memory.remember("Which port does the staging API listen on?").updates == ()
    assert searched == []
    assert memory.remember(NEW).updates != ()
    assert searched == [""]


def test_off_looks_for_nothing(config: Config, clock: FakeClock) -> None:
    settings = replace(config, updates="off")
    with Memory.open(config=settings, clock=clock, embedder=WordHashEmbedder()) as memory:
        memory.remember(OLD)
        assert memory.remember(NEW).updates == ()


def test_a_purge_takes_its_links_with_it(memory: Memory, clock: FakeClock) -> None:
    old_id, _ = _pair(memory, clock)
    memory.purge(old_id)
    assert memory.updates(state="all") == []


def test_a_purge_leaves_no_word_of_the_link_behind(memory: Memory, clock: FakeClock) -> None:
    memory.remember("I keep my kayak at the Quillmoor dock.")
    clock.advance(days=1)
    new = memory.remember("I moved my kayak to the Brambleton dock.")
    assert "quillmoor -> brambleton" in new.updates[0].why  # (the link quotes both)
    memory.purge(new.id or "")
    assert memory.updates(state="all") == []
    assert b"rambleton" not in stored_bytes(memory).lower()


def test_a_purge_leaves_no_word_of_a_sure_link_in_the_engine(
    memory: Memory, clock: FakeClock
) -> None:
    """The salience profile's briefing keeps each user's sure links between recalls, and
    their why quotes both memories: a purge empties that too (a defect: the words stayed in
    the engine until the user's next briefing)."""
    _, new_id = _pair(memory, clock)
    memory.briefing("salience")
    assert "9090" in repr(dict(memory._sure_seen))
    memory.purge(new_id)
    assert "9090" not in repr(dict(memory._sure_seen))


def test_an_unknown_state_is_refused(memory: Memory) -> None:
    with pytest.raises(Exception, match="unknown state 'later'"):
        memory.updates(state="later")


def test_writes_in_one_transaction_look_at_each_other(memory: Memory, clock: FakeClock) -> None:
    """Inside a transaction of the caller's, a write's look sees the memories written before
    it in that transaction, not yet committed (a look on another connection would not)."""
    with memory.store.transaction():
        old = memory.remember(OLD)
        clock.advance(days=1)
        new = memory.remember(NEW)
    assert [(x.old_id, x.state) for x in new.updates] == [(old.id, "open")]
    assert [(x.new_id, x.old_id) for x in memory.updates()] == [(new.id, old.id)]


def test_a_look_that_fails_fails_its_write_and_stores_nothing(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory.remember(OLD)
    before = len(memory.list(limit=None))

    def broken(*args: object) -> None:
        raise StoreError("the vectors could not be read")

    monkeypatch.setattr(memory, "_updates_found", broken)
    with pytest.raises(StoreError, match="could not be read"):
        memory.remember(NEW)
    assert len(memory.list(limit=None)) == before
    assert memory.updates() == []


def test_a_duplicate_keeps_nothing_its_look_found(memory: Memory, clock: FakeClock) -> None:
    """A write found to be a duplicate (the same text as a current memory) stores nothing:
    not the links its look found either."""
    old_id, new_id = _pair(memory, clock)
    clock.advance(days=1)
    again = memory.remember(NEW, source="user")
    assert again.outcome.value == "duplicate"
    assert again.updates == ()
    assert [(x.new_id, x.old_id) for x in memory.updates(state="all")] == [(new_id, old_id)]


def test_a_write_reads_the_stores_marker_once_before_its_lock(
    memory: Memory, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The embedder's check and the look for updates share one look at the store (nothing
    is committed between them): a write reads SQLite's change marker twice, once before its
    lock and once inside it, where it read it four times."""
    store = memory.store
    if not hasattr(store, "data_version"):
        pytest.skip("SQLite's change marker")
    memory.remember(OLD)
    clock.advance(days=1)
    reads: list[int] = []
    version = store.data_version
    monkeypatch.setattr(store, "data_version", lambda: reads.append(1) or version())
    assert memory.remember(NEW).updates != ()  # (it looked, and found the older one)
    assert len(reads) == 2
