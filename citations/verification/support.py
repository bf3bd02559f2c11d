"""Does the cited text support the sentence its marker is attached to?

A verified citation only proves the quote exists; this judges whether it
backs the claim. The offline ``lexical`` judge splits the sentence into the
facts it joins ("X is 4, and Y is 8") and checks each against the cited text:

- its key terms, by light stem, identifier part ("max_age" -> "age") or a
  shared six-letter stem prefix;
- its numbers, where they are bound: a product (``60 * 60 * 24``) counts as
  its value, a duration may appear converted ("ten minutes" for 600), and a
  number the text puts after another word or before another unit ("SHA-1"
  against "SHA-256", "200 seconds" against "200 milliseconds") contradicts;
- its names (backticked, dotted, camelCase, snake_case): one one letter off a
  name of the text contradicts, one the text lacks is an unstated fact;
- its polarity, against the text's sentence that shares most of its terms
  (not the whole passage, whose other sentences may say "not"): a settings
  comment reads with its assignment, "X = False" or "None" negating it;
  opposite words ("same"/"reverse", "before"/"after") contradict.

A fact is stated (nearly all key terms found, numbers and names there,
polarity agreeing), contradicted, or unstated. The sentence is ``supports``
when every fact is stated, ``unsupported`` when one is contradicted or none is
stated, ``partial`` otherwise (a wrong "supports" is worse than "partial");
``unjudged`` when there is nothing to compare. Measured on hand-labelled real
text by bench/eval_support.py (docs/BENCHMARKS.md).

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from citations.rendering.markers import MARKER_RE, marker_ids
from citations.verification.normalize import normalize_text
from citations.verification.support_terms import (
    ASSIGN_RE,
    CLAUSE_RE,
    CODE_LINE_RE,
    NEGATIONS,
    NUMBER_RE,
    NUMBER_WORDS,
    OPPOSITES,
    PRODUCT_RE,
    STOP,
    TOKEN_RE,
    UNITS,
    WORD_RE,
    as_number,
    claim_numbers,
    is_negated,
    light_stem,
    names_in,
    numbers_in,
    word_list,
)

SUPPORTS, PARTIAL, UNSUPPORTED, UNJUDGED = "supports", "partial", "unsupported", "unjudged"
LABELS = (SUPPORTS, PARTIAL, UNSUPPORTED, UNJUDGED)
SUPPORTS_AT = 0.8  # share of key terms found for "supports"
PARTIAL_AT = 0.5  # below this share the cited text does not support the sentence
NEAR_MISS = 0.7  # a name this similar to one in the cited text, but not it, is a near miss


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


class _Cited:
    """The cited text, read once: its words and stems, numbers, names, and its
    segments (sentences; a settings comment together with its assignment)."""

    def __init__(self, cited: str) -> None:
        self.raw = cited
        self.low = cited.lower()
        self.flat = normalize_text(cited)
        self.words = word_list(cited)
        self.word_set = set(self.words)
        self.stems = {light_stem(w) for w in self.words}
        self.prefixes = {s[:6] for s in self.stems if len(s) >= 6}
        self.numbers = numbers_in(cited)
        self.assigned: dict[str, str] = {}
        for m in ASSIGN_RE.finditer(cited):
            if m[2] in ("True", "False", "None") or m[2][0] in "\"'0123456789":
                self.assigned.setdefault(m[1].lower(), as_number(m[2].strip("\"'").lower()))
        self.segments = list(self._segments(cited))

    @staticmethod
    def _segments(cited: str):
        """(stems, negated) of each sentence; a settings comment goes with its
        assignment, whose value gives the polarity ("X = False"); a code line
        is its own segment, where only "not" and "no" negate."""
        for block in _blocks(cited):
            last = block.splitlines()[-1]
            if re.match(r"\s*[A-Z][A-Z0-9_]*\s*=", last):
                yield (
                    {light_stem(w) for w in word_list(block)},
                    bool(re.search(r"=\s*(False|None)\b", last)),
                    True,
                )
                continue
            prose: list[str] = []
            for line in block.splitlines():
                if CODE_LINE_RE.match(line):
                    words = word_list(line)
                    yield (
                        {light_stem(w) for w in words},
                        len(re.findall(r"(?<!\w)(?:not|no)(?!\w)", line)) % 2 == 1,
                        False,
                    )
                else:
                    prose.append(line)
            for sentence in re.split(r"(?<=[.!?])\s+", " ".join(prose)):
                if sentence.strip():
                    yield (
                        {light_stem(w) for w in word_list(sentence)},
                        is_negated(WORD_RE.findall(sentence.lower())),
                        False,
                    )

    def has_term(self, term: str) -> bool:
        stem = light_stem(term)
        return (
            term in self.word_set
            or stem in self.stems
            or (len(stem) >= 6 and stem[:6] in self.prefixes)
            or (len(term) > 3 and term in self.flat)
        )

    def has_name(self, name: str) -> bool:
        if name in self.low or name.replace("_", "") in self.flat:
            return True
        last = name.rsplit(".", 1)[-1]  # "Paginator.page" is named by "def page"
        return "." in name and len(last) > 2 and last in self.word_set

    def near_miss(self, name: str) -> str | None:
        close = [
            w for w in self.word_set if len(w) > 3 and SequenceMatcher(None, name, w).ratio() >= NEAR_MISS
        ]
        return sorted(close)[0] if close else None

    def competing_number(self, before: str, after: str) -> bool:
        """Does the text put another number where the claim puts its own
        (after the same word, or before the same unit)?"""
        tokens = WORD_RE.findall(self.low)
        for i, token in enumerate(tokens):
            split = re.fullmatch(r"(\d+(?:\.\d+)?)([a-z]+)", token)
            if not (NUMBER_RE.fullmatch(token) or split):
                continue
            unit = split[2] if split else (tokens[i + 1] if i + 1 < len(tokens) else "")
            if after and (
                unit == after
                or UNITS.get(unit, -1) == UNITS.get(after, -2)
                or light_stem(unit) == light_stem(after)
            ):
                return True
            if before and before in tokens[max(0, i - 3) : i]:
                return True
        return False

    def rebinds(self, value: str, before: str, after: str) -> bool:
        """The claim's number is in the text, but bound elsewhere: the text puts
        another number before the claim's unit ("65 url-safe characters" for
        "64 url-safe characters"), or another unit after this number ("200
        milliseconds" for "200 seconds"), or another number after its word
        ("SHA-256" for "SHA-1")."""
        tokens = TOKEN_RE.findall(PRODUCT_RE.sub(" ", self.low))
        pairs = []
        for i, token in enumerate(tokens):
            split = re.fullmatch(r"(\d+(?:\.\d+)*)([a-z]+)", token)
            if not (NUMBER_RE.fullmatch(token) or split):
                continue
            number = as_number(split[1] if split and not token.startswith(("0x", "0o")) else token)
            unit = split[2] if split else (tokens[i + 1] if i + 1 < len(tokens) else "")
            pairs.append((number, tokens[max(0, i - 3) : i], unit))
        if after in UNITS and any(
            n == value and u in UNITS and UNITS[u] != UNITS[after] for n, _, u in pairs
        ):
            return not any(n == value and u == after for n, _, u in pairs)
        if before and before not in STOP:
            same_word = [n for n, b, _ in pairs if before in b]
            return bool(same_word) and value not in same_word
        return False


def _blocks(cited: str) -> list[str]:
    """Paragraphs, and in settings files each comment with the assignment under it."""
    blocks, current = [], []
    for line in cited.splitlines():
        if not line.strip():
            if current:
                blocks.append("\n".join(current))
            current = []
            continue
        current.append(line)
        if re.match(r"\s*[A-Z][A-Z0-9_]*\s*=", line):
            blocks.append("\n".join(current))
            current = []
    if current:
        blocks.append("\n".join(current))
    return blocks


STATED, WEAK, ABSENT, CONTRADICTED = "stated", "weak", "absent", "contradicted"


def _clauses(claim: str) -> list[str]:
    """The facts a sentence joins ("X is 4; Y is 8", "X, and Y", "X and returns Y");
    a piece with fewer than two key terms and no number stays with the one before."""
    clauses: list[str] = []
    for piece in CLAUSE_RE.split(claim):
        terms = [w for w in WORD_RE.findall(piece.lower()) if w not in STOP and len(w) > 2]
        if clauses and len(terms) < 2 and not NUMBER_RE.search(piece):
            clauses[-1] += " " + piece
        else:
            clauses.append(piece)
    return clauses


def _judge_clause(clause: str, text: _Cited) -> tuple[str, str, float]:
    """One fact of the sentence against the cited text: (verdict, reason, share of its key terms found)."""
    words = WORD_RE.findall(normalize_text(clause))
    names = names_in(clause)
    name_parts = {p for n in names for p in re.split(r"[._]", n)}
    units = {after for _, _, after, _ in claim_numbers(clause) if after in UNITS}
    terms = [
        w for w in dict.fromkeys(words)
        if w not in STOP and w not in NUMBER_WORDS and w not in units and w not in NEGATIONS and len(w) > 2 and not NUMBER_RE.fullmatch(w)
        and w.replace("_", "") not in {n.replace("_", "") for n in names} and w not in name_parts
    ]  # fmt: skip
    missing = [t for t in terms if not text.has_term(t)]
    for name in sorted(names):
        if not text.has_name(name):
            close = text.near_miss(name)
            if close and close != name:
                return CONTRADICTED, f"The sentence names {name}; the cited text has {close}.", 0.0
            missing.append(name)
    absent_names = [n for n in names if not text.has_name(n)]
    count = (
        len(terms)
        + len([n for n in names if not text.has_name(n)])
        + len([n for n in names if text.has_name(n)])
    )
    share = 1 - len(missing) / count if count else 0.0
    literals = {v for v, *_ in claim_numbers(clause)} | {w for w in words if w in ("true", "false", "none")}
    for name in names if re.search(r"\bdefault", clause.lower()) else ():
        value = text.assigned.get(name)
        if value is not None and literals and value not in literals and as_number(value) not in literals:
            return CONTRADICTED, f"The cited text sets {name} to {value}.", share
    for value, before, after, forms in claim_numbers(clause):
        if forms & text.numbers:
            if value in text.numbers and text.rebinds(value, before, after):
                return (
                    CONTRADICTED,
                    f"The cited text gives another number where the sentence has {value}.",
                    share,
                )
            continue
        assigned = [text.assigned[n] for n in names if n in text.assigned]
        if assigned or text.competing_number(before, after) or share >= SUPPORTS_AT:
            return CONTRADICTED, f"The number {value} is not in the cited text.", share
        return ABSENT, f"The number {value} is not in the cited text.", share
    if share >= PARTIAL_AT:
        claim_terms = {light_stem(w) for w in word_list(clause) if w not in STOP}
        best = max((len(claim_terms & seg) for seg, _, _ in text.segments), default=None)
        if best is not None:
            top = [(neg, setting) for seg, neg, setting in text.segments if len(claim_terms & seg) == best]
            if all(neg != is_negated(words, setting) for neg, setting in top):
                said = "negates" if is_negated(words, top[0][1]) else "does not negate"
                return CONTRADICTED, f"The sentence {said} what the cited text states.", share
            tops = [seg for seg, _, _ in text.segments if len(claim_terms & seg) == best]
            for word in {w for w in word_list(clause) if w in OPPOSITES}:
                stem, other = light_stem(word), light_stem(OPPOSITES[word])
                if all(other in seg and stem not in seg for seg in tops):
                    return (
                        CONTRADICTED,
                        f"The sentence says {word}; the cited text says {OPPOSITES[word]}.",
                        share,
                    )
    listed = ", ".join(missing[:3])
    if absent_names:
        return ABSENT, f"The name {sorted(absent_names)[0]} is not in the cited text.", share
    if share >= SUPPORTS_AT:
        return STATED, f"{count - len(missing)} of {count} key terms are in the cited text.", share
    if share >= PARTIAL_AT:
        return WEAK, f"Missing from the cited text: {listed}.", share
    return ABSENT, f"Most key terms are not in the cited text (missing: {listed}).", share


def judge_support(claim: str, cited: str) -> Support:
    """The lexical judge: ``claim`` is the sentence, ``cited`` the text it cites."""
    norm_claim = normalize_text(claim)
    terms = [t for t in WORD_RE.findall(norm_claim) if t not in STOP and t not in NEGATIONS and len(t) > 2]
    if not terms or not WORD_RE.search(normalize_text(cited)):
        return Support(UNJUDGED, "No key terms to compare.")
    text = _Cited(cited)
    verdicts = [_judge_clause(c, text) for c in _clauses(claim)]
    kinds = [v[0] for v in verdicts]
    for kind, reason, _ in verdicts:
        if kind == CONTRADICTED:
            return Support(UNSUPPORTED, reason)
    if all(k == STATED for k in kinds):
        return Support(
            SUPPORTS,
            verdicts[0][1]
            if len(kinds) == 1
            else f"All {len(kinds)} parts of the sentence are in the cited text.",
        )
    gap = next(v for v in verdicts if v[0] != STATED)
    if STATED in kinds or WEAK in kinds:
        return Support(PARTIAL, gap[1])
    return Support(UNSUPPORTED, gap[1])


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
