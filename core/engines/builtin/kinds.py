"""What kind of fact a passage states, against what the question asks for.

"How long …?" wants a number with a unit of time, "how many" a number,
"which year" a year, "what … by default" a value stated as the default
("defaults to", "(default: 2 weeks)", ``NAME = literal`` in code), "why" a
reason, "how do I" code or a procedure. A passage that holds the kind of
answer asked for ranks above one that only mentions the thing.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re

from .passages import DECLARED, DEF_LINE, LITERAL, Passage, parameter_defaults, signature_of
from .query import light_stem, words
from .question import Question


class Screened:
    """A pattern searched only in text that may hold it: every match holds one
    of ``needles`` (a needle that is a tuple: all of its parts), so text holding
    none of them has no match, told by plain substring searches much cheaper
    than the pattern's. A case-insensitive pattern is screened in ASCII text
    only (its needles lower-cased), where ignoring case is lower-casing;
    elsewhere Unicode folds other letters to ASCII ones (the long s matches
    "s"), and the pattern itself is searched."""

    __slots__ = ("_folds", "_together", "needles", "pattern")

    def __init__(self, pattern: re.Pattern[str], needles: tuple[str | tuple[str, ...], ...]) -> None:
        self.pattern = pattern
        self.needles = tuple(n for n in needles if isinstance(n, str))
        self._together = tuple(n for n in needles if not isinstance(n, str))
        self._folds = bool(pattern.flags & re.IGNORECASE)

    def search(self, text: str) -> re.Match[str] | None:
        if self._folds:
            if not text.isascii():
                return self.pattern.search(text)
            text_ = text.lower()
        else:
            text_ = text
        for needle in self.needles:
            if needle in text_:
                return self.pattern.search(text)
        for parts in self._together:
            if all(part in text_ for part in parts):
                return self.pattern.search(text)
        return None


NUMBER = re.compile(r"\d|``[^`]+``|\b(?:true|false|none|null)\b", re.I)
DIGITS = Screened(
    re.compile(
        r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|hundred|thousand|unlimited|"
        r"infinite|never|forever)\b|\bno (?:limit|maximum)\b",
        re.I,
    ),
    (
        *"0123456789",
        *"one two three four five six seven eight nine ten twelve twenty hundred thousand".split(),
        *"unlimited infinite never forever".split(),
        "no ",
    ),
)
YEAR = re.compile(r"\b(?:1[89]|20)\d\d\b")
TIME_UNIT = re.compile(
    r"\d\s*(?:ms|s|sec|secs|m|h|d)\b|\b(?:milliseconds?|seconds?|minutes?|hours?|days?|weeks?|months?|years?|"
    r"timedelta|never|forever)\b",
    re.I,
)
QUOTED = re.compile(r"'[^'\n]+'|\"[^\"\n]+\"")
# …and in prose, the quoted value a default is: "Default: 'codehilite'.", "defaults to "w+b""
# (a name has a letter: "(default: '*')" is a pattern)
DEFAULT_QUOTED = re.compile(
    r"\bdefaults?(?::|\s+(?:is|to|value\s+is))\s*(?:'[^'\n]*[a-z][^'\n]*'|\"[^\"\n]*[a-z][^\"\n]*\")", re.I
)
# …and a file's path names one: "The default state file is /var/lib/logrotate/status."
NAME = re.compile(
    r"``[^`]+``|:\w+:`[^`]+`|`[^`]+`|\b[A-Z][a-z]+[A-Z]\w*|\b[A-Z]{2,}\b|\d|(?<![\w/])~?/[\w.-]+/[\w./-]*\w"
)
# A sentence that states what something is by default (a definition, not a
# mention); "it will follow Django's default of ``0``", "if you do not provide
# a value, …" say it too.
STATES_DEFAULT = Screened(
    re.compile(
        # (wrapped anywhere too: "(defaults\n        to ``utf-8``)" in a docstring)
        r"\bdefaults?\s+(?:to|is|are|value\s+is|values\s+are|of)\b|\(default(?::[^)]*)?\)|\bby default\b|"
        r"\b(?:the\s+)?default\s+(?:[\w-]+\s+){0,4}(?:is|are)\b|\bdefaults?:\s*\S|"
        # a manual wraps its lines anywhere: "If\n           not specified, 0 will be assumed"
        r"\bif\s+(?:you\s+)?(?:do\s+not|don't|not|none\s+is|nothing\s+is)\s+(?:\w+\s+){0,2}?"
        r"(?:provided?|given|give|set|specified|specify|passed|pass|supplied|configured)\b|"
        r"\bwhen\s+(?:omitted|not\s+(?:set|given|provided|specified))\b",
        re.I,
    ),
    (
        "default",
        # a condition is a negative one ("do not", "don't", "none is", "nothing is") or "when omitted"
        *((cond, negation) for cond in ("if ", "if\n") for negation in ("not", "n't", "none")),
        *((cond, negation) for cond in ("when ", "when\n") for negation in ("not", "omitted")),
    ),
)
# "… the same as the default value": a mention of a default, weaker than a statement of one.
MENTIONS_DEFAULT = Screened(re.compile(r"\bdefault\s+value\b", re.I), ("default",))
# In code, a name set to a literal states its default: ``max_retries = 3``.
LITERAL_SET = re.compile(r"^\s*[A-Za-z_]\w*\s*(?::[^=\n]+)?=\s*" + LITERAL + r"\s*,?\s*(?:#.*)?$", re.M)
# ``exc_type: type[ImportError] | None = None,``: a parameter left unset, whose
# real default the documentation explains.
UNSET_PARAMETER = re.compile(r"\s*\w+\s*(?::[^=\n]+)?=\s*None\s*,\s*(?:#.*)?$")
NAME_SET = re.compile(r"\s*([A-Za-z_]\w*)\s*(?::[^=\n]+)?=")
CAUSE = re.compile(
    r"\b(because|since(?!\s*[,.;:)]|\s*$)|so that|in order to|reason|reasons|due to|as it|as they|otherwise|this means|"
    r"which means|to avoid|to prevent|to keep|to make|so it|so you|so we|safety|for performance|"
    r"for safety|not safe|unsafe|would|could|thanks to)\b",
    re.I,
)
# A command-line option at the start of a passage: a manual's definition-list entry
# ("-c, --cookie-jar <filename> Specify to which file …") names what to run.
OPTION_ENTRY = re.compile(r"\s*(?:[-*]\s+)?`{0,2}(?:--?[A-Za-z][\w.-]*|-\d(?=,\s*--\w))")
_SIGNATURE = re.compile(r"\b(?:def|class)\s+\w+\s*(?:\[[^\]]*\])?\s*$")
_SCAN_BACK = 2000


def in_call(text: str, pos: int) -> bool:
    """Whether ``pos`` is inside the arguments of a call (``config(conn_max_age=600,``),
    not a ``def``'s or ``class``'s parameters: a keyword argument passed in an
    example is not the parameter's default."""
    depth = 0
    start = max(0, pos - _SCAN_BACK)
    i = pos
    while True:
        close, open_ = text.rfind(")", start, i), text.rfind("(", start, i)
        if open_ < 0:
            return False
        if close > open_:
            depth += 1
            i = close
            continue
        if depth:
            depth -= 1
            i = open_
            continue
        line = text[text.rfind("\n", 0, open_) + 1 : open_]
        return not _SIGNATURE.search(line)


def asks_parameter(names: list[str], q: Question) -> bool:
    """Whether one of the parameters ``names`` is what ``q`` asks about: most of its name's
    words are the question's (``max_buffer_size`` for "the default max_buffer_size of …")."""
    terms = {light_stem(t) for t in q.terms}
    for name in names:
        parts = [light_stem(w) for w in name.lower().split("_") if w]
        if parts and 2 * sum(w in terms for w in parts) >= len(parts):
            return True
    return False


def states_literal(passage: Passage, body: str, text: str, q: Question) -> bool:
    """A code passage that sets a name to a literal where it is defined (a
    setting, a signature's parameter), not left ``None`` nor passed in a call."""
    if not passage.code or UNSET_PARAMETER.match(body):
        return False
    if any(DECLARED.match(line) for line in body.split("\n")):
        return True
    if "\n" not in body and parameter_defaults(body):
        return True
    if "\n" in body and DEF_LINE.match(body) and asks_parameter(parameter_defaults(signature_of(body)), q):
        return True  # a signature written over several lines gives the parameter asked about a literal
    return any(not in_call(text, passage.start + m.start()) for m in LITERAL_SET.finditer(body))


# A list of values: "QUIET, FATAL, ERROR, INFO … and DEBUG3", "never, always, or auto",
# ".cvsignore, .gitignore, .bzrignore, and .hgignore"; "Valid options are: md5 and sha256".
ENUMERATION = Screened(
    re.compile(
        r"[\w.~/-]+(?: [\w.~/()-]+){0,5}, [\w.~/-]+(?: [\w.~/()-]+){0,5},? (?:and|or) [\w.~/-]+|"
        r"\b(?:are|include|is one of)\b:?\s*[\w.~/'\"-]+(?:,\s*[\w.~/'\"-]+)*,?\s+(?:and|or)\s+[\w.~/'\"-]+|"
        r"\b(?:one|any) of\b|:\s*\S+(?:, \S+)+",
        re.I,
    ),
    (", ", "are", "include", "one of", "any of"),
)


def kind_fit(
    q: Question, passage: Passage, body: str, follow: tuple[int, Passage] | None, text: str
) -> tuple[bool, float]:
    """Whether the passage holds what the question's kind asks for, and the bonus for it."""
    if q.wants == "list":
        # which values, files or signals: the passage that lists them, not the one naming the setting
        # (a passage listing none may still answer: "only Redis and RabbitMQ are feature complete")
        bonus = 0.2 if ENUMERATION.search(body) else 0.0
        if q.default and (STATES_DEFAULT.search(body) or states_literal(passage, body, text, q)):
            bonus += 0.1
        return True, bonus
    if q.kind == "amount":
        if q.wants == "name":
            # in code a quoted string names a value too: ``default_queue=Option('celery')``
            ok = bool(
                NAME.search(body)
                or NUMBER.search(body)
                or (QUOTED.search(body) if passage.code else DEFAULT_QUOTED.search(body))
            )
            bonus = 0.1 if ok else -0.1
        elif q.wants == "year":
            ok = bool(YEAR.search(body))
            bonus = 0.15 if ok else -0.15
        else:
            ok = bool(DIGITS.search(body))
            bonus = 0.15 if ok else -0.15
            if ok and q.wants == "duration" and TIME_UNIT.search(body):
                bonus += 0.1
        if q.default and (STATES_DEFAULT.search(body) or states_literal(passage, body, text, q)):
            bonus += 0.2
        elif q.default and MENTIONS_DEFAULT.search(body):
            bonus += 0.1
        return ok, bonus
    if q.default and (STATES_DEFAULT.search(body) or states_literal(passage, body, text, q)):
        return True, 0.15
    if q.default and MENTIONS_DEFAULT.search(body):
        return True, 0.075
    if q.kind == "yesno" and _ASKS_POSSIBLE.match(q.text):
        # "Can I call a hook with positional arguments?": what may or may not be done
        # answers it ("Only accepts keyword arguments", "cannot have a historic … hook")
        return True, (0.1 if _STATES_POSSIBLE.search(body) else 0.0)
    if q.kind == "why":
        ok = bool(CAUSE.search(body))
        return ok, 0.25 if ok else -0.1
    if q.kind == "howto":
        if passage.code:
            return True, 0.1
        leads_to_code = follow is not None
        if not leads_to_code and OPTION_ENTRY.match(body):
            # an option's entry is the procedure a manual gives (use this option); it
            # holds what a how-to asks for, though it scores no more for it
            return True, 0.0
        return leads_to_code, 0.15 if leads_to_code else 0.0
    return True, 0.0


# A yes/no question asking whether something can be done, and a passage saying what may be.
_ASKS_POSSIBLE = re.compile(
    r"^\s*(?:(?:in|with|for|using|on)\s+[^,?]{1,60},\s*)?(?:can|could|may|is it possible)\b", re.I
)
_STATES_POSSIBLE = re.compile(
    r"\b(?:can(?:not|'t)?|could(?:n't)?|may(?: not)?|must(?: not)?|only|never|not (?:allowed|possible|supported))\b",
    re.I,
)


# A parameter's entry in its documentation: ":param ignore_unknown_options:",
# "limit (int):", "``decode_responses``:" — where a name is defined, not mentioned.
_PARAMETER_ENTRY = re.compile(
    r":param\s+(?:[\w\[\], .|]+\s+)?(\w+):|"  # :param ignore_unknown_options:
    r"^\s*(?:[-*]\s+)?`{0,2}([A-Za-z]\w*)`{0,2}\s*\([^)\n]*\)\s*:(?!:)|"  # limit (int):
    r"^\s*(?:[-*]\s+)?`{0,2}([A-Za-z]\w*_\w+)`{0,2}\s*:(?!:)",  # ``decode_responses``: (a name, not a word)
    re.M,
)


def _asked_stems(q: Question) -> set[str]:
    asked = {light_stem(t) for t in q.terms}
    for others in (*q.expansions.values(), *q.learned.values()):
        asked |= {light_stem(w) for w in others}
    return asked


def _share(name: str, asked: set[str]) -> float:
    parts = [light_stem(w) for w in words(name) if len(w) > 1]
    if not parts:
        return 0.0
    return sum(p in asked or any(len(p) >= 4 and a.startswith(p) for a in asked) for p in parts) / len(parts)


def identifier_share(body: str, q: Question) -> float:
    """The share of the words of the parameter a passage documents that the
    question asks with: "make click ignore options it does not recognise" is
    most of ``:param ignore_unknown_options:`` — an option named for what the
    how-to asks to do. 0 for a passage that documents no parameter (a mention
    such as ``Redis(connection_pool=pool)`` is not one)."""
    found = _PARAMETER_ENTRY.match(body)
    return _share(next(g for g in found.groups() if g), _asked_stems(q)) if found else 0.0


def defined_name_share(body: str, q: Question) -> float:
    """For a line of code that defines a name (``TIME_ZONE = …``,
    ``ping_interval: float = 20,``), the share of the name's words the question
    asks about: ``FILE_UPLOAD_PERMISSIONS`` is all of "permissions … uploaded
    files", ``FILE_UPLOAD_DIRECTORY_PERMISSIONS`` is not. 0 for anything else."""
    lines = [line for line in body.strip().split("\n") if not line.lstrip().startswith("#")]
    if len(lines) != 1:  # the comment above a setting says what it is; the name is on its one line
        return 0.0
    found = NAME_SET.match(lines[0])
    if not found:
        return 0.0
    return _share(found.group(1), _asked_stems(q))
