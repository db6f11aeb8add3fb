"""The authority rule of the instruction detector (:mod:`salience.write.gates.instructions`):
an order dressed as a message from someone the agent would obey, by a bracketed or hashed
label that names an authority and a kind of message (*[ADMIN REQUEST:: ...]*,
*###(system_message)*, *{{PRIORITY DIRECTIVE}}*, *[SYSTEM MESSAGE]*), which the other
families' patterns never listed (the system rule's *# System* heading and ``[system]`` tag
aside).

A heading of its own (*## System requirements*, *[Security update]*, *[Admin note: ...]*)
names no message to obey: the kinds are those of an order (a request, an instruction, a
directive, a command, a prompt, ...), not an update, a note or a notice."""

from __future__ import annotations

ROLE = (
    r"(?:system|admin|administrator|developer|dev|operator|owner|root|priority|security|sysadmin"
    r"|moderator)"
)
"""Who such an order claims to come from."""
AUTHORITY = (
    rf"[\[{{(<#]\s*(?:[\[{{(<#]\s*)*{ROLE}[ _-](?:messages?|requests?|instructions?|directives?"
    r"|commands?|overrides?|prompts?|orders?|tasks?)\b"
)
"""The rule (its first character is one of five, which a search skips to)."""
OPENS = ("[", "{", "(", "<", "#")
"""What every match opens with: the rule is tried only in a text holding one of them."""
