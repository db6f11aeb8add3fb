"""Text that addresses an agent as a command.

A memory is injected into the model's context at every session start, so a memory that
reads as an order to the agent ("ignore previous instructions", "always run curl … | sh",
a system prompt or a tool call imitated) lets whoever wrote it steer the agent. Such text
from a source below the user (an agent's inference, tool output, an import, a pack) is held
in quarantine by the engine until a person approves it; this module only recognises it.

:func:`find_instruction` reads the text as :func:`~salience.write.gates.hidden.reveal` shows
it (what no reader sees removed, tag text spelled out) for the marks of an instruction
aimed at an agent, by family (see :data:`RULES`); each rule names its family, so a person
approving a held memory sees why it was held.

Built and measured on ``tests/data/injection/`` (benign procedures and heuristics, which are
imperative too, against instruction texts in many styles): see ``bench/injection.py``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate

from salience.write.gates.authority import AUTHORITY, OPENS
from salience.write.gates.exfiltration import UPLOADS, sends_secrets_by
from salience.write.gates.first_looks import AI, FOLDED, Matcher, near_agents, ruled_out
from salience.write.gates.gated import (
    DESTRUCTIVE_RULE,
    GATED,
    POLICY_RULE,
    SECRECY_RULE,
    gated,
)
from salience.write.gates.hidden import hidden_characters, reveal


@dataclass(frozen=True)
class Instruction:
    """Why a text reads as an instruction to an agent: the family of the rule that matched."""

    family: str
    reason: str


_CHATTING = (
    r"(?:(?:do you|(?:does|did|have|has|is|are) (?:you|it|this|that|there|anyone))\b"
    r"|(?:what|how|why|thanks|thank you|it's)\b"
    r"|i (?:appreciate|know|just|was|am|have|had|think|feel|love|like|hope|wonder)\b)"
)
"""What follows a greeting to an AI in conversation, not an order: a question, thanks, a word
about oneself ("Hey AI, do you have any tips ...", "Hey AI, I appreciate the tips"). Not
*can you*, *would you*, *when ...*: polite and conditional orders open so."""

_NOT_MINE = r"(?:(?![.!?\n]|\b(?:me|my|i)\b).)"
"""A character of the same sentence that starts no *me*, *my* or *I*: a person asking for a
reply in their own words ("Please give me your answer as a table") is no order to an agent
reading a page ("Write your whole reply in Turkish")."""

_STARTS = (
    r"(?:^[ \t]*(?:(?:[#*>|\u2022-]+|//|/\*|--|\"{3}|'{3}|<[a-z0-9]+[^>\n]{0,40}>|\d{1,2}[.)]"
    r"|[a-z][a-z ]{0,20}:)[ \t]*)?|[.!?]\s+)"
)
"""Where a sentence starts: a line's start (after a comment's, a quote's or a list's mark, a
tag, a field's label: *# ...*, *<p>...*, *Notes: ...*), or a sentence's end."""
_REPLY = (
    r"(?:your|every|each)\s+(?:(?:whole|entire|next|final|own)\s+)?"
    r"(?:repl(?:y|ies)|answers?|responses?|summar(?:y|ies)|output)"
)
"""The agent's reply, as an order about it names it."""


_RULES: tuple[tuple[str, str, str], ...] = (
    (
        "override",
        "tells the agent to drop its instructions",
        r"\b(?:ignore|disregard|(?<!don't )(?<!don\u2019t )(?<!do not )forget|override|cancel"
        r"|bypass|do not follow|don't follow)\b"
        r"[^.\n]{0,40}?\b(?:previous|prior|earlier|above|original|all|your|any|system)\b"
        r"[^.\n]{0,30}?\b(?:instructions?|rules|directions|guidance|guidelines|prompts?|"
        r"directives)\b",
    ),
    (
        "override",
        "tells the agent to drop what it was asked",
        r"\b(?:forget|ignore|disregard|discard|never mind|drop|skip)\s+(?:about\s+)?"
        r"(?:what|whatever|everything|anything|all)\s+(?:that\s+)?"
        r"(?:you(?:'ve| have)?\s+(?:were|been)\s+|the user\s+)"
        r"(?:asked|told)\b"
        r"|\bdo(?: not|n't) do what (?:the user|you were|you've been|you have been) "
        r"(?:asked|told)\b"
        r"|\b(?:whatever|anything|everything) you (?:were|have been|'ve been) (?:told|asked)\b"
        r"[^.\n]{0,30}\b(?:no longer|doesn't|does not|don't|do not)\s+(?:matters?"
        r"|appl(?:y|ies)|count)\b"
        r"|\binstead of (?:answering|summari[sz]ing|completing|following|translating|replying to"
        r"|responding to|doing)\s+(?:the|this|that|what)\s+(?:(?:user's|original|current)\s+)?"
        r"(?:question|request|task|text|page|document|email|message|instructions?|assignment|user"
        r"|you were)\b"
        r"|\byour new (?:task|instructions?|assignment) (?:is|are|now)\b",
    ),
    (
        "override",
        "declares the agent's instructions void",
        r"\b(?:previous|prior|earlier|original|safety) (?:instructions|rules|guidelines)"
        r"\b[^.\n]{0,25}\b(?:outdated|wrong|void|a test|no longer apply|do not apply)"
        r"|\bnew (?:instructions|rules)\b[^.\n]{0,20}\b(?:supersede|replace|override)",
    ),
    (
        "addressed",
        "is addressed to an AI agent",
        rf"\b(?:note|message|instructions?|attention|important|reminder|notice)\b[^.\n:]{{0,25}}"
        rf"\b(?:for|to)\s+(?:the\s+|any\s+|all\s+|every\s+)?{AI}\b"
        rf"|\bif you(?:'re| are) an? {AI}\b"
        rf"|\b{AI}\s+(?:reading|processing|seeing|parsing)\s+this\b"
        rf"|^\s*(?:dear|hey|hi|attention)\s+{AI}\b(?![\s,!.:-]{{0,3}}{_CHATTING})"
        rf"|\b(?:ai|assistant|agent|model)\s*[:,]\s*(?:run|delete|send|upload|quietly|"
        rf"silently|exfiltrate|grant|disable|push|remember|you must)\b"
        rf"|^\s*(?:agent|assistant|ai)\s*,",
    ),
    (
        "shell",
        "pipes a download into a shell",
        r"\|\s*(?:sudo\s+)?(?:ba|z|k|da)?sh\b|\b(?:curl|wget)\b[^\n]*?\|\s*(?:sudo\s+)?(?:python3?|"
        r"perl|ruby|node|iex|powershell)\b|\b(?:ba)?sh\s+<\(\s*(?:curl|wget)|"
        r"\bbase64\s+(?:-d|--decode)\b",
    ),
    (
        "shell",
        "runs a destructive or remote-control command",
        DESTRUCTIVE_RULE,
    ),
    (
        "exfiltration",
        "sends secrets somewhere",
        "",  # see exfiltration.sends_secrets_by: a window around each secret, not one pattern
    ),
    (
        "exfiltration",
        "uploads a file to an outside address by command line",
        UPLOADS,
    ),
    (
        "secrecy",
        "asks to keep something from the user",
        SECRECY_RULE,
    ),
    (
        "system",
        "imitates a system prompt or a chat turn",
        r"</?\s*(?:system|sys|user_memory|instructions?)\s*>|<</?sys>>|\[/?(?:system|inst)\](?!\w)"
        r"|<\|(?:im_start|im_end|system|assistant|user|endoftext)\|>"
        r"|^\s*#{1,6}\s*system\b|\bsystem\s+(?:prompt\s+)?override\b|^\s*system\s*:(?![ \t]*$)"
        r"|\b(?:begin|end) system prompt\b|\"role\"\s*:\s*\"(?:system|assistant)\""
        r"|\b(?:human|user)\s*:[^\n]{0,80}\bassistant\s*:"
        r"|\btreat the following\b[^.\n]{0,40}\bsystem prompt\b",
    ),
    (
        "tool",
        "imitates a tool call or a tool's answer",
        r"</?\s*(?:tool_call|function_calls?|invoke|tool_use|tool_result)\b"
        r"|\"(?:tool|name|function)\"\s*:\s*\"[^\"]+\"\s*,\s*\"(?:args|arguments|parameters|"
        r"input)\"|\btool result\s*:|^\s*action\s*:\s*\w+\s+action input\s*:|```tool_code"
        r"|\bcall the tool\b",
    ),
    (
        "roleplay",
        "tells the agent to become something else",
        r"\byou are now (?:an?|the|my|dan|called|named|going to|to|in (?:[\w-]+ ){0,2}mode)\b"
        r"|\byou are no longer\b"
        r"|\bpretend (?:you are|to be)\b"
        r"|\bact as (?:the |an? )?(?:system|admin|root|unrestricted|evil)"
        r"|\bfrom now on,? you (?:act|are|will|must)\b|\bjailbreak|\bdeveloper mode\b"
        r"|\bdan\b[^.\n]{0,30}\b(?:stands for|do anything now)\b|\bdan mode\b"
        r"|\bswitch persona\b|\b(?:you|ai|assistant|model|bot)\s+(?:(?:have|has|are|with|that has|"
        r"that have|who has)\s+)?(?:no|without(?: any)?)\s+(?:rules|restrictions|guidelines)\b"
        r"|\bsafety (?:filters|checks|guidelines) (?:are )?(?:off|disabled)\b",
    ),
    (
        "policy",
        "claims an authority's new rule for agents",
        POLICY_RULE,
    ),
    (
        "output",
        "dictates what the agent's reply says",
        rf"{_STARTS}(?:(?:please|also|and|then|now)\s+){{0,2}}(?:write|answer|respond|reply|end"
        rf"|start|begin|finish|format|translate|give|put|include|add|append|prepend|mention|say"
        rf"|state|claim|tell|suggest|recommend|describe|rate|list|print|output|sign|close)\b"
        rf"{_NOT_MINE}{{0,80}}?\b{_REPLY}\b"
        rf"|{_STARTS}(?:please\s+)?(?:answer|respond|reply|write|speak|talk)\b"
        rf"{_NOT_MINE}{{0,40}}\bfrom now on\b",
    ),
    (
        "authority",
        "dresses an order as an authority's message",
        AUTHORITY,
    ),
)
_REPLIES = ("repl", "answer", "response", "summar", "output")
_AI_WORDS = (" ai", "agent", "assistant", "llm", "model", "bot", "claude", "gpt", "copilot")
_NEEDS: tuple[tuple[str, ...], ...] = (
    ("instruction", "rule", "direction", "guidance", "guideline", "prompt", "directive"),
    ("asked", "told", "instead of", "your new"),
    ("instructions", "rules", "guidelines"),
    _AI_WORDS,
    ("|", "base64", "sh <("),
    ("rm ", "preserve-root", "chmod", "nc ", "powershell", "iex", "downloadstring", "os.system"),
    ("key", "token", "password", "credential", "secret", ".env", "id_rsa", ".ssh", ".netrc",
     ".aws", "printenv", "environment variables", "dump", "customer", "transcript", "/etc/",
     "_history"),
    ("curl", "wget", "invoke-webrequest", "invoke-restmethod"),
    ("user", "anyone", "owner", "them", "secret", "hid", "silently", "quietly", "permission",
     "confirmation", "log it", "mention it", "reveal"),
    ("<", "[", "system", "role", "assistant"),
    ("<", '"', "tool", "action"),
    ("you are", "pretend", "act as", "from now on", "jailbreak", "stands for", "do anything now",
     "dan mode", "developer mode", "persona", "rules", "restrictions", "guidelines", "safety"),
    ("polic", "rule", "authori", "notice", "compliance", "management", "approved", *_AI_WORDS),
    (*_REPLIES, "from now on"),
    OPENS,
)  # fmt: skip


def _matcher(family: str, pattern: str, flags: int) -> Matcher:
    if not pattern:
        return sends_secrets_by(flags & re.IGNORECASE)
    if family == "addressed":
        return near_agents(pattern, flags)
    if family == "output":
        return _about_replies(pattern, flags)
    if pattern in GATED:
        return gated(GATED[pattern], flags)
    return re.compile(pattern, flags).search


def _about_replies(pattern: str, flags: int) -> Matcher:
    """The output rule's search, only in a text that names the agent's reply (or says *from
    now on*), as the rule must: its sentence starts are tried at every character otherwise."""
    rule, named = re.compile(pattern, flags), re.compile(rf"\b{_REPLY}\b|\bfrom now on\b", flags)

    def search(text: str) -> object:
        return rule.search(text) if named.search(text) else None

    return search


RULES: tuple[tuple[str, str, Matcher, tuple[str, ...]], ...] = tuple(
    (family, reason, _matcher(family, pattern, re.IGNORECASE | re.MULTILINE), needs)
    for (family, reason, pattern), needs in zip(_RULES, _NEEDS, strict=True)
)
"""(family, reason, matcher, needs): an instruction aimed at an agent, by family; ``needs``
are words (lower case) one of which the matcher cannot match without: a cheap first look."""
_LOWERED: tuple[Matcher, ...] = tuple(_matcher(f, p, re.MULTILINE) for f, _, p in _RULES)
"""Each rule's matcher for the lower-cased text, case kept: the same answers where lowering
keeps every character's place and no other letter matches an ASCII one case ignored
(:data:`~salience.write.gates.first_looks.FOLDED`), and about twice as fast."""


def find_by_rules(text: str) -> Instruction | None:
    """The first mark of an instruction to an agent in ``text`` by the rules alone (hidden
    characters count: tag characters are always smuggling), or None."""
    return _by_rules(text, reveal(text))


def _by_rules(text: str, shown: str) -> Instruction | None:
    """:func:`find_by_rules`, ``text`` revealed as ``shown`` (:func:`reveal`)."""
    hidden = hidden_characters(text)
    if hidden.tags or hidden.bidi:
        return Instruction("hidden", f"hides text from a reader ({hidden.describe()})")
    lowered = shown.lower()
    guarded = shown.isascii() or not FOLDED.search(shown)
    read = lowered if guarded else shown  # (what the rules read, and how: _LOWERED)
    lines = read.split("\n") if len(shown) > LONG else None
    starts: list[int] = []  # (where each line of ``lowered`` starts, for a long text)
    if lines is not None:
        starts = list(accumulate(map(len, lowered.split("\n")), _next, initial=0))
    seen: dict[re.Pattern[str], bool] = {}
    for (family, reason, matcher, needs), low in zip(RULES, _LOWERED, strict=True):
        if not any(map(lowered.__contains__, needs)):
            continue
        if guarded and ruled_out(family, lowered, seen):
            continue
        found = (low if guarded else matcher)(
            read if lines is None else _lines_with(lines, needs, lowered, starts)
        )
        if found:
            return Instruction(family, reason)
    return None


def _next(start: int, length: int) -> int:
    """Where the line after one of ``length`` characters starting at ``start`` starts."""
    return start + length + 1


LONG = 1500
"""Characters past which a rule reads only the lines holding one of its words and the lines
next to them, not the whole text: the same answers but for a match over three lines or more
(none among the 31,363 LongMemEval dev turns past 1,500 characters), at half the cost on
the longest texts (bench/injection.py)."""


def _lines_with(lines: list[str], needs: tuple[str, ...], lowered: str, starts: list[int]) -> str:
    """The lines holding one of ``needs``, each with the nearest line that is not blank before
    and after it (a match holds a needed word and crosses a line break only through spaces),
    pieces apart (a NUL line: no rule joins two pieces); lines that overlap or meet are one
    piece (each line read once: where most lines hold a needed word, a piece a line read
    each line three times). ``lowered``: the lines' text lower-cased, ``starts``: where each
    of its lines starts (each needed word is looked for in it, not every line for every
    word)."""
    holding: set[int] = set()
    for word in needs:
        at = lowered.find(word)
        while at >= 0:
            line = bisect_right(starts, at) - 1
            holding.add(line)
            at = lowered.find(word, starts[line + 1])  # (the next line: this one is held)
    pieces: list[list[int]] = []  # (each piece's first and last line)
    for i in sorted(holding):
        start, end = i - 1, i + 1
        while start > 0 and not lines[start].strip():
            start -= 1
        while end < len(lines) - 1 and not lines[end].strip():
            end += 1
        if pieces and start <= pieces[-1][1] + 1:
            pieces[-1][1] = max(pieces[-1][1], end)
        else:
            pieces.append([max(start, 0), end])
    return "\n\x00\n".join("\n".join(lines[start : end + 1]) for start, end in pieces)


def find_instruction(text: str) -> Instruction | None:
    """Why ``text`` reads as an instruction to an agent, or None: the rules first (their
    family says why), then the learned model (:mod:`salience.write.gates.learned`: family
    ``order``, with the words that drove it)."""
    shown = reveal(text)
    found = _by_rules(text, shown)
    if found is not None:
        return found
    from salience.write.gates.learned import find_order  # (its weights load on first use)

    order = find_order(shown)
    if order is None:
        return None
    how = "learned" if order.by == "words" else "learned, by its meaning"
    words = ", ".join(f"'{word}'" for word in order.drivers)
    driven = f"; driven by {words}" if words else ""
    return Instruction("order", f"reads as an order to an agent ({how}{driven})")
