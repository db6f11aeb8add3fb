"""What a text states, and who states it, sentence by sentence: the part of update detection
(:mod:`salience.write.updates`) that reads a chat turn's shape, not its words' meaning.

A line that opens with a label (*Melanie: ...*) is said by the one it names. A question
states nothing of itself, but its clauses that ask nothing may state something of the
speaker (*"Can you set reminders for my gym sessions, which I usually go to at 7 pm?"*), and
a question that reminds states what it recalls (*"... remember when I got pre-approved for
$400,000?"*). What a line says in square brackets (*[shares a photo: a turtle on a log]*, an
attachment or a stage direction) is no statement of the speaker's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from salience.text import label

SENTENCE_AS_WRITTEN = (
    r"(?<=[.!?])(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bMrs\.)(?<!\bSt\.)(?<!\bProf\.)"
    r"(?<!\bvs\.)\s+|\n+"
)
"""A sentence ends at ".", "!" or "?", not after a title ("Dr. Smith", "Mrs. Lee")."""
_SENTENCE = re.compile(
    r"\s(?:(?<=[.!?]\s)(?<!\bDr\.\s)(?<!\bMr\.\s)(?<!\bMs\.\s)(?<!\bMrs\.\s)(?<!\bSt\.\s)"
    r"(?<!\bProf\.\s)(?<!\bvs\.\s)\s*|(?<=\n)\n*)"
)
""":data:`SENTENCE_AS_WRITTEN` read from its first character (whitespace, which the pattern
opens with, so that SRE searches for it in C rather than trying the lookbehinds at every
character): the same cuts, from the same places, in less than half the time."""
_ENDS = re.compile(r"[.!?]\s")
"""Where a sentence may end inside a line (most lines hold one sentence: not split)."""
_BRACKETED = re.compile(r"\[[^\[\]\n]*\]")
"""An aside in square brackets: what a chat export says of an attachment, not the speaker."""
_CLAUSE = re.compile(r",\s+")
ORDERS = (
    r"(?:draft|remind|book|translate|summari[sz]e|recommend|suggest|compose|generate|"
    r"proofread|rewrite|brainstorm|(?:give|tell|show|find|help|send)\s+me)\b"
)
"""The first words of an order to do a task once ("Draft an email to Maria", "Remind me to
call the vet at 4 pm"): like a question, it states nothing but its clauses that say something
of the speaker. A standing instruction ("Use pnpm", "Always run the tests") is no such order."""
_ASKING = re.compile(
    r"\s*(?:(?:and|but|so|also|or|well|then)\s+)*(?:what|how|why|any|anything\b|"
    r"(?:can|could|would|will|do|does|did|is|are|was|were|should|shall|may|might|have|has)"
    r"\s+(?:you|i|it|there|we|they|he|she|this|that|these|those|anyone|someone|my|your)\b|"
    r"(?:please\s+)?" + ORDERS + r")",
    re.IGNORECASE,
)
"""A clause that asks (by its first words), or orders a task done once."""
_ORDER = re.compile(r"\s*(?:please\s+)?" + ORDERS, re.IGNORECASE)
_RELATIVE = re.compile(r"\s*(?:which|who|where|when|that)\b", re.IGNORECASE)
RELATIVE_WORDS = 3
"""A stated clause that opens with "which" speaks of the asking clause's last words ("my gym
sessions, which I usually go to at 7 pm"): this many are read with it."""
_CONNECTIVES = frozenset("also and but so well oh plus then anyway besides".split())
"""A clause of one of these words only ("Also, what time ...") joins, and says nothing."""
_RECALLED = re.compile(r"\bremember (?:when|how|that)\s+(.+)$", re.IGNORECASE)
"""A question that reminds: what follows "remember when" is stated, if it is the speaker's."""
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|my|me|we|our)\b", re.IGNORECASE)


def statements(text: str) -> Iterator[tuple[str, str]]:
    """Each sentence ``text`` states, of two words or more, with its speaker (the label its
    line opens with, lower-cased, or "")."""
    for line in text.splitlines():
        speaker, start = label(line)  # ("Melanie: Wow, ...": who says it, where it starts)
        body = _BRACKETED.sub(" ", line[start:])
        for part in _SENTENCE.split(body) if _ENDS.search(body) else (body,):
            said = stated(part) if part.rstrip().endswith("?") or _ORDER.match(part) else part
            if len(said.split()) >= 2:
                yield speaker, said


def stated(question: str) -> str:
    """What a question (or an order: :data:`ORDERS`) states of the speaker: its clauses that
    ask nothing, when one clause asks and another says "I" or "my" ("Can you set reminders
    for my gym sessions, which I usually go to at 7 pm?" states "my gym sessions which I
    usually go to at 7 pm": a clause opening with "which" is read with the asking clause's
    last words). A question as a whole states nothing ("" then), unless it reminds: "...,
    remember when I got pre-approved for $400,000?" states "I got pre-approved for
    $400,000"."""
    recalled = _RECALLED.search(question.rstrip().rstrip("?"))
    if recalled and _FIRST_PERSON.search(recalled.group(1)):
        return recalled.group(1)
    clauses = [
        c for c in _CLAUSE.split(question.rstrip().rstrip("?")) if c.lower() not in _CONNECTIVES
    ]
    kept = []
    for before, clause in zip(["", *clauses], clauses, strict=False):
        if _ASKING.match(clause):
            continue
        if _RELATIVE.match(clause) and before and _ASKING.match(before):
            clause = " ".join([*before.split()[-RELATIVE_WORDS:], clause])  # (its noun)
        kept.append(clause)
    if len(kept) == len(clauses) or not any(_FIRST_PERSON.search(c) for c in kept):
        return ""
    return ", ".join(kept)
