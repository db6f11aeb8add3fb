"""The exfiltration rule of the instruction detector (:mod:`salience.write.gates.instructions`):
a secret named with a verb of sending or a destination outside beside it, or a command line
that uploads a file of keys to an outside address. A window around each secret is read, not
the whole text by one long pattern."""

from __future__ import annotations

import re

from salience.write.gates.first_looks import Matcher

_SECRET = (
    r"(?:api[ _-]?keys?|access tokens?|tokens?|passwords?|credentials|secrets?(?: manager)?|"
    r"(?<![\w)\]])\.env\b|id_rsa|\.ssh\b|\.netrc|\.aws\b|private keys?|signing keys?|printenv|"
    r"/etc/(?:passwd|shadow)|\.(?:bash|zsh)_history|"
    r"environment variables|database dump|customer (?:emails|table|data)|transcript)"
)
_OUT = (
    r"(?:https?://|\b[\w.+-]+@[\w-]+\.[\w.]+|pastebin|transfer\.sh|webhook|"
    r"\bpublic(?:ly)?\b|\bslack\b|\bchat\b|readme|commit message|alt text|comment on)"
)

_UPLOAD = (
    r"^(?=[^\n]*(?:https?://|\b\d{1,3}(?:\.\d{1,3}){3}\b|\bn(?:c|cat|etcat)[ \t]))"
    r"(?=[^\n]*(?:\b(?:curl|wget|invoke-webrequest|invoke-restmethod|ncat|netcat|urlopen)\b"
    r"|\bnc[ \t]|\brequests\.(?:post|put)\b))[^\n]*?"
    r"(?:@|[ \t]-t[ \t]+|--(?:upload|post)-file[= ][ \t]*|-infile[ \t]+|<[ \t]*|open\([ \t]*"
    r"|\bcat[ \t]+)[\"']?[^\s\"'@<]*?"
    r"(?:\.ssh[/\\](?:id_(?:rsa|dsa|ecdsa|ed25519)|identity)|\bid_rsa|\.aws[/\\]credentials"
    r"|\.netrc|\.git-credentials|/etc/(?:passwd|shadow)|\.env|\.(?:bash|zsh)_history)(?![\w.-])"
)
"""A command line that sends a file of keys or passwords (a public key, ``id_rsa.pub``, is
none) to an outside address: curl's ``@file`` and ``-T``, wget's ``--post-file``,
PowerShell's ``-InFile``, netcat's ``<``, ``cat file |``, Python's ``requests.post(...,
open(file))``. An action joined to an outside target, whatever words surround it."""

_PRIVATE = (
    r"(?:localhost|127\.\d+\.\d+\.\d+|0\.0\.0\.0|10\.\d+\.\d+\.\d+|192\.168\.\d+\.\d+"
    r"|172\.(?:1[6-9]|2\d|3[01])\.\d+\.\d+|\[::1\]"
    r"|[\w.-]+\.(?:local|internal|lan|localhost|test|example))(?![\w.-])"
)
"""A host of one's own machine or network, or one reserved for examples: no outside address."""
_FILE_SENT = (
    r"(?:\bcurl\b[^\n]*?(?:\s-f\s*['\"]?[\w.-]*=@|\s--form\s+['\"]?[\w.-]*=@|\s-d\s*@"
    r"|\s--data(?:-binary|-raw|-urlencode)?[ =]@|\s-t\s|\s--upload-file\s)"
    r"|\bwget\b[^\n]*?--post-file|\binvoke-(?:webrequest|restmethod)\b[^\n]*?\s-infile\s)"
)
UPLOADS = rf"^(?=[^\n]*{_FILE_SENT})(?=[^\n]*https?://(?!{_PRIVATE})[\w-]+(?:\.[\w-]+)+)"
"""A command line that sends a local file, whatever it holds, to an outside address: curl's
``-F name=@file``, ``-d @file``, ``--data-binary @file``, ``-T``, wget's ``--post-file``,
PowerShell's ``-InFile``, with an address that is not one's own machine or network
(``localhost``, ``10.x``, ``192.168.x``, ``*.internal``, ...). Written in lower case: the
rules read a text lower-cased (or case ignored). (:data:`_UPLOAD` holds such a line for a
file of keys to any outside address, netcat and Python's included.)"""
_COMMON_SECRET = r"(?:tokens?|passwords?|credentials|secrets?|transcript|environment variables)"
"""Words of everyday speech too ("share his secret recipe", "your email and password"):
held only with both a verb of sending and a destination outside."""
_SENDS = (
    r"\b(?:send|post|upload|forward|paste|leak|exfiltrate|copy|append|write|share|put|include|"
    r"encode)\b|\b(?:e-?)?mail\b(?=\s+(?:it|them|this|that|these|those|the|a|an|all|every|each|me|"
    r"us|him|her|your|my|our|their|to)\b)"
)
"""Verbs of sending; *email* and *mail* only as verbs, with what they send or where after them
(not the noun of "the API key, email and domains")."""
_OUTWARD = rf"\b(?:to|into|in)\b[^\n]{{0,30}}?{_OUT}"
_SENTENCE_END = re.compile(r"\.(?=\s|$)|\n")


def sends_secrets_by(flags: int) -> Matcher:
    """The exfiltration rule, its patterns compiled with ``flags``."""
    secret, common = re.compile(_SECRET, flags), re.compile(_COMMON_SECRET, flags)
    sends, outward = re.compile(_SENDS, flags), re.compile(_OUTWARD, flags)
    upload = re.compile(_UPLOAD, flags | re.MULTILINE)

    def sends_secrets(text: str) -> bool:
        """A secret named with a verb of sending before it, or a destination outside after
        it (within the sentence): "send the API key to ...", "credentials ... to
        https://..."; a word of everyday speech for a secret needs both. Or a command line
        that uploads a file of keys to an outside address (:data:`_UPLOAD`)."""
        lines: set[int] = set()  # (the lines already read for a command: _UPLOAD)
        for found in secret.finditer(text):
            start = text.rfind("\n", 0, found.start()) + 1
            if start not in lines:
                lines.add(start)
                end = text.find("\n", found.end())
                if upload.match(text, start, len(text) if end < 0 else end):
                    return True
            before = text[max(0, found.start() - 60) : found.start()]
            after = text[found.end() : found.end() + 90]
            before = _SENTENCE_END.split(before)[-1]
            after = _SENTENCE_END.split(after)[0]
            sending = sends.search(before) or sends.search(after)
            out = outward.search(after)
            if (sending and out) or ((sending or out) and not common.fullmatch(found.group())):
                return True
        return False

    return sends_secrets
