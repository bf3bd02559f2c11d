"""Understand a question: what kind of answer it asks for, its key terms, and
the other words documents use for them.

The kind decides what the lead sentence must hold (a number or default for
"how many/how long", a reason for "why", a procedure or code for "how do I");
the key terms decide what it must be about. A term's other spelling
("behaviour"/"behavior") widens the search and counts as a (weaker) match when
sentences are ranked; what the corpus itself abbreviates a word to is learned
from the index (``vocab``), never from a list written for known questions.
Words joined in identifiers are met too: "connection pool" also looks for
``ConnectionPool``.

Pure Python: no Django imports.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from .query import fold, question_terms, related_words, words

# Words that say what kind of fact is wanted rather than what it is about:
# they still rank sentences, but a passage need not contain them to answer.
GENERIC = frozenset(
    """
    default defaults many much long far number value values happen happens happening work works kind type
    does do done get best way need needs want able possible per main usually normally often exactly times
    go goes put puts treat treats take takes
    """.split()
)
# In "how do I create/give/set up X", the verb says a procedure is wanted; the
# example that answers rarely repeats it.
HOWTO_VERBS = frozenset("create give set add build write call apply configure setup make run".split())

_HOWTO = re.compile(
    r"^\s*(how (do|can|should|would) (i|you|we|one)|how to|what is the way to|show me how)\b", re.I
)
_WHY = re.compile(r"^\s*(why|what is the reason|for what reason)\b", re.I)
_AMOUNT = re.compile(
    r"\b(how (many|much|long|far|often|big|large|small)|what (is|are) the (default|maximum|minimum|max|min|size|limit"
    r"|timeout|port|number|delay|interval|width)|(which|what) (port|version|size|timeout|limit|year)"
    r"|(which|what) (?:[\w-]+ )?(length|width)|default|defaults to"
    r"|at most|at least|limit)\b|^\s*when\b",
    re.I,
)
_YESNO = re.compile(r"^\s*(is|are|does|do|can|could|should|will|was|were|has|have)\b", re.I)
# What an "amount" question wants: a duration, a count or size, or a name (a value, a class).
_DURATION = re.compile(
    r"\bhow (long|often|soon)\b|\b(lifetime|ttl|timeout|delay|interval|period|deadline|expir\w*|age)\b", re.I
)
_COUNT = re.compile(
    r"\bhow (many|much|big|large|small|far)\b|\b(number|maximum|minimum|max|min|size|limit|port|width|length|"
    r"largest|smallest|most|least)\b",
    re.I,
)
_YEAR_ASKED = re.compile(r"\b(which|what) year\b|\bwhen was\b", re.I)
# A default asked for in so many words, or as what holds when nothing is given: "… when
# its argument is omitted?", "… if -f is not given?", "… when UMASK is not specified?",
# "… when no suffix is given?"
_DEFAULT = re.compile(
    r"\bdefault(s|ed)?\b|\b(?:when|if)\s+(?:[\w.'’-]+\s+){1,4}?(?:is|are)\s+"
    r"(?:omitted|not\s+(?:given|specified|set|provided|passed|supplied))\b|"
    r"\b(?:when|if)\s+no\s+(?:[\w.'’-]+\s+){1,3}?(?:is|are)\s+(?:given|specified|set|provided|passed|supplied|used)\b",
    re.I,
)


def asks_default(text: str) -> bool:
    """Whether a question asks what something is by default ("… by default?",
    "… when its argument is omitted?")."""
    return _DEFAULT.search(text) is not None


# "out of the box" asks what happens by default
_OUT_OF_THE_BOX = re.compile(r"\bout[- ]of[- ]the[- ]box\b", re.I)
_PARTICLES = frozenset("out up in off back down over".split())
# "re-run", "thread-sensitive": a hyphenated word is also searched written as one
_HYPHENATED = re.compile(r"\b([A-Za-z]+)-([A-Za-z]+)\b")


@dataclass(frozen=True, slots=True)
class Question:
    text: str
    kind: str  # howto, why, amount, yesno, fact
    terms: list[str]  # the question's content words, folded, in order
    key: list[str]  # the terms a passage must be about (GENERIC words aside)
    expansions: dict[str, frozenset[str]] = field(default_factory=dict)  # term -> other words for it
    joined: list[str] = field(default_factory=list)  # adjacent terms as one identifier
    wants: str = ""  # for an amount: "duration", "year", "count" or "name"
    default: bool = False  # asks what something is by default
    learned: dict[str, frozenset[str]] = field(default_factory=dict)  # term -> abbreviations the corpus uses
    measured: str = ""  # what "how many/much X" counts or "which X" names: X's head noun, when a key term
    counts: bool = False  # "how many/much": the lead's number must be about ``measured``
    qualifier: str = ""  # the key term before ``measured`` that says which kind ("encryption" algorithm)
    verb: str = ""  # "How long does an access token live?": the verb after the subject, a key term


# "Which values can LogLevel take?", "Which ignore files does --exclude-vcs-ignores
# read?", "In what units can the amount be given?": a plural asked for, a list of them
_ASKS_LIST = re.compile(
    r"^\s*(?:in\s+)?(?:which|what)\s+(?:[\w-]+\s+){0,2}?"
    r"(?!(?:this|does|was|has|its|yes)\b)[a-z][\w-]*(?<![sui])s\s+"
    r"(?:can|could|may|might|does|do|will|would|is|are)\b",
    re.I,
)


def wants_of(text: str, kind: str) -> str:
    """What an amount question's answer must hold: a duration (a number with
    a unit of time), a year, a count or size (a number), or a name (a value);
    a question asking which values, files or signals something takes: a list."""
    if kind in ("fact", "amount") and _ASKS_LIST.search(text) and not _YEAR_ASKED.search(text):
        return "list"
    if kind != "amount":
        return ""
    if _YEAR_ASKED.search(text):
        return "year"
    if _DURATION.search(text):
        return "duration"
    if _COUNT.search(text):
        return "count"
    return "name"


# "how many", "which port": an amount asked inside a yes/no question's words
_ASKS_VALUE = re.compile(r"\b(how (many|much|long|far|often|big|large|small)|which|what)\b", re.I)


# "What does less do with long lines by default?": a behaviour asked for, not a value
_ASKS_BEHAVIOUR = re.compile(r"^\s*what (?:does|do|did|will|would) (?:[\w.'’-]+ ){1,4}?do\b", re.I)


# A question may open with its setting before what it asks: "In anyio, how do I …?",
# "With pluggy, does …?", "If AsyncResult.get() times out, does …?"
_SETTING_CLAUSE = re.compile(
    r"^\s*(?:in|with|for|using|on|under|if|when|once|after)\s+(?:[^\s,?]+\s+){0,11}?[^\s,?]+,\s*", re.I
)


def kind_of(text: str) -> str:
    text = _SETTING_CLAUSE.sub("", text, count=1)
    if _HOWTO.search(text):
        return "howto"
    if _WHY.search(text):
        return "why"
    if _ASKS_BEHAVIOUR.search(text):
        return "fact"
    if _YESNO.search(text) and not _ASKS_VALUE.search(text):
        # "Is X enabled by default?" asks yes or no, not for an amount: its
        # answer is a flag or a sentence, not a number
        return "yesno"
    if _AMOUNT.search(text):
        return "amount"
    if _YESNO.search(text):
        return "yesno"
    return "fact"


# A count may open with the preposition its answer takes: "Into how many
# languages …", "After how many days …" (not "In which units …": the answer
# names a unit, "kilobytes", more often than it says "units").
_LEADING_PREPOSITION = (
    r"(?:(?:in|into|after|before|for|on|at|from|to|by|with|under|since|until|within|during) )?"
)
# "How many active connections may …", "Which compression level does …": the
# words of what is counted or named run to the verb.
_MEASURED = re.compile(
    r"^\s*(?:" + _LEADING_PREPOSITION + r"how (?:many|much)|which|what) "
    # "What does less do …?" names no X: the verb's subject follows its auxiliary
    r"(?!(?:does|do|did|is|are|was|were|may|can|could|will|would|should|must|has|have)\b)"
    r"((?:[\w/-]+ ){0,3}?[\w/-]+) "
    r"(?:does|do|did|is|are|was|were|may|can|could|will|would|should|must|has|have)\b",
    re.I,
)
# "What is the default font size of less?": what is asked for is named before "of"/"in"
_MEASURED_OF = re.compile(
    r"^\s*what (?:is|are) the (?:(?:default|maximum|minimum|largest|smallest) )?((?:[\w/-]+ ){0,2}?[\w/-]+),? "
    r"(?:of|in|for|on)\b",
    re.I,
)
_COUNTS = re.compile(r"\s*" + _LEADING_PREPOSITION + r"how (?:many|much)\b", re.I)


def measured_of(text: str, key: list[str]) -> tuple[str, str]:
    """The head noun of what "how many/much X …?" counts or "which X …?" names
    ("connections" of "how many active connections may …", "level" of "which
    compression level does …"): its last word that is a key term; else "".
    And the key term just before it that says which kind of X ("compression"),
    else ""."""
    found = _MEASURED.search(text) or _MEASURED_OF.search(text)
    if not found:
        return "", ""
    head = words(re.split(r"\s+of\s+", found.group(1))[0])  # "bits of randomness": bits
    at = next((i for i in range(len(head) - 1, -1, -1) if head[i] in key), -1)
    if at < 0:
        return "", ""
    qualifier = head[at - 1] if at > 0 and head[at - 1] in key else ""
    return head[at], qualifier


# British and American spellings: "recognise" is "recognized" in click's docs.
_SPELLINGS = (
    ("isation", "ization"),
    ("ise", "ize"),
    ("ised", "ized"),
    ("ises", "izes"),
    ("ising", "izing"),
    ("our", "or"),
    ("ours", "ors"),
    ("tre", "ter"),
    ("lled", "led"),
    ("lling", "ling"),
)


def spellings(word: str) -> frozenset[str]:
    """The other spelling of ``word`` ("recognise" → "recognize", "behaviour" →
    "behavior", and back), empty for most words."""
    found = set()
    if len(word) >= 6:
        for british, american in _SPELLINGS:
            for a, b in ((british, american), (american, british)):
                if (
                    word.endswith(a)
                    and not (len(b) > len(a) and word.endswith(b))
                    and len(word) - len(a) >= 3
                ):
                    found.add(word[: -len(a)] + b)
    return frozenset(found)


def analyze(question: str) -> Question:
    """The kind, terms, key terms and expansions of the question ``question``."""
    text = _OUT_OF_THE_BOX.sub("by default", question)
    folded = words(text)
    terms = question_terms(text)
    # a two-letter part of a hyphenated name ("py" of redis-py, "dj", "re" of re-run) says
    # little about what a passage is about; a two-letter word of its own ("IP", "DB") does
    kind = kind_of(text)
    generic = GENERIC | HOWTO_VERBS if kind == "howto" else GENERIC
    parts = {fold(w) for pair in _HYPHENATED.findall(text) for w in pair if len(w) <= 2}
    parts |= {fold(w) for w in re.findall(r"\b(\w{1,2})[-_]\w", text)}
    # "Python-Markdown", "python-dotenv": "python" in a project's name says as little
    named_python = {"python"} & {fold(w) for pair in _HYPHENATED.findall(text) for w in pair}
    key = [
        t
        for t in terms
        if t not in generic and t not in named_python and (len(t) > 2 or t.isdigit() or t not in parts)
    ] or list(terms)
    expansions: dict[str, frozenset[str]] = {}
    for term in terms:
        # the words reports use for the same aspect ("fixed" ~ "actions"), the other spelling
        others = related_words(term) | spellings(term)
        if others:
            expansions[term] = frozenset(w for w in others if " " not in w)
    # Identifiers join words: "keep … alive" is ``keepalive``, "connection pool" ``ConnectionPool``.
    joined = [
        a + b
        for i, a in enumerate(terms)
        for b in terms[i + 1 : i + 4]
        if a.isalpha() and b.isalpha() and len(a) > 2 and len(b) > 2
    ]
    # "fan out" is ``fanout``, "set up" ``setup``: a verb and its particle are one identifier
    joined += [a + b for a, b in itertools.pairwise(folded) if b in _PARTICLES and a in terms and len(a) > 2]
    for first, second in _HYPHENATED.findall(text):
        joined.append(fold(first + second))
    measured, qualifier = measured_of(text, key)
    return Question(
        question,
        kind,
        terms,
        key,
        expansions,
        joined,
        wants_of(text, kind),
        asks_default(text),
        measured=measured,
        qualifier=qualifier,
        counts=bool(_COUNTS.match(text)),
        verb=verb_of(text, key),
    )


# "How long does an access token live?", "When did the job fail?": after a
# question word and an auxiliary, the subject runs to the last word, the verb.
_VERB_LAST = re.compile(
    r"^\s*(?:how(?:\s+\w+)?|when|where|why|what|which)\s+(?:do|does|did|can|could|will|would|should)\s+"
    r"(?:\w[\w.-]*\s+){2,5}([A-Za-z]+)\s*\?*\s*$",
    re.I,
)


def verb_of(text: str, key: list[str]) -> str:
    """The verb a question ends with after its subject, when the subject keeps
    two key terms without it: the word a person is likeliest to say differently
    from the text ("live" for "expires"), so it weighs less than the subject's."""
    found = _VERB_LAST.match(text)
    if not found:
        return ""
    verb = fold(found.group(1))
    return verb if verb in key and len(key) >= 3 else ""


# "… of a websockets client and the default max_retries of a Celery task?",
# "… heading style and Python-Markdown's default file encoding?", ", and how
# much …", ", and does …": where a question asks a second thing. Only before a
# determiner, a possessive or a question word (or, after a comma, a yes/no
# question's verb), so "pytest and asgiref" stays one subject.
_SECOND_PART = re.compile(
    r",?\s+(?:(?:and|versus|vs\.?)\s+(?=(?:the|a|an|its|their|how|what|which|when|why|where|[\w-]+['’]s)\b)"
    r"|with\s+(?=(?:how|what|which)\b))"
    # ", and does a kombu Producer compress …?": after a comma, a yes/no question's verb
    r"|,\s+and\s+(?=(?:is|are|does|do|did|can|could|should|will|would|was|were|has|have)\b)",
    re.I,
)


def parts_of(text: str) -> list[str]:
    """The two questions a question asks in one ("What is A's X and B's
    Y?"), or ``[text]``: each part must have two key terms of its own."""
    found = list(_SECOND_PART.finditer(text))
    if len(found) != 1:
        return [text]
    first, second = text[: found[0].start()].strip(), text[found[0].end() :].strip()
    if len(analyze(first).key) < 2 or len(analyze(second).key) < 2:
        return [text]
    if not first.endswith("?"):
        first += "?"
    return [first, second]
