"""The write authority's rules as one Markdown table, writer by change (docs/security.md is
generated from it by scripts/gen_docs.py): the table is computed from :data:`VERBS`,
:data:`FIELDS` and :func:`may`, the data the authority decides from, so the docs cannot
drift from the code."""

from __future__ import annotations

from datetime import UTC, datetime

from salience.models import PERSON, TRUST, MemoryRecord
from salience.write.authority import FIELDS, SALIENCE, VERBS, is_owned_tag, may

WRITERS = (("a person", "user"), ("an agent", "agent"), ("an import or pack", "import"))
"""The writers the rules table shows, by the ceiling each writes with."""


def rules_table() -> str:
    """The rules as one Markdown table, writer by verb and field (docs/security.md)."""
    heads = [who for who, _ in WRITERS]
    lines = [
        "| change | " + " | ".join(heads) + " |",
        "|---|" + "---|" * len(heads),
    ]
    for verb in VERBS.values():
        if verb.who != SALIENCE:
            cells = [_cell(verb.name, ceiling) for _, ceiling in WRITERS]
            lines.append(f"| {verb.doc} (`{verb.name}`) | " + " | ".join(cells) + " |")
    for name, what in FIELDS.items():
        cells = [_cell("update", ceiling) for _, ceiling in WRITERS]
        lines.append(f"| set `{name}` in place: {what} | " + " | ".join(cells) + " |")
    pins = ["yes" if c == PERSON else "no: stored as 0" for _, c in WRITERS]
    lines.append("| pin (a `priority` other than 0) | " + " | ".join(pins) + " |")
    claims = [_claims(ceiling) for _, ceiling in WRITERS]
    lines.append("| tag `source:<source>` | " + " | ".join(claims) + " |")
    marks = ["salience only"] * len(heads)
    lines.append("| add or remove `quarantine*`, `stale*` tags | " + " | ".join(marks) + " |")
    return "\n".join(lines)


def _claims(ceiling: str) -> str:
    allowed = [s for s in TRUST if not is_owned_tag(f"source:{s}", ceiling)]
    return "any" if len(allowed) == len(TRUST) else "up to `source:" + ceiling + "`"


def _cell(verb: str, ceiling: str) -> str:
    standings = ("user", "agent", "import")
    allowed = [s for s in standings if may(verb, _of(s), ceiling)]
    if len(allowed) == len(standings):
        return "yes"
    if not allowed:
        return "no"
    return "on memories of " + " or ".join(f"`{s}`" for s in allowed)


def _of(source: str) -> MemoryRecord:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    return MemoryRecord(
        id="0" * 26, content=".", type="note", created_at=at, updated_at=at, source=source
    )
