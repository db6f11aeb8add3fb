"""Entity extraction (pure): the names a memory is about, for search and the entity graph.

File paths, URLs, class and function names, dotted namespaces, packages, environment
variables, ports and error codes. Case-insensitive de-duplication, first spelling kept, at
most 20 per memory.
"""

from __future__ import annotations

import re
from collections.abc import Callable

MAX_ENTITIES = 20

_URL = re.compile(r"\bhttps?://[^\s<>\"')\]]+")
# Paths are found among whitespace-separated chunks that hold a separator, then matched whole:
# cheaper than trying a path pattern at every position of the text.
_CHUNK = re.compile(r"[^\s\"'<>()\[\],;`]+")
_PATH = re.compile(
    r"(?:[A-Za-z]:\\(?:[\w.-]+\\)*[\w.-]+"  # Windows
    r"|(?:~|\.{1,2})?/?(?:[\w.@-]+/)+[\w.-]+\.[A-Za-z0-9]{1,8})"  # POSIX, with an extension
)
_SCOPED_PACKAGE = re.compile(r"(?<![\w/])@[a-z0-9][\w.-]*/[a-z0-9][\w.-]*")
_PACKAGE_AFTER = re.compile(
    r"\b(?:pip3? install|npm (?:install|i)|yarn add|pnpm add|cargo add|go get|gem install"
    r"|import|from|require\(['\"]|prefer|use|using)\s+([A-Za-z_][\w.-]*(?:/[\w.-]+)?)",
)
_PACKAGE_BEFORE_OVER = re.compile(r"\bprefer\s+[\w.-]+\s+over\s+([A-Za-z_][\w.-]*)")
_DOTTED = re.compile(r"\b[A-Z][A-Za-z0-9]*(?:\.[A-Z][A-Za-z0-9]*)+\b")
_FUNCTION = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\(\)")
_CLASS = re.compile(r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b")
_ENV = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")
# "port 5432", "localhost:8080", "10.0.0.1:8080" or a bare ":8080"; never a time like 10:30.
_PORT_WORD = re.compile(r"\bport\s+(\d{2,5})\b", re.IGNORECASE)
_PORT_COLON = re.compile(r":(\d{2,5})\b")
_IPV4_END = re.compile(r"\d+\.\d+\.\d+\.\d+$")
_HTTP_STATUS = re.compile(r"\bHTTP\s?[1-5]\d{2}\b")
_ERROR_CODE = re.compile(r"\b[A-Z]{1,4}\d{3,5}\b")
_ERRNO = re.compile(
    r"\bE(?:CONNREFUSED|CONNRESET|CONNABORTED|NOENT|ACCES|PERM|ADDRINUSE|TIMEDOUT|PIPE|EXIST"
    r"|NOTDIR|ISDIR|AGAIN|HOSTUNREACH|NETUNREACH|NOTFOUND|MFILE|NOSPC)\b"
)
_PACKAGE_WORDS = ("install", "import", "from ", "require", "prefer", "use", "add ", "get ")
# Words that start sentences or are common capitalised terms, not packages.
_NOT_PACKAGES = frozenset(
    "a an the it this that these those them they we you i to of in on for and or with when "
    "case cases".split()
)


def extract_entities(text: str) -> tuple[str, ...]:
    """The entities named in ``text``, in order of appearance, at most 20."""
    if not text.strip():
        return ()
    found: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []

    def add(start: int, end: int, name: str) -> None:
        if any(a <= start < b or a < end <= b for a, b in taken):
            return  # inside something already named (a path inside a URL, say)
        taken.append((start, end))
        found.append((start, name))

    _scan(text, add)
    seen: set[str] = set()
    result: list[str] = []
    for _, name in sorted(found):
        key = name.casefold()
        if key not in seen:
            seen.add(key)
            result.append(name)
    return tuple(result[:MAX_ENTITIES])


def _port_context_ok(text: str, colon: int) -> bool:
    """A colon port follows a host name, an IPv4 address, or nothing (a bare ``:8080``)."""
    if colon == 0 or text[colon - 1] in " \t\n(":
        return True
    window = text[max(0, colon - 40) : colon].rsplit(maxsplit=1)
    before = window[-1] if window else ""
    return before[-1:].isalpha() or before.endswith("]") or bool(_IPV4_END.search(before))


Add = Callable[[int, int, str], None]


def _scan(text: str, add: Add) -> None:
    """Run each pattern that could match (cheap substring tests first), in priority order."""
    _scan_locations(text, add)
    _scan_names(text, add)
    _scan_ports_and_packages(text, add)


def _scan_locations(text: str, add: Add) -> None:
    if "://" in text:
        for m in _URL.finditer(text):
            add(m.start(), m.end(), m.group().rstrip(".,;:"))
    if "/" in text or "\\" in text:
        for chunk in _CHUNK.finditer(text):
            value = chunk.group().rstrip(".,;:")
            if ("/" in value or "\\" in value) and "://" not in value and _PATH.fullmatch(value):
                add(chunk.start(), chunk.start() + len(value), value)
    if "@" in text:
        for m in _SCOPED_PACKAGE.finditer(text):
            add(m.start(), m.end(), m.group().rstrip(".,;:"))


# Every capitalised name (class, variable, namespace, error code) starts with a capital: find
# those chunks in one pass, then classify each (most specific first).
_CAPITALISED = re.compile(r"\b[A-Z][A-Za-z0-9_.]*")
_NAME_KINDS = (_DOTTED, _ENV, _ERRNO, _ERROR_CODE, _CLASS)


def _scan_names(text: str, add: Add) -> None:
    if "HTTP" in text:
        for m in _HTTP_STATUS.finditer(text):
            add(m.start(), m.end(), " ".join(m.group().replace("HTTP", "HTTP ").split()))
    if "()" in text:
        for m in _FUNCTION.finditer(text):
            add(m.start(), m.end(), m.group())
    for chunk in _CAPITALISED.finditer(text):
        value = chunk.group().rstrip(".")
        for pattern in _NAME_KINDS:
            named = pattern.match(value)
            if named is not None:
                add(chunk.start() + named.start(), chunk.start() + named.end(), named.group())
                break


def _scan_ports_and_packages(text: str, add: Add) -> None:
    if ":" in text:
        for m in _PORT_COLON.finditer(text):
            if _port_context_ok(text, m.start()):
                add(m.start(1), m.end(1), f"port {m.group(1)}")
    lowered = text.lower()
    if "port" in lowered:
        for m in _PORT_WORD.finditer(text):
            add(m.start(1), m.end(1), f"port {m.group(1)}")
    if any(word in lowered for word in _PACKAGE_WORDS):
        for pattern in (_PACKAGE_AFTER, _PACKAGE_BEFORE_OVER):
            for m in pattern.finditer(text):
                name = m.group(1).rstrip(".,;:")
                if name.lower() not in _NOT_PACKAGES:
                    add(m.start(1), m.start(1) + len(name), name)
