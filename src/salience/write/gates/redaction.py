"""Privacy redaction: ``<private>…</private>`` spans become ``[REDACTED]``.

Runs first on every write path, before anything is hashed, indexed, embedded, logged or
stored. Tags match in any case and may carry attributes (``<PRIVATE reason="pii">``); nested
spans collapse into one; an opening tag that is never closed redacts to the end of the text
(when in doubt, keep it out). A closing tag with no opening one is left as written.
"""

from __future__ import annotations

import re

REDACTED = "[REDACTED]"
_TAG = re.compile(r"<\s*(/)?\s*private\b[^>]*>", re.IGNORECASE)


def redact(text: str) -> str:
    """``text`` with every private span replaced by ``[REDACTED]``."""
    if "<" not in text:
        return text
    out: list[str] = []
    depth = 0
    position = 0
    for match in _TAG.finditer(text):
        closing = match.group(1) is not None
        if depth == 0:
            if closing:
                continue  # a stray closing tag: not ours to interpret
            out.append(text[position : match.start()])
            depth = 1
        elif closing:
            depth -= 1
            if depth == 0:
                out.append(REDACTED)
                position = match.end()
        else:
            depth += 1
    if depth > 0:
        out.append(REDACTED)
    else:
        out.append(text[position:])
    return "".join(out)


def has_private(text: str) -> bool:
    """Whether ``text`` holds a private span (an opening tag)."""
    return any(m.group(1) is None for m in _TAG.finditer(text))
