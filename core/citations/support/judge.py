"""Does the cited text support the sentence its marker is attached to?

A verified citation only proves the quote exists; this judges whether it
backs the claim. The offline ``lexical`` judge splits the sentence into the
facts it joins ("X is 4, and Y is 8") and checks each against the cited text
(one rule per function in support_rules.py), read as statements
(support_text.py: sentences, code lines, a settings comment with its
assignment, each under its def or parameter heading):

- its key terms, by light stem, identifier part ("max_age" -> "age"), a
  shared six-letter stem prefix or a small paraphrase vocabulary
  (support_terms.py: "larger" is ">" or "maximum", "rejects" is "does not
  accept"); a fact is stated only when neighbouring statements under one
  heading hold its terms together, not words scattered over the passage;
- its numbers, where they are bound: a product (``60 * 60 * 24``) counts as
  its value, a duration may appear converted ("ten minutes" for 600), a
  number the text puts after another word or before other words ("SHA-256"
  for "SHA-1", "65 url-safe characters" for 64) or a parameter the text
  assigns another value (``on_each_side=3`` for "two pages on each side")
  contradicts;
- its names: one one letter off a name of the text, or a sibling name
  (``KEY_FUNCTION`` for ``KEY_PREFIX``) in the lines that state the claim,
  or a function other than the one the lines define, contradicts; a quoted
  literal must be in the lines;
- its polarity, against the statements that share most of its terms, those
  under the claim's subject first: a boolean setting reads with its value
  ("X = False" negates its comment); opposite words ("before"/"after",
  "low"/"high") said of the claim's subject contradict.

A fact is stated, contradicted, or unstated. The sentence is ``supports``
when every fact is stated and nothing beside the words found casts doubt on
them (support_rules/doubt.py: a negation bearing on a matched word, statements
that disagree, a subject named only to be compared with, the other word of a
pair, a sibling item's statement, another number, a swapped replacement, an
order named the other way round); a doubted sentence is ``unjudged`` with the
reason (precision first: a wrong "supports" is worse than none). It is
``unsupported`` when one fact is contradicted or none is stated, ``partial``
when it joins facts and only some are stated (a wrong "supports" is worse
than "partial"); ``unjudged`` also when there is nothing to compare. The reason says what decided. Measured on hand-labelled real text by
bench/quality/support_judge.py (docs/benchmarks/support-judge.md).

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from core.citations.markers import MARKER_RE, marker_ids
from core.citations.states import HIGHLIGHTED, SupportLabel
from core.citations.support.rules import (
    CONTRADICTED,
    PARTIAL_AT,
    STATED,
    SUPPORTS_AT,
    WEAK,
    Claim,
    assigned_default,
    coverage,
    exclusive_words,
    instead_of,
    near_miss_name,
    numbers,
    other_function,
    other_subject,
    polarity,
    polarity_tops,
    quoted_literal,
    raised_elsewhere,
    reversed_direction,
    scattered,
    sibling_name,
    signature_default,
    stated_default,
    unbound_number,
    value_meaning,
)
from core.citations.support.rules.doubt import doubt
from core.citations.support.stated import states_values, value_under_another_name
from core.citations.support.terms import CLAUSE_RE, NEGATIONS, NUMBER_RE, STOP, WORD_RE
from core.citations.support.text import CitedText, flat_text

SUPPORTS, PARTIAL, UNSUPPORTED, UNJUDGED = SupportLabel
LABELS = tuple(SupportLabel)
# Every word found but a doubt signal fired: left unjudged, not "partial" (which the sets
# define as joined facts with only some stated) nor "supports"; the reason says why.
DOUBTED = UNJUDGED
__all__ = [
    "FOUND", "LABELS", "PARTIAL", "SHOWN", "SUPPORTS", "SUPPORTS_AT", "UNJUDGED", "UNSUPPORTED",
    "Support", "claim_sentences", "judge_citation", "judge_support", "shown_support",
]  # fmt: skip


# Where an answer's sentences part: after ".", "!" or "?"; at a blank line; before a list item.
_SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?])\s+(?=\S)|\n\s*\n|\n(?=\s*(?:[-*+]|\d+\.)\s)")
# A Markdown heading's line, and the "## " that opens it.
_HEADING_LINE_RE = re.compile(r"^([ \t]*#{1,6}[ \t][^\n]*)\n", re.M)
_HEADING_MARK_RE = re.compile(r"^#{1,6}[ \t]+")


@dataclass(frozen=True, slots=True)
class Support:
    label: str
    reason: str
    # Beside the verdict, not part of it (two verdicts with the same label and reason are equal):
    rule: str = field(default="", compare=False)  # the rule that decided (``_judge_clause``), measured apart
    withheld: str = field(default="", compare=False)  # the judge's label when it is not shown (``SHOWN``)


def claim_sentences(answer: str) -> dict[str, str]:
    """The sentence each citation's first marker is attached to, markers
    removed (a marker standing after a sentence's full stop belongs to it).
    A Markdown heading is a piece of its own: "## Quick Answer" is not part
    of the claim on the line under it."""
    sentences = [s for s in _SENTENCE_SPLIT_RE.split(_HEADING_LINE_RE.sub(r"\1\n\n", answer)) if s]
    claims: dict[str, str] = {}
    previous = ""
    for sentence in sentences:
        text = _HEADING_MARK_RE.sub("", MARKER_RE.sub("", sentence).strip(" \t\n-*"))
        owner = text if re.search(r"\w", text) else previous
        for match in MARKER_RE.finditer(sentence):
            for cid in marker_ids(match[1]) or []:
                claims.setdefault(cid, re.sub(r"\s+([.,;:!?])", r"\1", " ".join(owner.split())))
        previous = owner if re.search(r"\w", text) else previous  # pragma: no mutate: owner already previous
    return claims


def _clauses(claim: str) -> list[str]:
    """The facts a sentence joins ("X is 4; Y is 8", "X, and Y", "X and returns Y");
    a piece with fewer than two key terms and no number stays with the one before."""
    clauses: list[str] = []
    lone = ""  # a first piece that is only a subject ("sub_symbol and sup_symbol default to ...")
    for piece in CLAUSE_RE.split(claim):
        terms = [w for w in WORD_RE.findall(piece.lower()) if w not in STOP and len(w) > 2]
        if clauses and len(terms) < 2 and not NUMBER_RE.search(piece):
            clauses[-1] += " " + piece
        elif not clauses and not lone and len(piece.split()) == 1:
            lone = piece + " and "
        else:
            clauses.append(lone + piece)
            lone = ""
    return clauses or [lone.removesuffix(" and ")]


def _judge_clause(claim: Claim) -> tuple[str, str, float, str]:
    """One fact of the sentence, read against the cited text: (verdict, reason, share of its
    key terms found, the name of the rule that decided)."""
    near_miss = near_miss_name(claim)
    if near_miss:
        return (*near_miss, 0.0, near_miss_name.__name__)  # pragma: no mutate: the share is ignored
    for rule in (
        quoted_literal,
        assigned_default,
        value_meaning,
        stated_default,
        signature_default,
        numbers,
        unbound_number,
    ):
        verdict = rule(claim)
        if verdict:
            return (*verdict, claim.share, rule.__name__)
    if not claim.count and claim.numbers:  # "and its default is 2 weeks": a number, found where it is bound
        return STATED, "Its number is in the cited text.", 1.0, "numbers"  # pragma: no mutate: share ignored
    top = polarity_tops(claim)
    if claim.share >= PARTIAL_AT and top:
        for rule in (
            polarity,
            instead_of,
            exclusive_words,
            sibling_name,
            other_subject,
            raised_elsewhere,
            reversed_direction,
            other_function,
        ):
            verdict = rule(claim, top) if rule in (polarity, instead_of) else rule(claim)
            if verdict:
                return (*verdict, claim.share, rule.__name__)
    verdict = scattered(claim)
    if verdict:
        return (*verdict, claim.share, scattered.__name__)
    return (*coverage(claim), claim.share, coverage.__name__)


# The judge's labels a reader is shown: those right at least 9 times in 10 both over the
# development sets and on the held-out set of another domain (manual pages), measured by
# bench/quality/support_judge.py (docs/BENCHMARKS.md). "Supports" is not among them: on
# the manual pages it was right 13 times in 19 (sibling entries share their words), so
# a sentence whose words are all in its quote is left "not judged", said quietly.
SHOWN = frozenset({PARTIAL, UNSUPPORTED})
# The rules whose "Does not support" is shown: each finds something else where the
# sentence's fact should be (another number bound to its words, another default or
# assignment, a sibling name, another subject, the other word of an exclusive pair).
# The others (a key term or a number merely missing, a negation read from nearby words,
# a near-miss name) were right less than 9 times in 10 on the labelled sets
# (docs/benchmarks/support-judge.md): their verdict is left "not judged".
SURE_UNSUPPORTED = frozenset(
    {
        "numbers",
        "assigned_default",
        "stated_default",
        "signature_default",
        "value_meaning",
        "sibling_name",
        "other_subject",
        "exclusive_words",
        "raised_elsewhere",
        "reversed_direction",
    }
)
# The rules whose "Partly supports" is not shown: every key term is in the quote, only not
# in one statement of it, which is as often a fact said across lines as a fact left out
# (right 3 times in 6 on the labelled sets; docs/BENCHMARKS.md).
UNSURE_PARTIAL = frozenset({"scattered"})
# A sentence that joins facts (", and …", ", which …", "; …"): one of them off is as
# often "partly" as "not at all", so its "Does not support" is not shown.
_JOINED_RE = re.compile(r",\s+(?:and|which|but|while|so)\s|;\s|\band\s+(?:also|then)\b")


def judge_support(claim: str, cited: str) -> Support:
    """The lexical judge: ``claim`` is the sentence, ``cited`` the text it cites.
    Every label it reaches, as measured; what a reader is shown of it is
    ``shown_support``'s."""
    return _judge(claim, cited)


def shown_support(claim: str, cited: str) -> Support:
    """The judge's label as a reader is shown it: only what it is sure of.
    A "Does not support" stands only when a sure rule decided it
    (``SURE_UNSUPPORTED``) on a sentence of one fact, and never when the quote
    states every value the sentence gives (``stated.states_values``: the words
    around a right value are not enough to say it does not back it); a label not
    in ``SHOWN`` is kept as ``withheld``; anything else is left not judged, with
    the reason."""
    support = judge_support(claim, cited)
    if support.label == SUPPORTS:
        elsewhere = value_under_another_name(claim, cited)
        if elsewhere:
            support = Support(
                UNJUDGED,
                f"Not judged: the cited text gives {elsewhere} under another name than the sentence's.",
                "value_under_another_name",
            )
    elif support.label == UNSUPPORTED:
        values = states_values(claim, cited)
        if values:
            named = ", ".join(values[:3]) + (" …" if len(values) > 3 else "")
            return Support(
                UNJUDGED,
                f"The cited text states the sentence's value ({named}); its support was not judged.",
                support.rule,
            )
        if support.rule not in SURE_UNSUPPORTED or _JOINED_RE.search(claim):
            return Support(UNJUDGED, f"Not judged: {support.reason}", support.rule)
    elif support.label == PARTIAL and support.rule in UNSURE_PARTIAL:
        return Support(UNJUDGED, f"Not judged: {support.reason}", support.rule, withheld=PARTIAL)
    if support.label in SHOWN or support.label == UNJUDGED:
        return support
    return Support(
        UNJUDGED,
        f"The offline judge's “{support.label.label}” is not shown (not right often enough to be "
        f"trusted): {support.reason}",
        support.rule,
        withheld=support.label,
    )


def _judge(claim: str, cited: str) -> Support:
    norm_claim = flat_text(claim)
    terms = [t for t in WORD_RE.findall(norm_claim) if t not in STOP and t not in NEGATIONS and len(t) > 2]
    if not terms or not WORD_RE.search(flat_text(cited)):
        return Support(UNJUDGED, "No key terms to compare.")
    text = CitedText(cited)
    facts = [Claim.read(c, text) for c in _clauses(claim)]
    verdicts = [_judge_clause(fact) for fact in facts]
    kinds = [v[0] for v in verdicts]
    for kind, reason, _, rule in verdicts:
        if kind == CONTRADICTED:
            return Support(UNSUPPORTED, reason, rule)
    if all(k == STATED for k in kinds):
        # A sentence of one fact was read already: the rules only note on it whether a
        # default agrees (``default_agrees``), which a fresh reading has unset.
        whole = next((fact for fact in facts if fact.clause == claim), None)
        doubted = doubt(replace(whole, default_agrees=False) if whole else Claim.read(claim, text))
        if doubted:  # every word found, but something beside them may say otherwise
            return Support(DOUBTED, doubted, "doubt")
        return Support(
            SUPPORTS,
            verdicts[0][1]
            if len(kinds) == 1
            else f"All {len(kinds)} parts of the sentence are in the cited text.",
            verdicts[0][3],
        )
    gap = next(v for v in verdicts if v[0] != STATED)
    if STATED in kinds or (WEAK in kinds and len(kinds) > 1):
        return Support(PARTIAL, gap[1], gap[3])
    return Support(UNSUPPORTED, gap[1], gap[3])


FOUND = HIGHLIGHTED  # states whose excerpt is in the source


def judge_citation(claim: str, excerpt: str, status: str) -> Support:
    """Judge one citation: only an excerpt found in its source is compared
    with the sentence (a quote that is not there supports nothing), and it
    is given only what ``shown_support`` shows."""
    if not claim:
        return Support(UNJUDGED, "No sentence of the answer carries this citation's marker.")
    if not excerpt:
        return Support(UNJUDGED, "The citation quotes no text to compare with its sentence.")
    if status not in FOUND:
        return Support(UNJUDGED, "The excerpt was not found in the source, so its support was not judged.")
    return shown_support(claim, excerpt)
