"""Choose what an answer quotes, and whether its lead answers at all.

``pick`` keeps the lead and up to five distinct supporting passages; ``answers``
says whether the lead may be presented as the answer (it comes from the project
named, it covers enough of the question, it holds what a "how many" asks for and
is about what a "which X" names). A key term found nowhere in the content does
not veto it when it is one of the user's own words ("afterwards", "root"): the
lead then needs to cover the terms the content does hold. A name the question
writes as one (capitalised inside the sentence, with a digit or an underscore:
"Kubernetes", "NTFS", "v2", "max_age") that is nowhere is the subject missing,
and declines.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re

from .claims import Claim
from .query import fold, light_stem
from .question import Question

MAX_CLAIMS = 6
MAX_PER_FILE = 3
# Below this share of the key terms the best passage is not taken as an answer.
DECLINE_BELOW = 0.43
# A "which X …?" lead without X is declined below this coverage (a "how many X" one always).
NAMED_HEAD_COVERAGE = 0.6
# At most this many of the user's words may be found nowhere (and fewer than half the key terms).
MAX_ABSENT = 2
# A lead over the terms the content holds, when some are nowhere, covers at least this share.
ABSENT_COVERAGE = 0.6


# A command-line option as a question or a manual writes it: "--retry", "-xdev", "--max-time=SECONDS".
_OPTION = re.compile(r"(?<![\w-])--?[A-Za-z][\w.]*(?:-[\w.]+)*")
# What follows an option in its entry's first line: "<seconds>", "[=FORMAT]", "SECONDS", ","
_OPTION_ARGUMENT = re.compile(r"[<\[=|]|[A-Z][A-Z_]*,?$|,$")


def options_in(text: str) -> frozenset[str]:
    """The command-line options ``text`` names."""
    return frozenset(_OPTION.findall(text))


def entry_options(claim: Claim) -> frozenset[str]:
    """The options whose definition-list entry ``claim`` is: the term it is shown
    with, or the options that open it ("-m, --max-time <seconds> Maximum time …");
    empty for a passage that is no option's entry."""
    if claim.term:
        return options_in(claim.term)
    found = set()
    for word in claim.sentence.split():
        # "--partial-dir=DIR", "--info=FLAGS,": the option without its argument
        option = _OPTION.fullmatch(re.split(r"[=\[]", word.rstrip(","), maxsplit=1)[0])
        if option:
            found.add(option.group())
        elif not _OPTION_ARGUMENT.match(word):
            break
    return frozenset(found)


def _name_words(option: str) -> set[str]:
    return {light_stem(w) for w in re.split(r"[-_.]+", option.lower()) if len(w) > 1}


# "curl's retry delay option", "the -name test", "find's prune action": the words naming an option
_NAMED_AS = re.compile(
    r"(?:['’]s|\bthe|\ban?)\s+((?:[\w-]+\s+){0,2}?[\w-]+)\s+(?:option|flag|switch|test|action|directive)s?\b",
    re.I,
)


# "What does --retry do?", "What is curl's --fail option for?": the option is what is asked about
_OPTION_SUBJECT = re.compile(
    r"^\s*(?:what|how)\s+(?:does|do|is|are|did)\s+(?:[\w'’.-]+\s+){0,3}?(--?[A-Za-z][\w.-]*)(?=[\s?]|$)", re.I
)
_OPTION_WORD = r"\s+(?:option|flag|switch|test|action|directive)s?\b"


def option_asked(question: str) -> tuple[frozenset[str], frozenset[str]]:
    """The options a question asks about, as its subject: the ones it writes
    before "option" ("curl's --retry option") or right after "what does" ("What
    does -prune do?"), else the words it names one with ("curl's retry delay
    option": retry, delay), stemmed as ``_name_words`` stems an option's name.
    An option written as the context of another question ("How many redirects
    … with --location?", "an alternate name for -xdev") is not asked about."""
    written = frozenset(
        found for found in options_in(question) if re.search(re.escape(found) + _OPTION_WORD, question)
    )
    subject = _OPTION_SUBJECT.match(question)
    if subject:
        written |= {subject.group(1)}
    if written:
        return written, frozenset()
    if options_in(question):
        return frozenset(), frozenset()
    found = _NAMED_AS.search(question)
    if not found:
        return frozenset(), frozenset()
    return frozenset(), frozenset(
        light_stem(fold(w)) for w in re.split(r"[\s_-]+", found.group(1)) if len(w) > 1
    )


def is_asked_entry(defines: str, written: frozenset[str], named: frozenset[str]) -> bool:
    """Whether the definition-list entry of ``defines`` (its term: "-m, --max-time
    <seconds>") is the option asked about: one of the options written, or the one
    whose name is the words named, all of them and no more (not a sibling:
    ``--retry-delay`` for "the retry option")."""
    own = options_in(defines)
    if not own:
        return False
    if written:
        return bool(own & written)
    return bool(named) and any(_name_words(option) == named for option in own)


def states_the_option_asked(question: str, lead: Claim) -> bool:
    """Whether the lead is about the option the question asks about, as far as
    a manual shows it. A question naming options ("What does --retry do?") needs
    the entry of one of them, or a passage naming one that is no other option's
    entry: the entry of ``--retry-delay`` names "retry", "delay" and even
    "--retry", every key term, yet not what was asked. A question naming none
    ("What does the retry option do?") is not about an entry whose name only
    shares some of its words (a sibling: ``--retry-delay``, ``--retry-max-time``)."""
    asked = options_in(question)
    own = entry_options(lead)
    if asked:
        if own:
            return bool(own & asked)
        return bool(options_in(f"{lead.sentence}\n{lead.code or ''}") & asked)
    if not own:
        return True
    words = {light_stem(fold(w)) for w in re.findall(r"\w+", question)}
    names = [_name_words(option) for option in own]
    shares = any(name & words for name in names)
    return not shares or any(name <= words for name in names)


def names_in(text: str) -> frozenset[str]:
    """The folded words ``text`` writes as names: capitalised anywhere but its
    first word, or holding a digit or an underscore."""
    found = set()
    for n, match in enumerate(re.finditer(r"[\w.-]*\w", text)):
        word = match.group()
        if any(c.isdigit() or c == "_" for c in word) or (n and any(c.isupper() for c in word)):
            found.update(fold(part) for part in re.split(r"[^\w]+|_", word) if part)
            found.add(fold(word))
    return frozenset(found)


def pick(claims: list[Claim]) -> list[Claim]:
    """The lead and up to five distinct supporting passages, three per file,
    none far weaker than the lead unless it holds a term no kept one does."""
    if not claims:
        return []
    floor = claims[0].score * 0.6
    picked: list[Claim] = []
    covered: set[str] = set()
    per_file: dict[str, int] = {}
    per_aspect: dict[str, int] = {}
    spans: list[tuple[str, int, int]] = []
    for claim in claims:
        if per_file.get(claim.path, 0) >= MAX_PER_FILE:
            continue
        if any(p == claim.path and a <= claim.line_end and claim.line_start <= b for p, a, b in spans):
            continue  # overlaps a kept passage
        new_aspect = any(per_aspect.get(a, 0) < 2 for a in claim.aspects)
        if picked and claim.score < floor and claim.terms <= covered and not new_aspect:
            continue
        for a in claim.aspects:
            per_aspect[a] = per_aspect.get(a, 0) + 1
        covered |= claim.terms
        per_file[claim.path] = per_file.get(claim.path, 0) + 1
        spans.append((claim.path, claim.line_start, claim.line_end))
        picked.append(claim)
        if len(picked) == MAX_CLAIMS:
            break
    return picked


def answers(q: Question, picked: list[Claim], absent: list[str]) -> bool:
    """Whether the lead may be presented as the answer: every key term occurs
    in the sandbox, the lead comes from the project the question names (if it
    names one), and covers enough of the key terms — or, for a question
    in two parts, the lead and the next passage together cover most of them."""
    if not picked:
        return False
    lead = picked[0]
    coverage = lead.coverage
    # a word the index has no entry for may still be in the lead, inside a compound ("libcurl")
    absent = [t for t in absent if t in lead.missing]
    if absent:
        if len(absent) > MAX_ABSENT or 2 * len(absent) >= len(q.key) or set(absent) & names_in(q.text):
            return False
        coverage = lead.seen_coverage
        if coverage < ABSENT_COVERAGE or not lead.answers_kind:
            return False
    if lead.off_project:
        return False  # a fact about another project is not the answer about the one asked about
    if q.wants in ("count", "duration", "year") and not lead.answers_kind:
        return False  # "how many/how long/which year" and the lead states no number
    if q.measured and q.measured in lead.missing:
        # "how much memory …?" and the lead's number is not about memory; "which
        # compression level …?" and a lead about little else of the question either
        if q.counts or coverage < NAMED_HEAD_COVERAGE:
            return False
    if coverage >= DECLINE_BELOW:
        return True
    if len(picked) < 2 or coverage < 0.3 or not q.key:
        return False
    both_miss = set(lead.missing) & set(picked[1].missing) - set(absent)
    return 1 - len(both_miss) / (len(q.key) - len(absent)) >= 0.75
