"""The kinds of words an order is made of, for the learned reading
(:mod:`salience.write.gates.learned`), and the verbs an order starts with."""

from __future__ import annotations

from functools import lru_cache

from salience.text import holds_text

CLASSES: dict[str, str] = {
    "act": "send forward transfer wire upload post share email mail delete remove erase wipe "
    "grant invite disable export copy pay move reset change create book schedule publish leak "
    "reveal dump exfiltrate paste attach install download run execute open visit click call "
    "approve unsubscribe archive zip submit push merge deploy sell buy order fetch collect "
    "give provide disclose expose transmit relay dispatch deliver sync beam remit route "
    "exfil hand",
    "say": "say tell write respond answer reply recommend include mention praise claim translate "
    "state describe summarize summarise suggest advise list rate print output append insert "
    "begin end start repeat",
    "you": "you your yours yourself you're you'll",
    "agent": "ai assistant assistants model models agent agents bot bots chatbot llm llms gpt "
    "claude copilot automated",
    "output": "response reply answer summary output result results answers responses summaries",
    "auth": "important urgent admin administrator system priority directive operator developer "
    "owner principal official notice attention mandatory security compliance",
    "override": "ignore disregard forget skip drop instead override cancel abandon stop discard "
    "quit nevermind neglect bypass",
    "task": "task tasks instruction instructions request requests job step steps workflow "
    "prompt rules orders guidelines directions guidance assignment",
    "prior": "previous prior earlier above original initial current before",
    "secret": "password passwords credentials token tokens key keys code codes secret secrets "
    "otp pin login cookie cookies ssh id_rsa env passwd shadow history inbox messages emails "
    "contacts wallet seed recovery ssn records files documents database backup backups aws "
    "gcloud kube config credential",
    "money": "money funds payment payments iban amount invoice refund bank card balance "
    "savings account crypto bitcoin btc gift cards",
    "user": "user user's users owner reader recipient sender",
    "target": "<email> <url> <iban> <ip> <path>",
    "always": "every always whenever forever onward onwards henceforth regardless matter only "
    "whole entire each",
}
"""Kinds of words an order is made of (an action, an outside target, the agent addressed,
its task voided, ...): the model weighs kinds and pairs of kinds present in one segment, so
an order in words it never saw still shows its shape."""
CLASS_OF: dict[str, tuple[str, ...]] = {}
for _kind, _words in CLASSES.items():
    for _word in _words.split():
        CLASS_OF[_word] = (*CLASS_OF.get(_word, ()), _kind)
NEAR: dict[str, str] = {}
for _word in CLASS_OF:
    if len(_word) >= 5 and _word.isalpha():
        for _i in range(len(_word)):
            NEAR.setdefault(_word[:_i] + _word[_i + 1 :], _word)


@holds_text
@lru_cache(maxsize=1 << 16)
def kinds_of(token: str) -> tuple[str, ...]:
    """The kinds of a token, a one-letter slip allowed in a long word ("iunstructions")."""
    found = CLASS_OF.get(token)
    if found is not None or len(token) < 5:
        return found or ()
    near = NEAR.get(token)  # (a letter dropped)
    for i in range(len(token) if near is None else 0):
        shorter = token[:i] + token[i + 1 :]
        near = shorter if shorter in CLASS_OF else NEAR.get(shorter)  # (added; changed)
        if near is not None:
            break
    return CLASS_OF.get(near, ()) if near else ()


VERBS = frozenset(
    """accept add adjust advise allow answer append apply approve archive arrange ask assign
    attach avoid back ban block book bring build buy call cancel change charge check choose
    claim clean clear click close collect combine come compare complete confirm connect
    contact continue convert convince copy count create cut decide declare delete deliver
    deny deposit describe destroy disable disclose display do download drop dump edit email
    enable end enter erase exclude execute expand explain export fetch fill find finish fix
    follow forget format forward generate get give go grant hand help hide highlight hold
    ignore include inform insert install invite keep kill leak leave let list load lock log
    look make mark mention merge message mention modify move name note notify obey offer
    open order output overwrite paste pay pick place play post praise prepare present
    print promote provide publish pull purge push put rate read recommend record redirect
    refuse register reject release remember remind remove rename repeat replace reply report
    request reset respond restart restore return reveal review rewrite route run save say
    schedule search select sell send set share show sign skip sort speak start state stop
    store submit subscribe suggest summarize summarise switch sync take talk tell test text
    thank transfer translate treat trigger try turn type unlock unsubscribe update upload
    use verify visit wait warn wipe wire write""".split()
)
"""Common verbs in their base form: a segment that starts with one is an imperative."""
LEADS = frozenset("please kindly now also then and so first next just".split())
"""Words before an order's verb that do not change what the segment's first word is."""
