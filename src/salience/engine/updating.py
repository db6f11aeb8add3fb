"""Updates: a new memory that changes what an older one says, found as it is written
(:mod:`salience.write.updates`), and what follows by the ``updates`` policy.

- ``link`` (the default) keeps the pair, open, for a person to confirm (a supersession: the
  older ends, the newer follows it, what was built on the older goes stale) or dismiss (it
  never comes back). Meanwhile a sure pair (:data:`ACT_AT`) acts: the
  salience profile's recall ranks the newer above the older, and its briefing gives the
  newer only (saying an older version exists).
- ``supersede`` confirms at once the sure pairs, when the writer may change the older memory
  (an agent never ends a person's memory this way: the pair stays open for the person).
- ``off`` looks for nothing.

The other profiles keep their documented behaviour: only the salience profile acts on links.
"""

from __future__ import annotations

import builtins
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from salience.engine.record import Recording
from salience.errors import ConflictError, NotFoundError
from salience.models import MemoryRecord, Outcome, UserScope
from salience.models.spaces import WRITE
from salience.stores.base import MemoryFilter
from salience.stores.reads import OneLook

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

    from salience.briefing.policies import Candidates
    from salience.embeddings.arrays import Vector
    from salience.models import Hit, UpdateLink, WriteResult

CANDIDATES = 12
"""How many of the user's current memories nearest a new one are compared with it, documents
aside (:func:`~salience.write.updates.is_document`: never updated, they take no candidate's
place; on LongMemEval's dev conversations 45 % of the turns are)."""
NEAREST = 0.3
"""The cosine similarity below which a memory is not a candidate."""
NAMED = 2
"""And how many more, of the next :data:`NAMED_FROM` nearest (down to :data:`NAMED_NEAREST`),
that name someone or something the new one names ("Luna", "National Geographic"): a fact
about a name may be said in words far apart."""
NAMED_FROM = 6
NAMED_NEAREST = 0.25
PENDING = 64
"""How many vectors written since the rows in memory were brought up to date a write's look
scores beside them, rather than appending them first (a recall, or the look past this many,
appends them all at once): appending one took a write 0.3-0.4 ms at 100,000 memories."""
LINK_AT = 0.6
"""The confidence below which a found update is not kept."""
ACT_AT = 0.9
"""The confidence at and above which a found update acts before a person decides: the
salience profile's recall and briefing give the newer first, and the ``supersede`` policy
replaces the older memory (below it, down to :data:`LINK_AT`, a pair is listed for a
person only: measured false links on chat, docs/scoring.md)."""
STATES = ("open", "confirmed", "dismissed")
ACTS_ON_LINKS = "salience"
"""The profile whose recall and briefing act on open links (the originals keep theirs)."""
MARK = " (updates an older memory)"
"""What the newer memory of an open pair says in the salience profile's briefing."""


class Updating(Recording):
    """Finding updates as memories are written, and the verbs that list and decide them."""

    def _embedded_and_looked(
        self, record: MemoryRecord, held: bool, now: datetime
    ) -> tuple[Vector | None, list[UpdateLink]]:
        """A new memory's vector and the older memories it updates (none if held), with
        one look at the store's change marker: nothing is committed between them."""
        with OneLook():
            vector = self._embed_one(record.content)
            return vector, [] if held else self._updates_found(record, vector, now)

    def _updates_found(
        self, record: MemoryRecord, vector: Vector | None, now: datetime
    ) -> builtins.list[UpdateLink]:
        """The current memories of the same user and type that ``record`` (not yet stored)
        changes: the nearest by meaning (by words, with no embedder)."""
        from salience.models.results import UpdateLink

        if self._config.updates == "off":
            return []
        from salience.write.updates import compare, is_document, names, sentences, stating

        if is_document(record.content):
            return []  # (a document never updates: nothing to look for)
        read = sentences(record.content)
        if not stating(read):
            return []  # (a question, say: it states nothing another memory could have said)
        flt = MemoryFilter(as_of=now, user=record.user, type=record.type)
        if vector is not None:
            with self.vectors.held(PENDING):  # (one look at the store: count, search)
                if not self.vectors.count():
                    return []  # (the first memory: nothing to change)
                named = names(read)  # (none: the nearest only, as cheap as before)
                found = self.vectors.nearby_texts(
                    vector,
                    flt,
                    CANDIDATES + NAMED_FROM if named else CANDIDATES,
                    NAMED_NEAREST if named else NEAREST,
                    skip=is_document,  # (never updated: no document takes a candidate's place)
                )
            candidates = [(i, text) for text, i, x in found[:CANDIDATES] if x >= NEAREST]
            rest = found[len(candidates) :] if named else []
            candidates += [(i, text) for text, i, _ in rest if named.said(text)][:NAMED]
        else:
            found_text = self._store.search(record.content[:500], flt, CANDIDATES)
            candidates = [(r.id, r.content) for r, _ in found_text if not is_document(r.content)]
        links = []
        for old_id, text in candidates:  # (no document: none is updated, none is read)
            update = compare(read, sentences(text), old_id)
            if update is not None and update.confidence >= LINK_AT:
                links.append(
                    UpdateLink(
                        record.id, old_id, record.user, update.confidence, update.why, "open", now
                    )
                )
        return links

    def _worker(self) -> ThreadPoolExecutor:
        """The threads that work beside a verb's own: a recall's full-text search beside its
        vector scan. (A write no longer reads ahead for its look while it embeds: on two cores
        that cost the write more than it saved, 0.2-0.7 ms at 100,000 memories, paired;
        docs/scoring.md.)"""
        with self._state_lock:
            if self._pool is None:  # (several: verbs in several threads run side by side)
                from concurrent.futures import ThreadPoolExecutor

                self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="salience")
            return self._pool

    def _keep_updates(
        self, record: MemoryRecord, links: builtins.list[UpdateLink], now: datetime
    ) -> tuple[UpdateLink, ...]:
        """Inside the write's transaction, after ``record`` is stored: keep the links whose
        older memory is still current (they were found before the lock), and under the
        ``supersede`` policy confirm the sure ones the writer may act on."""
        if not links:
            return ()
        kept = []
        current = {r.id for r in self._store.get_many([x.old_id for x in links], _now(now))}
        for link in links:
            if link.old_id not in current:
                continue  # (changed or gone since it was found)
            if self._config.updates == "supersede" and link.confidence >= ACT_AT:
                from salience.write.authority import may

                old = self._store.get(link.old_id)
                if old is not None and may("update", old):
                    self._succeed(old, record, now)
                    link = replace(link, state="confirmed", decided_at=now)
            kept.append(link)
        self._store.save_update_links(kept)
        return tuple(kept)

    def updates(self, *, user: UserScope = None, state: str = "open") -> builtins.list[UpdateLink]:
        """The user's update links in ``state`` (open, confirmed, dismissed, or all), and
        those of every space the user may write to, newest first."""
        if state not in (*STATES, "all"):
            raise _bad_state(state)
        states = STATES if state == "all" else (state,)
        scope = self._scope(user)
        found = self._store.update_links(scope, states)
        spaces = self._reaching(scope, WRITE)
        for owner in spaces:
            found += self._store.update_links(owner, states)
        if spaces:
            found.sort(key=lambda x: (x.found_at, x.new_id, x.old_id), reverse=True)
        return found

    def confirm_update(self, new_id: str, old_id: str, *, user: UserScope = None) -> WriteResult:
        """Confirm an open link: the older memory is superseded by the newer (it ends, the
        newer names it as its parent, what was built on it goes stale)."""
        from salience.models.results import WriteResult
        from salience.write.authority import require

        scope = self._scope(user)
        with self._store.transaction():
            self._open_link(new_id, old_id, scope)
            old = self._current(old_id, "supersede", scope)
            require("update", old)  # (ending it: the writer's standing, as in place)
            new = self._current(new_id, "supersede", scope)
            now = self.now()
            followed = self._succeed(old, new, now)
            self._store.decide_update_link(new_id, old_id, "confirmed", now)
        self._link(old.id, old.user, "superseded")
        reason = f"supersedes {old.id} (a confirmed update)"
        return WriteResult(Outcome.UPDATED, new.id, reason=reason, record=followed)

    def dismiss_update(self, new_id: str, old_id: str, *, user: UserScope = None) -> UpdateLink:
        """Dismiss an open link: both memories stay as they are, and the pair is never
        found again."""
        scope = self._scope(user)
        with self._store.transaction():
            link = self._open_link(new_id, old_id, scope)
            now = self.now()
            self._store.decide_update_link(new_id, old_id, "dismissed", now)
            self._audit("dismiss-update", new_id, "caller", link.user, older=old_id)
        return replace(link, state="dismissed", decided_at=now)

    def _succeed(self, old: MemoryRecord, new: MemoryRecord, now: datetime) -> MemoryRecord:
        """``new`` takes ``old``'s place: the supersession of a confirmed update."""
        from salience.write.authority import decide

        ended = decide("supersede", old, replace(old, valid_until=now))
        follows = decide("succeed", new, replace(new, parent_id=old.id, updated_at=now))
        self._authority.write(ended, follows)
        self._audit("supersede", old.id, "caller", old.user, by=new.id, update=True)
        self._stale_after(old, "superseded")
        return follows.after or new

    def _open_link(self, new_id: str, old_id: str, scope: str | None) -> UpdateLink:
        if scope is not None:  # (the link is its memories' owner's: a space's, perhaps)
            scope = self._local(new_id, "supersede", scope).user
        for link in self._store.update_links(scope, ("open",), (new_id,)):
            if (link.new_id, link.old_id) == (new_id, old_id):
                return link
        decided = self._store.update_links(scope, ("confirmed", "dismissed"), (new_id,))
        if any((x.new_id, x.old_id) == (new_id, old_id) for x in decided):
            raise ConflictError(f"the update {new_id} -> {old_id} was decided already")
        raise NotFoundError(f"{new_id} -> {old_id}")

    def _briefed(
        self, candidates: Candidates, profile: str, user: str, spaces: tuple[str, ...] = ()
    ) -> Candidates:
        """The salience profile's briefing candidates: the newer of each open pair only."""
        if profile != ACTS_ON_LINKS or self._config.updates == "off":
            return candidates
        links = [x for owner in (user, *spaces) for x in self._sure_links(owner)]
        return without_older(candidates, links) if links else candidates

    def _sure_links(self, user: str | None) -> builtins.list[UpdateLink]:
        """The user's open links sure enough to act, read again only after the store
        changed (a recall pays a marker's read, not a query)."""
        marker = self._store.change_marker()
        seen = self._sure_seen.get(user)
        if seen is not None and seen[0] == marker:
            return seen[1]
        links = [x for x in self._store.update_links(user, ("open",)) if x.confidence >= ACT_AT]
        return self._sure_seen.keep(user, (marker, links))[1]

    def _newest_first(
        self,
        hits: builtins.list[Hit],
        profile: str,
        user: str | None,
        spaces: tuple[str, ...] = (),
    ) -> builtins.list[Hit]:
        """The salience profile's recall: of an open pair found together, the newer first
        (the older right after it); the other profiles' order is theirs."""
        if profile != ACTS_ON_LINKS or len(hits) < 2 or self._config.updates == "off":
            return hits
        ids = {h.record.id for h in hits}
        older = {
            x.old_id: x.new_id
            for owner in (user, *spaces)
            for x in self._sure_links(owner)
            if x.old_id in ids and x.new_id in ids
        }
        if not older:
            return hits
        by_id = {h.record.id: h for h in hits}
        placed: builtins.list[Hit] = []

        def place(hit: Hit) -> None:
            if any(p.record.id == hit.record.id for p in placed):
                return
            placed.append(hit)
            for old, new in older.items():
                if new == hit.record.id:
                    place(by_id[old])

        for hit in hits:
            if hit.record.id not in older:  # (an older one comes right after its newer)
                place(hit)
        for hit in hits:
            place(hit)  # (a cycle's members, should one ever be found)
        return [replace(h, rank=i) for i, h in enumerate(placed, 1)]


def without_older(candidates: Candidates, links: builtins.list[UpdateLink]) -> Candidates:
    """A briefing's candidates without the older memory of each open pair; the newer one's
    line says an older version exists (:data:`MARK`)."""
    import numpy as np

    from salience.briefing.policies import Candidates

    older = {x.old_id for x in links}
    newer = {x.new_id for x in links}
    ids = candidates.columns.ids.tolist()
    keep = np.array([i for i, m in enumerate(ids) if m not in older], dtype=np.intp)
    if len(keep) == len(ids):
        return candidates

    def fetch(rows: builtins.list[int]) -> builtins.list[MemoryRecord]:
        records = candidates.records([int(keep[r]) for r in rows])
        return [replace(r, content=r.content + MARK) if r.id in newer else r for r in records]

    return Candidates(candidates.columns.take(keep), fetch)


def _now(now: datetime) -> MemoryFilter:
    return MemoryFilter(as_of=now)


def _bad_state(state: str) -> Exception:
    from salience.errors import InvalidInputError

    return InvalidInputError(
        f"unknown state {state!r}; known: {', '.join(STATES)}, all", field="state"
    )
