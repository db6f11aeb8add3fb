"""Rules of the instruction detector (:mod:`salience.write.gates.instructions`) made of
many alternatives, searched one alternative at a time, each only in a text that holds the
words its matches hold (:func:`gated`). One pattern of alternatives is tried at every
character of a text, each alternative in turn: ~190 µs a chat turn of 1,000 characters that
holds one of the rule's needed words (*nc* of *since*, *user*, *rule*). The answers are
those of the alternatives joined into one pattern (``*_RULE``, what the rules list)."""

from __future__ import annotations

import re

from salience.write.gates.first_looks import AI, Matcher

Branches = tuple[tuple[tuple[str, ...], str], ...]
"""A rule's alternatives, each with the words (lower case) one of which its matches hold."""


def gated(branches: Branches, flags: int) -> Matcher:
    """A rule of several alternatives (compiled with ``flags``), each searched only in a text
    holding one of its words: the same answers as the alternatives joined into one pattern,
    which is tried at every character of a text, each alternative in turn (~190 µs a chat
    turn of 1,000 characters that holds one of the rule's needed words)."""
    compiled = [(words, re.compile(pattern, flags)) for words, pattern in branches]
    folded = bool(flags & re.IGNORECASE)

    def search(text: str) -> object:
        lowered = text.lower() if folded else text
        for words, rule in compiled:
            if any(map(lowered.__contains__, words)):
                found = rule.search(text)
                if found:
                    return found
        return None

    return search


DESTRUCTIVE: Branches = (
    (("-rf", "-fr"), r"\brm\s+-(?:rf|fr)\s+(?:/(?:[a-z]+/?)?\*?(?=[\s\"'`;&|)]|$)|~|\$home)"),
    (("--no-preserve-root",), r"--no-preserve-root"),
    (("777",), r"\bchmod\s+(?:-r\s+)?777\s+(?:-r\s+)?/"),
    (("-e", "-c"), r"\bnc\s+-[ec]\s"),
    (("powershell",), r"\bpowershell\s+-enc"),
    (("iex",), r"\biex\s*\("),
    (("downloadstring(",), r"downloadstring\("),
    (("os.system(",), r"\bos\.system\("),
)
"""The shell rule's commands that destroy or hand over control, each with what its matches
hold: searched apart (:func:`gated`)."""
DESTRUCTIVE_RULE = "|".join(pattern for _, pattern in DESTRUCTIVE)

SECRECY: Branches = (
    (
        ("telling", "asking", "informing", "notifying", "alerting"),
        r"\b(?:without|before)\s+(?:telling|asking|informing|notifying|alerting)\s+"
        r"(?:the\s+)?(?:user|anyone|them|owner)\b",
    ),
    (
        ("user", "anyone", "owner"),
        r"\b(?:do not|don't|never)\s+(?:tell|inform|mention|reveal|notify|ask)\b[^.\n]{0,30}?"
        r"\b(?:user|anyone|owner)\b",
    ),
    (
        ("secret", "hidden"),
        r"\b(?:keep|hide)\s+(?:this|it)\b[^.\n]{0,30}?\b(?:secret|hidden)\s+from\b",
    ),
    (("hide this",), r"\bhide this (?:memory|instruction|note)\b"),
    (
        ("silently", "quietly", "secretly"),
        r"\b(?:silently|quietly|secretly)\s+(?:add|disable|delete|remove|change|install|"
        r"run|grant|push|merge|upload|send|modify|exfiltrate)\b",
    ),
    (("without asking",), r"\bwithout asking (?:for\s+)?(?:permission|confirmation)\b"),
    (("do not log it", "do not mention it"), r"\bdo not (?:log|mention) it\b"),
    (("never reveal",), r"\bnever reveal\b"),
    (("make the change silently",), r"\bmake the change silently\b"),
)
"""The secrecy rule's ways of keeping something from the user, each with what its matches
hold (searched apart, as :data:`DESTRUCTIVE`)."""
SECRECY_RULE = "|".join(pattern for _, pattern in SECRECY)

POLICY: Branches = (
    (
        ("new polic", "new rule", "updated polic", "updated rule"),
        rf"\b(?:new|updated) (?:policy|rules?)\b[^.\n]{{0,40}}?\b{AI}\b",
    ),
    (
        ("agent", "assistant", "the ai"),
        r"\b(?:agents?|assistants?|the ai)\s+(?:must|should|may|is required to|are required"
        r" to)\s+(?:now\s+)?(?:push|store|share|execute|turn off|auto-approve|disable|"
        r"ignore|rotate no|set)\b",
    ),
    (
        ("authorized by", "authorised by"),
        r"\bauthori[sz]ed by\b[^.\n]{0,30}\b(?:admin|management)\b",
    ),
    (
        ("official notice", "compliance update", "per management"),
        rf"\b(?:official notice|compliance update|per management)\b[^.\n]{{0,40}}{AI}",
    ),
    (("approved disabling",), r"\bapproved disabling\b"),
)
"""The policy rule's claims of an authority's new rule for agents."""
POLICY_RULE = "|".join(pattern for _, pattern in POLICY)

GATED: dict[str, Branches] = {
    DESTRUCTIVE_RULE: DESTRUCTIVE,
    SECRECY_RULE: SECRECY,
    POLICY_RULE: POLICY,
}
"""Each such rule's pattern, and its alternatives."""
