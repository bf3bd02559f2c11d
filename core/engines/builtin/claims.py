"""Pick the sentences that answer a question from the best-matching chunks.

Every claim carries the exact excerpt it quotes (a verbatim substring of the
file, at most 200 characters) and the lines that excerpt occupies, computed
from character offsets in the chunk, never guessed.

Pure Python: no Django imports.
"""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass, field

from .query import RELATED, light_stem, words
from .search import Hit

MAX_EXCERPT = 200
MAX_CLAIMS = 6
MAX_PER_FILE = 3
ASPECT_CLAIMS = 2  # sentences kept from sections named for an aspect asked about
# Only look at the head of a chunk made of a few enormous lines (minified
# files): enough to find a sentence, bounded in time.
MAX_SCAN_CHARS = 50_000

_FENCE = re.compile(r" {0,3}(```|~~~)")
_HEADING = re.compile(r" {0,3}#{1,6}[ \t]")
_BLOCK_START = re.compile(r" {0,3}(?:[-*+][ \t]|\d{1,3}[.)][ \t]|>|\|)")
# (">" of ">= 6.0.0" in a table row is an operator, not a quote marker)
_LEADER = re.compile(r"(?:[-*+][ \t]+|\|[ \t]*|>(?!=)[ \t]*|\d{1,3}[.)][ \t]+)+")
_RELATED_STEMS = {stem: frozenset(light_stem(w) for w in group) for stem, group in RELATED.items()}
_SENTENCE_END = re.compile(r"[.!?][\"')\]*_]*\s+(?=[\"'(\[*_`]?[A-Z0-9])")


@dataclass(frozen=True, slots=True)
class Claim:
    path: str
    heading: str | None
    line_start: int
    line_end: int
    excerpt: str
    sentence: str  # what the answer shows: the sentence, whitespace folded
    coverage: float  # weighted share of the question's terms it contains
    score: float
    terms: frozenset[str] = frozenset()  # the question's (stemmed) terms it contains
    aspects: frozenset[str] = frozenset()  # terms its section is named for ("Actions": fix)
    code: str | None = None  # a code block quoted after (or instead of) the sentence
    language: str = ""  # the code block's language, "" when unknown
    missing: tuple[str, ...] = ()  # key terms of the question it does not hold
    answers_kind: bool = True  # holds what the question's kind asks for (a number, a reason, code)
    off_project: bool = False  # from a project other than the one(s) the question names
    # the coverage counting only the key terms some candidate passage holds
    seen_coverage: float = 0.0
    # the term of the definition-list entry an elliptic sentence ("The default is 3.") belongs to
    term: str = ""
    # the definition-list entry of the option, key or term the question names
    asked_entry: bool = False
    source: Hit | None = field(default=None, compare=False, repr=False)  # the chunk it was read from


def _units(text: str) -> list[tuple[int, int]]:
    """Character spans of prose paragraphs, list items, table rows and code
    lines in ``text``; headings, fences and blank lines separate them."""
    spans: list[tuple[int, int]] = []
    open_start: int | None = None
    prev_end = 0
    in_fence = False
    pos = 0
    for line in text.split("\n"):
        end = pos + len(line)
        body = line.rstrip("\r")
        blank = not body.strip()
        if _FENCE.match(body):
            in_fence = not in_fence
            boundary, own = True, False
        elif in_fence:
            boundary, own = True, not blank  # each code line stands alone
        elif blank or _HEADING.match(body):
            boundary, own = True, False
        else:
            boundary, own = bool(_BLOCK_START.match(body)), True
        if boundary and open_start is not None:
            spans.append((open_start, prev_end))
            open_start = None
        if own:
            if in_fence:
                spans.append((pos, pos + len(body)))
            elif open_start is None:
                open_start = pos
            prev_end = pos + len(body)
        pos = end + 1
    if open_start is not None:
        spans.append((open_start, prev_end))
    return spans


# A parenthesis opened this near before a full stop holds it: "(resp.  UID_MAX)", "(e.g. Foo)".
MAX_PARENTHESIS_CHARS = 120


def _sentences(text: str, start: int, end: int):
    """Yield (start, end) spans of the sentences in ``text[start:end]``; a full
    stop inside a parenthesis opened shortly before ("The default for UID_MIN
    (resp.  UID_MAX) is 1000") ends no sentence."""
    cut = start
    for match in _SENTENCE_END.finditer(text, start, end):
        stop = match.start()
        opened = text.rfind("(", cut, stop)
        if opened >= 0 and stop - opened <= MAX_PARENTHESIS_CHARS and text.find(")", opened, stop) < 0:
            continue
        yield cut, stop + 1
        cut = match.end()
    if cut < end:
        yield cut, end


def _excerpt_span(text: str, start: int, end: int) -> tuple[int, int] | None:
    """Trim list/quote/table leaders and whitespace, then cut to 200
    characters at a word boundary: the span stays a verbatim substring."""
    lead = _LEADER.match(text, start, end)
    if lead:
        start = lead.end()
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end - start > MAX_EXCERPT:
        limit = start + MAX_EXCERPT
        space = text.rfind(" ", start + MAX_EXCERPT // 2, limit)
        end = space if space > 0 else limit
        while end > start and text[end - 1].isspace():
            end -= 1
        # a cut inside a Markdown link ("… across multiple [active-active Redis"):
        # readers (and the verifier) see the link's text, not its brackets
        link = text.rfind("](", start, end)
        if link > text.rfind(")", start, end):
            opening = text.rfind("[", start, link)
        else:
            opening = text.rfind("[", start, end)
            opening = opening if opening > text.rfind("]", start, end) else -1
        if opening > start + MAX_EXCERPT // 4:  # keep a cut that would leave too little
            end = opening
            while end > start and text[end - 1].isspace():
                end -= 1
        # a cut that leaves a lone list marker ("+", "-", "*", ">") on its last
        # line: a reader of the file sees that marker as a bullet, not as text
        line_start = text.rfind("\n", start, end) + 1
        if line_start > start and text[line_start:end].strip() in ("+", "-", "*", ">", "|"):
            end = line_start
            while end > start and text[end - 1].isspace():
                end -= 1
    return (start, end) if end > start else None


def _matches(term: str, tokens: set[str]) -> bool:
    if term in tokens:
        return True
    # "auth" vs "authentication": a shared 5-letter prefix is the same word
    # family often enough for ranking sentences already found by BM25.
    if len(term) >= 5 and any(tok.startswith(term[:5]) for tok in tokens if len(tok) >= 5):
        return True
    # "fixed" is answered by a sentence (or a section) about "remediation".
    related = _RELATED_STEMS.get(term)
    return related is not None and not related.isdisjoint(tokens)


def select_claims(terms: list[str], hits: list[Hit]) -> list[Claim]:
    """The best sentences for ``terms`` across ``hits``, best first."""
    stems = [light_stem(t) for t in terms]
    if not stems or not hits:
        return []
    candidates = []
    for rank, hit in enumerate(hits):
        text = hit.text[:MAX_SCAN_CHARS]
        newline_at = [i for i, ch in enumerate(text) if ch == "\n"]
        # Terms in the section heading count for every sentence under it, at
        # half weight: under "Rate limits", "100 requests per minute" answers
        # "what are the rate limits?" without repeating the words.
        heading_tokens = {light_stem(w) for w in words(hit.heading or "")}
        in_heading = frozenset(s for s in stems if _matches(s, heading_tokens))
        # A section named for the aspect asked about ("Actions" for "how was it
        # fixed?", "Root cause" for "what caused it?") answers it in full.
        aspect = frozenset(
            s for s in in_heading if s in _RELATED_STEMS and not _RELATED_STEMS[s].isdisjoint(heading_tokens)
        )
        for ustart, uend in _units(text):
            for sstart, send in _sentences(text, ustart, uend):
                span = _excerpt_span(text, sstart, send)
                if span is None:
                    continue
                shown = text[span[0] : send]  # the sentence without its list/quote leader
                tokens = {light_stem(w) for w in words(shown)}
                if len(tokens) < 3:
                    continue
                matched = frozenset(s for s in stems if _matches(s, tokens)) | aspect
                if matched or in_heading:
                    candidates.append(
                        (hit, rank, span, shown, matched, in_heading - matched, aspect, newline_at)
                    )
    if not candidates:
        return []
    # Rarer terms among the candidate sentences weigh more (a local IDF).
    count = {s: sum(1 for c in candidates if s in c[4]) for s in stems}
    weight = {s: math.log(1 + len(candidates) / (1 + count[s])) + 0.1 for s in stems}
    total = sum(weight.values())
    best_hit = max(h.score for h in hits) or 1.0
    claims = []
    for hit, rank, (estart, eend), shown, matched, heading_only, aspect, newline_at in candidates:
        coverage = (sum(weight[s] for s in matched) + 0.5 * sum(weight[s] for s in heading_only)) / total
        score = coverage + 0.25 * (hit.score / best_hit) - 0.01 * rank
        claims.append(
            Claim(
                path=hit.path,
                heading=hit.heading,
                line_start=hit.line_start + _count_before(newline_at, estart),
                line_end=hit.line_start + _count_before(newline_at, eend - 1),
                excerpt=hit.text[estart:eend],
                sentence=" ".join(shown.split()),
                coverage=round(coverage, 4),
                score=round(score, 6),
                terms=matched | heading_only,
                aspects=aspect,
            )
        )
    claims.sort(key=lambda c: (-c.score, c.path, c.line_start, c.excerpt))
    return _pick(claims)


def _count_before(sorted_positions: list[int], offset: int) -> int:
    return bisect.bisect_left(sorted_positions, offset)


def _pick(claims: list[Claim]) -> list[Claim]:
    """Keep the strongest distinct claims: at most six, three per file. A
    claim far weaker than the best is kept only if it covers a term no kept
    claim covers yet, or is one of the first two from sections named for an
    aspect asked about, so both halves of "how X and when Y" get answered (a
    word used in another sense, as "fixed" in "a fixed TTL", does not stand in
    for the "Actions" section of "how was it fixed?")."""
    floor = claims[0].coverage * 0.5
    picked: list[Claim] = []
    covered: set[str] = set()
    per_aspect: dict[str, int] = {}
    seen_text: set[str] = set()
    per_file: dict[str, int] = {}
    for claim in claims:
        key = claim.sentence.lower()
        if key in seen_text or per_file.get(claim.path, 0) >= MAX_PER_FILE:
            continue
        new_aspect = any(per_aspect.get(aspect, 0) < ASPECT_CLAIMS for aspect in claim.aspects)
        if claim.coverage < floor and claim.terms <= covered and not new_aspect:
            continue
        seen_text.add(key)
        covered |= claim.terms
        for aspect in claim.aspects:
            per_aspect[aspect] = per_aspect.get(aspect, 0) + 1
        per_file[claim.path] = per_file.get(claim.path, 0) + 1
        picked.append(claim)
        if len(picked) == MAX_CLAIMS:
            break
    return picked
