"""The signal gate: low-value content is refused, each rule with its own reason.

Rules: ``empty`` / ``too short`` (under 20 characters after trimming), ``self-talk`` (an agent
narrating itself: "I will …", "Let me …"; heuristics and procedures may say "I will always …"),
``tool output`` (most lines look like logs, stack traces, diffs or JSON, or the text is mostly
not prose), ``generic`` (could be said of any project: "tests passed", "it works"). The gate can
be bypassed per write (``force``) or by setting; the engine reports it when it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MIN_CHARS = 20
SELF_TALK_ALLOWED = frozenset({"heuristic", "procedure"})

_SELF_TALK = re.compile(
    r"^\s*(?:i will|i'll|let me|let's see|i'm going to|i am going to|i should remember"
    r"|i need to remember|i must remember|note to self|now i(?:'ll| will)?\b|okay,? (?:so|now|let)"
    r"|first,? i(?:'ll| will)|i think i(?:'ll| will| should))\b",
    re.IGNORECASE,
)
_REMEMBER_THIS = re.compile(r"\b(?:remember|note) (?:this|that)\b", re.IGNORECASE)
_MACHINE_LINE = re.compile(
    r"""^\s*(?:
        \[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}          # timestamped log line
      | \[?(?:INFO|WARN|WARNING|ERROR|DEBUG|TRACE|FATAL|CRITICAL)\b
      | at\ [\w.$<>]+\(                              # JVM / JS stack frame
      | File\ ".*",\ line\ \d+                       # Python stack frame
      | Traceback\ \(most\ recent\ call\ last\)
      | [\w.]*(?:Error|Exception|Warning)\b:?       # exception lines
      | (?:\+\+\+|---)\ [\w./]|@@\ -\d|diff\ --git|index\ [0-9a-f]{7,}
      | [\[\]{}](?:,)?$|"[^"]+"\s*:\s*                 # JSON structure
      | \$\ |>>>\ |PS\ [A-Z]:\\                       # shell prompts
      | [\w./\\-]+:\d+:\d+:?                          # compiler locations
      | (?:PASSED|FAILED|ok|FAIL|npm\ (?:ERR|WARN))\b
      | [\w-]+\s*\|\s*[\w-]+\s*\|                     # table rows
    )""",
    re.VERBOSE,
)
_GENERIC_WORDS = frozenset(
    """all the tests test passed pass passes passing it it's works worked working now fixed fix
    fixes build builds succeeded success successful successfully done complete completed
    everything looks look good ok okay fine great and is are was were finally again task tasks
    this that issue problem resolved solved changes change made updated update code ran run
    green seems to be has have been i we our as expected should after well properly
    correctly perfectly with without no any errors error things thing there in of for on
    so far all set up""".split()
)
_GENERIC_CLAIMS = frozenset(
    "passed passes pass works worked working fixed succeeded success successful done complete "
    "completed good fine great resolved solved green well properly correctly perfectly".split()
)
_WORD = re.compile(r"[a-z']+")
_PROSE_CHAR = re.compile(r"[^\W\d_]+| +")  # runs of letters (any script) or spaces
_DIGIT = re.compile(r"\d")


@dataclass(frozen=True)
class SignalVerdict:
    """Why the gate refused a write: the rule and a reason to show."""

    rule: str
    reason: str


def check_signal(content: str, memory_type: str) -> SignalVerdict | None:
    """The first rule ``content`` breaks, or None if it carries signal."""
    text = content.strip()
    if not text:
        return SignalVerdict("empty", "the content is empty")
    if len(text) < MIN_CHARS:
        return SignalVerdict(
            "too short", f"{len(text)} characters; at least {MIN_CHARS} carry a useful memory"
        )
    if memory_type not in SELF_TALK_ALLOWED and (
        _SELF_TALK.match(text) or _REMEMBER_THIS.search(text)
    ):
        return SignalVerdict("self-talk", "agent self-talk or meta-commentary, not a fact")
    if is_tool_output(text):
        return SignalVerdict("tool output", "looks like tool output (logs, traces, diffs, JSON)")
    if is_generic(text):
        return SignalVerdict("generic", "a generic statement with nothing specific in it")
    return None


def is_tool_output(text: str) -> bool:
    """Most lines are machine output, or the text is mostly symbols rather than prose."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) >= 3:
        machine = sum(1 for line in lines if _MACHINE_LINE.match(line))
        if machine / len(lines) >= 0.6:
            return True
    if len(text) >= 80:
        symbols = len(_PROSE_CHAR.sub("", text))
        return symbols / len(text) > 0.45
    return False


def is_generic(text: str) -> bool:
    """Every word is generic, at least one is a claim of success, and nothing is specific."""
    if len(text) > 200 or _DIGIT.search(text):
        return False
    words = _WORD.findall(text.lower())
    return (
        bool(words)
        and all(w in _GENERIC_WORDS for w in words)
        and any(w in _GENERIC_CLAIMS for w in words)
    )
