"""Does the cited text support the sentence its marker is attached to?

A verified citation only proves the quote exists; this judges whether it
backs the claim. The offline ``lexical`` judge compares what a claim can
get wrong while still quoting a real line: its numbers, its negations, the
names it uses, and its key terms. It answers ``supports`` only when every
number and name of the sentence is in the cited text, the polarity agrees
and nearly all key terms are there (a wrong "supports" is worse than
"partial"); ``unsupported`` when a number or a name is contradicted or most
terms are missing; ``partial`` in between; ``unjudged`` when there is
nothing to compare.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from citations.rendering.markers import MARKER_RE, marker_ids
from citations.verification.normalize import normalize_text

SUPPORTS, PARTIAL, UNSUPPORTED, UNJUDGED = "supports", "partial", "unsupported", "unjudged"
LABELS = (SUPPORTS, PARTIAL, UNSUPPORTED, UNJUDGED)
SUPPORTS_AT = 0.8  # share of key terms found for "supports"
PARTIAL_AT = 0.5  # below this share the cited text does not support the sentence
NEAR_MISS = 0.7  # a name this similar to one in the cited text, but not it, is a near miss

_STOP = frozenset(
    """a an the of to in on at by for with from and or but as is are was were be been being it its this
    that these those there here which who whom whose what when where how why than then so such can could
    may might must shall should will would do does did has have had having into onto over under about after
    before between through during per via also only just very more most less least each every any all some
    other same own both either if else while because since until unless use used uses using one ones
    their them they we you your our he she his her i me my us let lets like get gets set sets make makes
    way ways thing things which whichever whatever e.g i.e etc""".split()
)
_NEGATIONS = frozenset(
    "not no never none nor neither cannot without nothing nobody nowhere unable fails fail false".split()
)
_NUMBER_WORDS = {
    w: str(n)
    for n, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
}
_TOKEN_RE = re.compile(r"[a-z0-9_]+(?:[.'][a-z0-9_]+)*")
_NUMBER_RE = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*")
_RAW_NAME_RE = re.compile(r"`([^`]+)`|\b([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+|\w*[a-z][A-Z]\w*|[A-Za-z]+_\w+)\b")


@dataclass(frozen=True, slots=True)
class Support:
    label: str
    reason: str


def claim_sentences(answer: str) -> dict[str, str]:
    """The sentence each citation's first marker is attached to, markers
    removed (a marker standing after a sentence's full stop belongs to it)."""
    sentences = [s for s in re.split(r"(?<=[.!?])\s+(?=\S)|\n\s*\n|\n(?=\s*(?:[-*+]|\d+\.)\s)", answer) if s]
    claims: dict[str, str] = {}
    previous = ""
    for sentence in sentences:
        text = MARKER_RE.sub("", sentence).strip(" \t\n-*")
        owner = text if re.search(r"\w", text) else previous
        for match in MARKER_RE.finditer(sentence):
            for cid in marker_ids(match[1]) or []:
                claims.setdefault(cid, re.sub(r"\s+([.,;:!?])", r"\1", " ".join(owner.split())))
        previous = owner if re.search(r"\w", text) else previous
    return claims


def _stem(word: str) -> str:
    """A crude stem, enough to match "validates", "validated" and "validate"."""
    for suffix in ("ations", "ation", "ings", "ing", "ied", "ies", "ed", "es", "s", "ly"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + ("y" if suffix in ("ies", "ied") else "")
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def _numbers(text: str) -> set[str]:
    found = {n.replace(",", "") for n in _NUMBER_RE.findall(text)}
    return found | {_NUMBER_WORDS[w] for w in _TOKEN_RE.findall(text) if w in _NUMBER_WORDS}


def _negated(tokens: list[str]) -> bool:
    return any(t in _NEGATIONS or t.endswith("n't") for t in tokens)


def _names(raw: str) -> set[str]:
    """Identifiers and code names the sentence uses (backticked, dotted,
    camelCase or snake_case), lower-cased."""
    names = set()
    for quoted, bare in _RAW_NAME_RE.findall(raw):
        name = (quoted or bare).strip("()").lower()
        if name and not name.isdigit():
            names.add(name)
    return names


def judge_support(claim: str, cited: str) -> Support:
    """The lexical judge: ``claim`` is the sentence, ``cited`` the text it cites."""
    norm_claim, norm_cited = normalize_text(claim), normalize_text(cited)
    claim_tokens, cited_tokens = _TOKEN_RE.findall(norm_claim), _TOKEN_RE.findall(norm_cited)
    terms = [t for t in dict.fromkeys(claim_tokens) if t not in _STOP and t not in _NEGATIONS and len(t) > 2]
    if not claim_tokens or not cited_tokens or not terms:
        return Support(UNJUDGED, "No key terms to compare.")
    missing_numbers = sorted(_numbers(norm_claim) - _numbers(norm_cited), key=len)
    if missing_numbers:
        return Support(UNSUPPORTED, f"The number {missing_numbers[0]} is not in the cited text.")
    if _negated(claim_tokens) != _negated(cited_tokens):
        said = "negates" if _negated(claim_tokens) else "does not negate"
        return Support(UNSUPPORTED, f"The sentence {said} what the cited text states.")
    raw_cited = cited.lower()
    raw_tokens = set(_TOKEN_RE.findall(raw_cited))  # names keep their underscores here
    for name in sorted(_names(claim)):
        if name in raw_cited or name.replace("_", "") in norm_cited:
            continue
        close = [t for t in raw_tokens if SequenceMatcher(None, name, t).ratio() >= NEAR_MISS]
        if close:
            return Support(UNSUPPORTED, f"The sentence names {name}; the cited text has {sorted(close)[0]}.")
        return Support(UNSUPPORTED, f"The name {name} is not in the cited text.")
    stems = {_stem(t) for t in cited_tokens}
    missing = [t for t in terms if _stem(t) not in stems and t not in norm_cited]
    share = 1 - len(missing) / len(terms)
    if share >= SUPPORTS_AT:
        return Support(
            SUPPORTS, f"{len(terms) - len(missing)} of {len(terms)} key terms are in the cited text."
        )
    listed = ", ".join(missing[:3])
    if share >= PARTIAL_AT:
        return Support(PARTIAL, f"Missing from the cited text: {listed}.")
    return Support(UNSUPPORTED, f"Most key terms are not in the cited text (missing: {listed}).")


FOUND = frozenset({"verified", "relocated", "url_matched"})  # states whose excerpt is in the source


def judge_citation(claim: str, excerpt: str, status: str) -> Support:
    """Judge one citation: only an excerpt found in its source is compared
    with the sentence (a quote that is not there supports nothing)."""
    if not claim:
        return Support(UNJUDGED, "No sentence of the answer carries this citation's marker.")
    if not excerpt:
        return Support(UNJUDGED, "The citation quotes no text to compare with its sentence.")
    if status not in FOUND:
        return Support(UNJUDGED, "The excerpt was not found in the source, so its support was not judged.")
    return judge_support(claim, excerpt)
