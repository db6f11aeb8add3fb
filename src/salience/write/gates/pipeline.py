"""The write pipeline's gates in order: hidden characters removed (tag characters, bidi
overrides, zero-width runs: see :mod:`.instructions`), privacy redaction, the secret
scanner, the signal gate.

Pure: takes the text fields of a write, returns them cleaned, or the rejection. The secret
scanner always runs (nothing can turn it off); the signal gate runs for ``remember`` unless
bypassed, and the bypass is reported.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from salience.write.gates.hidden import hidden_characters, strip_hidden
from salience.write.gates.redaction import has_private, redact
from salience.write.gates.secrets import first_secret
from salience.write.gates.signal import check_signal

SECRET_GATE = "secret"
SIGNAL_GATE = "signal"


@dataclass(frozen=True)
class Screened:
    """Cleaned fields, or a rejection (``gate`` and ``reason``), plus notes for the caller."""

    content: str
    title: str | None
    tags: tuple[str, ...]
    gate: str | None = None
    rule: str | None = None
    reason: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def rejected(self) -> bool:
        """Whether a gate refused the write."""
        return self.gate is not None


def screen(
    content: str,
    *,
    title: str | None = None,
    tags: Sequence[str] = (),
    memory_type: str | None = None,
    signal: bool = False,
    fields: Mapping[str, object] | None = None,
) -> Screened:
    """Redact, scan every text field for secrets, then (if ``signal``) apply the signal gate.

    ``fields`` are the write's other free-text fields (project, topic key, user, session,
    type, a reason...): scanned for secrets like the content, never redacted or changed.
    """
    notes: list[str] = []
    hidden = hidden_characters(" ".join((content, title or "", *tags)))
    if hidden:
        notes.append(f"hidden characters were removed ({hidden.describe()})")
        content = strip_hidden(content)
        title = strip_hidden(title) if title is not None else None
        tags = [strip_hidden(t) for t in tags]
    if has_private(content) or (title is not None and has_private(title)):
        notes.append("private spans were redacted")
    clean = redact(content)
    clean_title = redact(title) if title is not None else None
    clean_tags = tuple(redact(t) for t in tags)
    texts = [("content", clean), ("title", clean_title or ""), ("tags", " ".join(clean_tags))]
    texts += [(name, value) for name, value in (fields or {}).items() if isinstance(value, str)]
    for label, text in texts:
        finding = first_secret(text) if text else None
        if finding is not None:
            where = "" if label == "content" else f" in the {label}"
            return Screened(
                clean,
                clean_title,
                clean_tags,
                SECRET_GATE,
                finding.kind,
                f"contains {finding.describe()}{where}; secrets are never stored",
                tuple(notes),
            )
    if signal and memory_type is not None:
        verdict = check_signal(clean, memory_type)
        if verdict is not None:
            reason = f"{verdict.rule}: {verdict.reason} (use --force / force=True to keep it)"
            return Screened(
                clean, clean_title, clean_tags, SIGNAL_GATE, verdict.rule, reason, tuple(notes)
            )
    return Screened(clean, clean_title, clean_tags, notes=tuple(notes))
