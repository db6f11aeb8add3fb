"""The words update detection (:mod:`salience.write.updates`) reads by: chat filler, words
that say no, change, add or name people, numbers and days written as words, the words before
a place, light verbs."""

from __future__ import annotations

import functools

from salience.text import STOPWORDS, holds_text

FILLER = frozenset(
    """
    also actually really just like think thinking know get got getting make made making use
    using used want wanted need needed going go went way thing things lot lots good great
    well much many time times ago since still
    even maybe sure help tips tip recommend recommendations suggestions ideas idea
    something anything everything someone anyone ones kind sort bit pretty quite
    definitely probably anyway speaking wondering wonder trying try tried looking look instead
    started start new old current currently recently lately now already far yet back
    can could would should will shall may might must let let's i've i'll i'd you're that's
    there's here's we've we're they're he's she's it'd what're
    interested particularly especially planning curious hoping excited glad mentioned earlier
    remember exploring considering
    thanks thank thx please hello hi hey okay ok yes yeah sounds appreciate
    wow awesome cool nice amazing congrats congratulations
    last next yesterday today tonight tomorrow another note totally agree gonna wanna
    """.split()
)
SKIPPED = STOPWORDS | FILLER  # words that never name a subject
NEGATIONS = frozenset("not no never none nobody nothing nowhere neither nor".split())
ENDING = frozenset("cancelled canceled quit deleted retired".split())
"""Words that say a thing has ended, as a "no" does ("I cancelled my gym membership"), and
so do the :data:`ENDING_PAIRS` and "stopped" before a verb in -ing ("stopped taking milk");
not after a "no" ("I won't quit")."""
ENDING_PAIRS = {"gave": "up", "broke": "up", "stepped": "down"}
"""Two words that say a thing has ended ("gave up", "we broke up"; not "paid off": "your
dedication paid off", LoCoMo's chat)."""
BEFORE_ING = frozenset(("stopped",))
"""Words of change only before a verb in -ing ("I stopped taking milk", not "chat stopped")."""
IDIOMS = {
    "no": frozenset("idea doubt problem matter worries wonder".split()),
    "not": frozenset("sure only just certain".split()),
    "never": frozenset(("mind",)),
    "n't": frozenset("believe know wait imagine mind worry wonder".split()),
}
"""Words after a "no" that make a saying which denies nothing ("no idea", "not sure", "can't
wait"): the fact beside it is neither said nor denied."""
CHANGE = (
    "now",
    "currently",
    "anymore",
    "any more",
    "no longer",
    "instead",
    "switched",
    "switch to",
    "moved",
    "changed",
    "changing",
    "replaced",
    "upgraded",
    "these days",
    "nowadays",
    "no more",
    "actually",
    "correction",
    "to correct",
    "updated",
    "at the moment",
    "right now",
    "rescheduled",
    "postponed",
    "pushed back",
    "stopped",  # (before a verb in -ing: BEFORE_ING)
    "quick update",
    "promoted",
    "traded",
    "swapped",
    "cancelled",
    "canceled",
    "renamed",
    "migrated",
    "gave up",
    "down to",
    "handed",
    "stepped down",
    "slipped to",
    "dropped to",
    "took over",
)
ADDING = (
    "also", "another", "too", "as well", "in addition", "additionally", "besides", "added a",
    "added an", "added another", "additional", "extra",
)  # fmt: skip
REPLACING = ("instead of", "rather than")
"""Words before what a sentence says it replaced ("tea instead of coffee"). Not "in place of":
"substitute your milk in place of the dairy milk in the recipe" said "place" in place of
"milk" (LongMemEval's dev chat)."""
PEOPLE = frozenset(
    """
    sister brother mom mother dad father wife husband partner friend colleague coworker
    boss son daughter cousin uncle aunt neighbor neighbour roommate grandma grandmother
    grandpa grandfather girlfriend boyfriend niece nephew kid kids child children parents
    manager mentor coach tutor teacher therapist doctor dentist landlord
    """.split()
)
NUMBER_WORDS = frozenset(
    """
    zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen
    fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy
    eighty ninety hundred thousand million once twice thrice half dozen first second third
    fourth fifth sixth seventh eighth ninth tenth single
    """.split()
)
CALENDAR = frozenset(
    """
    monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays
    thursdays fridays saturdays sundays january february march april june july august
    september october november december weekly daily monthly yearly weekend weekends
    morning mornings evening evenings afternoon night nights spring summer autumn fall
    winter
    """.split()
)
MONTHS = frozenset(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
"""A number beside one of these is a day of a date ("October 16th"), not a count."""
SERIES = frozenset(
    """
    chapter lecture day week question episode part step lesson round season page section
    volume unit module verse stage phase level session game problem exercise task item
    sprint iteration milestone bug ticket issue
    """.split()
)
"""A number after one of these names which item of a series a sentence speaks of ("lecture
3", "week 1"): two items are two subjects, not a value that changed ..."""
PROGRESS = frozenset("on at to reached finished completed past through up into".split())
"""... unless the word before it says how far someone got ("I'm on chapter 7")."""
PENDING = tuple(
    "in progress|pending|halfway|waiting|deciding|choosing|considering|thinking of|"
    "thinking about|not sure|undecided|haven't decided|haven't picked|yet to|on the fence|"
    "torn between|searching for|training for|applying for|"
    "saving for|saving up for|still open|still looking|applying to".split("|")
)
"""Words that say something is not settled yet: the memory that settles it updates it ..."""
SETTLED = tuple(
    "finished|complete|completed|approved|accepted|decided|chose|chosen|ended up|booked|"
    "fixed|resolved|closed|got|bought|picked|signed|rejected|declined|named|went with|"
    "settled on|opted|committed|found a|found an|found the|found our|found my|arrived".split("|")
)
"""... by one of these."""
PLACE_AFTER = frozenset("in under at on into inside above behind near beside to".split())
PLACE_IF_NAMED = frozenset("on to".split())  # (a place only before "the", "my", ...)
DETERMINERS = frozenset(
    "a an the my our your his her their its this that some every each all any next last".split()
)
LIGHT = frozenset(
    """
    keep kept live lives lived work works worked play plays played take takes took come came
    see saw seen buy bought eat ate drink drank read watch watched call called stay stayed
    listen listens happen happens lead leads run runs ran visit visited meet met have has had
    put give gave find found feel felt love loved enjoy enjoyed hold held set
    """.split()
)
"""Verbs that say little of what a sentence is about: shared, they count for less."""
STRONG_CHANGE = (
    "no longer", "anymore", "instead", "switched", "moved", "replaced", "changed", "stopped",
    "cancelled", "canceled", "renamed", "migrated", "gave up", "upgraded", "traded", "swapped",
)  # fmt: skip
SWAPPING = frozenset(("traded", "swapped", "exchanged"))
"""Words before what a sentence says it gave up for another ("traded in the Accord for")."""
ORDINALS = tuple("first second third fourth fifth sixth seventh eighth ninth tenth".split())
"""The ordinals written as words, in order (each is its number in :data:`DIGITS`)."""
DIGITS = (
    {
        w: str(i)
        for i, w in enumerate(
            "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
            "fifteen sixteen seventeen eighteen nineteen twenty".split()
        )
    }
    | {"once": "1x", "twice": "2x", "thrice": "3x"}
    | {w: str(i) for i, w in enumerate(ORDINALS, 1)}
)
DIGITS["single"] = "1"

HABIT = frozenset(
    """
    usually normally typically generally always often every daily weekly monthly nightly
    mondays tuesdays wednesdays thursdays fridays saturdays sundays weekends per
    """.split()
)
"""Words that say a routine ("I usually run in the morning", "on Mondays", "per week"); so does
"a" before a unit of time ("one coffee a day", "three times a week") ..."""
ONCE = frozenset("today yesterday tonight".split())
"""... and words that say one occasion ("I had three coffees today"), as do "this" and
"last" before a part of a day or a week ("this morning", "last night", "this week")."""
_RATE_UNITS = frozenset("day week month year night".split())
_OCCASION_UNITS = frozenset("morning afternoon evening night week weekend".split())


def occasion(words: tuple[str, ...]) -> str:
    """Whether a sentence says a routine ("habit"), one occasion ("once"), both or neither
    (""): one day's instance of a routine is no change of it ("I drink one coffee a day",
    "I had three coffees today")."""
    habit = once = False
    for i, word in enumerate(words):
        after = words[i + 1] if i + 1 < len(words) else ""
        if word in HABIT or (word == "a" and after in _RATE_UNITS and i):
            habit = True
        elif word in ONCE or (word in ("this", "last") and after in _OCCASION_UNITS):
            once = True
    return "habit" if habit and not once else "once" if once and not habit else ""


REPORTING = frozenset(
    "say says said claim claims claimed swear swears swore reports reported according".split()
)
"""Words by which a sentence gives what another says ("The blog post says ...", "according
to the docs"), early in it and not after a word of the speaker's ("I said ...")."""
WANTING = frozenset("need needs want wants goal goals aim target hope hoping minimum".split())
"""Words by which a sentence says what is wanted or needed, not what is, before a number
("I need 120 credits to graduate", not "I'm taking 12 credits"; "I need to finish the
meeting" wants no number)."""


def mood(words: tuple[str, ...]) -> str:
    """How a sentence says what it says: "reported" (what another says), "wanted" (a number
    needed or hoped for), or "" (as a fact)."""
    for i, word in enumerate(words[:6]):
        if word in REPORTING and (not i or words[i - 1] not in MINE):
            return "reported"
    for i, word in enumerate(words):
        if word in WANTING and any(
            w[0].isdigit() or w[0] == "$" or w in NUMBER_WORDS for w in words[i + 1 : i + 5]
        ):
            return "wanted"
    return ""


JOINING = frozenset("and but so because since now or then which that".split())
"""Words that end what "instead of" names."""
MINE = frozenset("i i'm i've i'd i'll my me we we've our".split())


_KEEP_S = ("ss", "us", "is")
"""Endings whose final s is no plural (class, bus, this)."""
_ES_AFTER = ("ss", "x", "z", "ch", "sh")
"""What a plural's -es follows ("classes", "boxes", "watches"); after anything else (an e:
"issues", "shoes", "houses") the plural adds an s only."""
_VOWELS = frozenset("aeiou")
_UNDOUBLED = frozenset("bdfgkmnprt")
"""Consonants doubled before -ing and -ed ("running", "stopped", "planned": one of them)."""


@holds_text
@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A word without its plural, possessive, -ing or -ed ending, and without what its
    forms do not share: a final e ("move", "moved", "moving": "mov"; "movie", "movies":
    "movi") and a final y after a consonant ("study", "studies", "studied": "studi"); a
    consonant doubled before the ending once ("running": "run"); a plural in -ings read
    as its -ing ("savings", "saving": "sav"). Cached: a write reads its candidates' words
    again and again."""
    word = word.replace("\u2019", "'").removesuffix("'s")
    size = len(word)
    ending = False
    if size > 4 and word.endswith(("ies", "ied")):
        return word[:-2]  # ("studies", "tried": "studi", "tri")
    if size > 5 and word.endswith("ing"):
        word, ending = word[:-3], True
    elif size > 4 and word.endswith("ed") and not word.endswith("eed"):
        word, ending = word[:-2], True
    elif size > 4 and word.endswith("es") and word[:-2].endswith(_ES_AFTER):
        return word[:-2]  # ("boxes", "watches"; "issues", "houses" lose their s only)
    elif size > 3 and word.endswith("s") and not word.endswith(_KEEP_S):
        word = word[:-1]
        if size > 6 and word.endswith("ing"):  # ("savings", "settings": as "saving")
            word, ending = word[:-3], True
    if ending and len(word) > 2 and word[-1] == word[-2] and word[-1] in _UNDOUBLED:
        return word[:-1]
    if len(word) > 3 and word[-1] == "e":
        return word[:-1]
    if len(word) > 2 and word[-1] == "y" and word[-2] not in _VOWELS:
        return word[:-1] + "i"
    return word


@holds_text
@functools.lru_cache(maxsize=65536)
def subject_stem(word: str) -> str:
    """A word's stem if it may name what a sentence is about, else "" (lower-cased)."""
    return stem(word) if len(word) > 2 and word[0].isalpha() and word not in SKIPPED else ""


def stops(words: tuple[str, ...], at: int) -> bool:
    """Whether the word at ``at`` ("stopped") says the speaker stopped doing something: after
    a word of the speaker's, before a verb in -ing ("I stopped taking milk"; not "Zoom
    stopped working": a thing that broke)."""
    return (
        0 < at < len(words) - 1
        and words[at] in BEFORE_ING
        and words[at - 1] in MINE
        and words[at + 1].endswith("ing")
    )
