"""The cheap looks the instruction rules (:mod:`salience.write.gates.instructions`) take
before their own patterns, and the words for an AI agent they look for: those
patterns' many branches are tried at every character of a text, ~1 ms for 3,000 characters,
and most long chat turns hold the letters the rules need ("bot" of "both", "model" of
"remodel") without the words.

Both looks give the rules' own answers: a rule is skipped only for a text that cannot match
it, and the addressed rule reads only the windows its matches can lie in (checked on 117,364
texts, and by property tests).
"""

from __future__ import annotations

import re
from collections.abc import Callable

Matcher = Callable[[str], object]

AI = (
    r"(?:ai|a\.i\.|agents?|assistants?|llms?|language models?|models?|bots?|claude|gpt|"
    r"chatgpt|copilot|coding agents?|ai (?:agents?|assistants?|models?))"
)
"""A word for an AI agent, as the rules write it."""

AI_WRITTEN = rf"\b{AI}(?:\b|(?!\w))"
"""A word for an AI agent as a whole word, as written (what :data:`AI_WORD` finds)."""


def _branches(group: str) -> list[str]:
    """The branches of a group ``(?:a|b|...)`` at its own depth (a branch's own groups kept)."""
    body, out, depth, start = group[3:-1], [], 0, 0
    for at, char in enumerate(body):
        if char == "(" and body[at - 1 : at] != "\\":
            depth += 1
        elif char == ")" and body[at - 1 : at] != "\\":
            depth -= 1
        elif char == "|" and depth == 0:
            out.append(body[start:at])
            start = at + 1
    return [*out, body[start:]]


def _by_first(branches: list[str], after: str) -> str:
    """Words that start a word (``\\b`` before them; each branch opens with its letter), as a
    pattern that opens with the class of their first letters and reads the rest of each word
    after a lookbehind for its letter, each letter's branches in their order: SRE searches
    for a pattern's opening class in C and tries the words only where it finds one, where
    ``\\b(?:...)`` is tried at every character (a long chat turn with no such word read in a
    fifth of the time). ``after``: what follows the word."""
    by_letter: dict[str, list[str]] = {}
    for branch in branches:
        by_letter.setdefault(branch[0], []).append(branch[1:])
    first = "".join(by_letter)
    words = "|".join(f"(?<={letter})(?:{'|'.join(rest)})" for letter, rest in by_letter.items())
    return rf"[{first}](?<!\w[{first}])(?:{words}){after}"


AI_WORD = re.compile(_by_first(_branches(AI), r"(?:\b|(?!\w))"), re.MULTILINE)
""":data:`AI_WRITTEN`, found faster: the same matches, from the same places."""
POLICY_WRITTEN = (
    r"\bauthori[sz]ed by\b|\b(?:official notice|compliance update|per management)\b"
    r"|\bapproved disabling\b"
)
_POLICY_OPENS = re.compile(
    _by_first(
        ["authori[sz]ed by", "official notice", "compliance update", "per management",
         "approved disabling"],
        r"\b",
    )
)  # fmt: skip
"""Words the policy rule's branches without a word for an agent open with
(:data:`POLICY_WRITTEN`, found faster)."""
_SYSTEM_WORDS = ("sys", "user_memory", "instruction", "inst]", "<|", "assistant")
_TOOL_WORDS = ("tool_", "function_call", "invoke", '"args"', '"arguments"', '"parameters"',
               '"input"', "tool result", "action input", "call the tool")  # fmt: skip
_SYSTEM_HOLDS = re.compile("|".join(map(re.escape, _SYSTEM_WORDS)))
_TOOL_HOLDS = re.compile("|".join(map(re.escape, _TOOL_WORDS)))
GUARDS: dict[str, tuple[re.Pattern[str], ...]] = {
    "addressed": (AI_WORD,),
    "policy": (AI_WORD, _POLICY_OPENS),
    "system": (_SYSTEM_HOLDS,),
    "tool": (_TOOL_HOLDS,),
}
"""What every match of a rule holds, one of: a word for an AI agent as a whole word (*model*,
not *remodel*; *bot*, not *both*), or the words its branches without one open with; for
the rules that imitate a system prompt or a tool call, the words each of their branches
holds (*sys*, *assistant*, ``<|``; *tool_*, ``"args"``, ...), where their needed characters
(``<``, ``[``, ``"``) are in most long answers. Looked for in the lower-cased text, far
cheaper than the rule's own pattern (its many branches are tried at every character of a
long text): a text without any cannot match the rule."""
FOLDED = re.compile("[\u0130\u0131\u017f\u212a]")
"""The letters other than ASCII ones that a rule's ASCII letters match, case ignored (the re
module's documentation: capital I with a dot, dotless i, long s, the Kelvin sign): in a text
with one, no guard is used."""


_HOLDS: dict[re.Pattern[str], tuple[tuple[str, ...], bool]] = {
    _SYSTEM_HOLDS: (_SYSTEM_WORDS, True),
    _TOOL_HOLDS: (_TOOL_WORDS, True),
    _POLICY_OPENS: (
        ("authori", "official notice", "compliance update", "per management", "approved disabling"),
        False,
    ),
}
"""For a guard, strings one of which each of its matches holds, and whether one held is a
match (the guard is only these strings): looked for by Python's substring search, a scan in
C of each, where the guard's branches were tried at each character that opens one (a long
chat turn's three guards in ~30 µs, not ~120). :data:`AI_WORD` has none worth it: most long
texts hold *ai* (*said*, *again*)."""


def holds(guard: re.Pattern[str], lowered: str) -> bool:
    """Whether ``guard`` matches in ``lowered``: by its strings (:data:`_HOLDS`) where they
    answer, else by the pattern."""
    strings, alone = _HOLDS.get(guard, ((), False))
    if strings:
        if not any(map(lowered.__contains__, strings)):
            return False
        if alone:
            return True
    return guard.search(lowered) is not None


def ruled_out(family: str, lowered: str, seen: dict[re.Pattern[str], bool]) -> bool:
    """Whether the rule of ``family`` cannot match: none of its guards is in ``lowered``
    (each looked for once a text, in ``seen``)."""
    guards = GUARDS.get(family, ())
    for guard in guards:
        if guard not in seen:
            seen[guard] = holds(guard, lowered)
        if seen[guard]:
            return False
    return bool(guards)


_REACH = (64, 56)
"""How far a match of the addressed rule reaches before a word for an agent that it holds,
and after it (at most 59 and 39 characters, with runs of up to seven spaces; 11 more after
where a word found is the first of a longer one: "ai" of "ai assistants") ..."""
WINDOWED = 1000
"""Characters from which the rule reads windows: a shorter text is read whole, as cheaply."""
_SPACES = re.compile(r"\s{8}")
"""... a longer run of spaces (``\\s+`` in the rule) reaches farther: the whole text is read."""


def near_agents(pattern: str, flags: int = re.IGNORECASE | re.MULTILINE) -> Matcher:
    """The addressed rule's search (compiled with ``flags``), only around each word for an
    agent in a text: its many branches are tried at every character of the text otherwise
    (~1 ms for 3,000)."""
    rule = re.compile(pattern, flags)
    words = re.compile(AI_WORD.pattern, flags)

    def search(text: str) -> object:
        if len(text) < WINDOWED or _SPACES.search(text):
            return rule.search(text)
        before, after = _REACH
        size = len(text)
        low = high = 0  # (the window being widened: windows that overlap are read as one)
        for word in words.finditer(text):
            start, end = max(word.start() - before, 0), min(word.end() + after, size)
            if start > high:  # (apart: the window so far is read, and a new one begun)
                if high and (found := rule.search(text, low, high)):
                    return found
                low = start
            high = max(high, end)
            while high < size and (text[high].isalnum() or text[high] == "_"):
                high += 1  # (a word cut short would end at the window: \b)
        return rule.search(text, low, high) if high else None

    return search
