"""Citations that do not depend on the model's obedience.

Small local models often write no CITATIONS block, or one whose quotes are not
in the files. When an answer has no citation that verifies at its lines, the
app attaches its own: each sentence of the answer is matched to the passages
the model was given (retrieval mode) or read (its tool results), and cited at
the exact lines that state it. The support judge decides "states it"
(``core.citations.support``: the same words, stems and rules that judge the
models' own citations); a sentence no passage states gets no citation.

The run names the ids it attached (``attached`` on its result line), so the
app stores them as attached by the app, never as written by the model: a model
cannot claim that label by writing something into its answer.

Pure Python: no Django imports.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from core.answer_markers import citations_block
from core.citations.markers import MARKER_RE, citation_id, marker
from core.citations.parsing import parse_citations
from core.citations.parsing.model import EXCERPT_LIMIT
from core.citations.states import VerificationState
from core.citations.support.judge import SUPPORTS, judge_support
from core.citations.support.terms import NEGATIONS, STOP, light_stem, word_list
from core.citations.verification import verify_citations
from core.engines.builtin.search import Hit
from core.stream.markers import strip_markers

MAX_WINDOW = 3  # consecutive lines one attached citation may span
MIN_TERMS = 2  # a sentence with fewer key terms states too little to cite
MIN_SHARE = 0.6  # of the sentence's key terms a window must hold before the judge reads it
# Where an answer's sentences part: after ".", "!" or "?" and blanks, or at a line break.
_SENTENCE_RE = re.compile(r"[^\n]*?(?:[.!?](?=\s)|[.!?]$|\n|$)", re.M)
_MODEL_MARKER_RE = re.compile(rf"[ \t]*(?:{MARKER_RE.pattern})")  # the model's own [cN], and the blank before
_BULLET_RE = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+|^#{1,6}\s+")
# A file named in the sentence ("According to <id>/notes.md, …") is where, not what, it says.
_NAMED_FILE_RE = re.compile(r"(?:\b(?:according to|in|from|see)\s+)?`?[\w.-]+(?:/[\w.-]+)+`?,?\s*", re.I)


@dataclass(frozen=True, slots=True)
class Attached:
    """An answer with the app's citations: ``text`` has a ``[cN]`` after each
    cited sentence and the CITATIONS block; ``ids`` are the citations attached."""

    text: str
    ids: list[str]
    sentences: int  # sentences of the answer with enough key terms to cite
    uncited: int  # of those, how many no passage states


def usable_citations(answer: str, sandbox: Path, *, content_ids: list[str], state: Path | None) -> int:
    """How many of the model's own citations verify at lines of the content."""
    parsed = parse_citations(answer, content_ids=content_ids)
    if not parsed.citations:
        return 0
    checked = verify_citations(sandbox, parsed.citations, content_ids=content_ids, state=state)
    return sum(1 for result in checked if VerificationState(result.status).highlights)


def attach_citations(answer: str, passages: list[Hit]) -> Attached:
    """``answer`` without the model's unusable citations, each sentence that a
    passage states cited at that passage's lines."""
    prose = _MODEL_MARKER_RE.sub("", strip_markers(answer)).rstrip()
    windows = _windows(passages)
    pieces: list[str] = []
    entries: list[dict] = []
    cited: dict[tuple[str, int, int], str] = {}
    sentences = uncited = 0
    position = 0
    for match in _SENTENCE_RE.finditer(prose):
        if match.start() == match.end():
            continue
        sentence = match.group(0)
        pieces.append(prose[position : match.end()])
        position = match.end()
        claim = _NAMED_FILE_RE.sub("", _BULLET_RE.sub("", sentence)).strip()
        terms = _terms(claim)
        if len(terms) < MIN_TERMS:
            continue
        sentences += 1
        found = _stating(claim, terms, windows)
        if found is None:
            uncited += 1
            continue
        key = (found.path, found.line_start, found.line_end)
        if key not in cited:
            cited[key] = citation_id(len(cited) + 1)
            entries.append(_entry(cited[key], found))
        tail = pieces[-1]
        stripped = tail.rstrip("\n")
        pieces[-1] = f"{stripped} {marker(cited[key])}{tail[len(stripped) :]}"
    pieces.append(prose[position:])
    text = "".join(pieces).rstrip()
    if entries:
        text += "\n\n" + citations_block(json.dumps(entries, ensure_ascii=False, indent=2))
    return Attached(text, [entry["id"] for entry in entries], sentences, uncited)


@dataclass(frozen=True, slots=True)
class _Window:
    path: str
    line_start: int
    line_end: int
    text: str
    stems: frozenset[str]


def _terms(text: str) -> set[str]:
    """The key terms the judge compares: words less the stop words, stemmed."""
    return {
        light_stem(word)
        for word in word_list(text)
        if len(word) > 2 and word not in STOP and word not in NEGATIONS
    }


def _windows(passages: list[Hit]) -> list[_Window]:
    """Every run of up to ``MAX_WINDOW`` lines of every passage, each file's
    lines taken once (a passage read twice is one source)."""
    lines: dict[str, dict[int, str]] = {}
    for hit in passages:
        for offset, line in enumerate(hit.text.split("\n")):
            lines.setdefault(hit.path, {}).setdefault(hit.line_start + offset, line)
    windows = []
    for path, numbered in lines.items():
        for start in sorted(numbered):
            text = ""
            for end in range(start, start + MAX_WINDOW):
                if end not in numbered:
                    break
                text = f"{text}\n{numbered[end]}" if end > start else numbered[end]
                if not numbered[start].strip() or not numbered[end].strip():
                    break  # a window starts and ends on a line with words
                windows.append(_Window(path, start, end, text, frozenset(_terms(text))))
    return windows


def _stating(claim: str, terms: set[str], windows: list[_Window]) -> _Window | None:
    """The smallest, best-covering window the judge says supports ``claim``."""
    ranked = sorted(
        (w for w in windows if len(terms & w.stems) / len(terms) >= MIN_SHARE),
        key=lambda w: (-len(terms & w.stems), w.line_end - w.line_start, w.path, w.line_start),
    )
    for window in ranked[:20]:  # the judge reads the best few only
        if judge_support(claim, window.text).label == SUPPORTS:
            return window
    return None


def _entry(cid: str, window: _Window) -> dict:
    """One CITATIONS entry: the window's lines, quoted as they are in the file."""
    first = next(line for line in window.text.split("\n") if line.strip())
    excerpt = first.strip()
    if len(excerpt) > EXCERPT_LIMIT:
        excerpt = excerpt[:EXCERPT_LIMIT].rsplit(" ", 1)[0] or excerpt[:EXCERPT_LIMIT]
    return {
        "id": cid,
        "source_file": window.path,
        "source_type": "file",
        "location": {"line_start": window.line_start, "line_end": window.line_end},
        "excerpt": excerpt,
        "relevance": "direct",
    }
