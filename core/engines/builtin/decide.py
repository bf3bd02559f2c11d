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
from .query import fold
from .question import Question

MAX_CLAIMS = 6
MAX_PER_FILE = 3
# A passage scoring at least this share of the lead's is quoted even past its file's three:
# the limit keeps weak passages of one file from crowding out others, not strong ones.
STRONG_SHARE = 0.75
# Below this share of the key terms the best passage is not taken as an answer.
DECLINE_BELOW = 0.43
# A "which X …?" lead without X is declined below this coverage (a "how many X" one always).
NAMED_HEAD_COVERAGE = 0.6
# At most this many of the user's words may be found nowhere (and fewer than half the key terms).
MAX_ABSENT = 2
# A lead over the terms the content holds, when some are nowhere, covers at least this share.
ABSENT_COVERAGE = 0.6


def names_in(text: str) -> frozenset[str]:
    """The folded words ``text`` writes as names: capitalised anywhere but its
    first word, holding a digit or an underscore, or a command-line option ("--spellcheck")."""
    found = set()
    for n, match in enumerate(re.finditer(r"[\w.-]*\w", text)):
        word = match.group()
        # "--spellcheck": an option is a name however it is spelt
        dashed = word.startswith("-") and (n == 0 or text[match.start() - 1] in " \t(\"'`")
        if dashed or any(c.isdigit() or c == "_" for c in word) or (n and any(c.isupper() for c in word)):
            found.update(fold(part) for part in re.split(r"[^\w]+|_", word) if part)
            found.add(fold(word))
    return frozenset(found)


def pick(claims: list[Claim]) -> list[Claim]:
    """The lead and up to five distinct supporting passages, three per file
    (more when nearly as strong as the lead), none far weaker than the lead
    unless it holds a term no kept one does."""
    if not claims:
        return []
    floor = claims[0].score * 0.6
    picked: list[Claim] = []
    covered: set[str] = set()
    per_file: dict[str, int] = {}
    per_aspect: dict[str, int] = {}
    spans: list[tuple[str, int, int]] = []
    for claim in claims:
        if per_file.get(claim.path, 0) >= MAX_PER_FILE and claim.score < STRONG_SHARE * claims[0].score:
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
    if q.measured and q.measured in absent:
        return False  # "which dashboard …?" and no indexed file mentions a dashboard
    if absent:
        if len(absent) > MAX_ABSENT or 2 * len(absent) >= len(q.key) or set(absent) & names_in(q.text):
            return False
        coverage = lead.seen_coverage
        if (coverage < ABSENT_COVERAGE and not lead.asked_entry) or not lead.answers_kind:
            return False  # (the entry asked about: below)
    if lead.off_project:
        return False  # a fact about another project is not the answer about the one asked about
    if lead.asked_entry and lead.answers_kind:
        # the entry of the option or directive the question names is what was asked,
        # however few of the user's other words it repeats ("In which units can
        # logrotate's size directive be given?": the manual never says "units")
        return True
    if q.wants in ("count", "duration", "year") and not lead.answers_kind:
        return False  # "how many/how long/which year" and the lead states no number
    if q.measured and q.measured in lead.missing:
        # "how much memory …?" and the lead's number is not about memory; "which
        # compression level …?" and a lead about little else of the question either
        if q.counts or coverage < NAMED_HEAD_COVERAGE:
            return False
    if q.qualifier in lead.missing and lead.coverage < NAMED_HEAD_COVERAGE:
        # "which encryption algorithm …?" and a lead about another kind of algorithm (a
        # compression one), about little else of the question: the kind asked for is not there
        return False
    if coverage < NAMED_HEAD_COVERAGE and set(lead.missing) & names_in(q.text):
        # "which TLS version …?", "which Pygments style …?": a lead about little else of the
        # question that does not hold a name it asks about is about something else
        return False
    if coverage >= DECLINE_BELOW:
        return True
    if len(picked) < 2 or coverage < 0.3 or not q.key:
        return False
    both_miss = set(lead.missing) & set(picked[1].missing) - set(absent)
    return 1 - len(both_miss) / (len(q.key) - len(absent)) >= 0.75
