"""The answer as the app records it: the model's text blocks, a ``[cN]`` marker
after each block the API cited, and one CITATIONS block holding the API's
citations, so the page, the parser, the verifier and the support judge read
it as they read every other engine's.

A CITATIONS block the model writes anyway is read as today: its entries stay,
except one that cites lines an API citation already cites (same file,
overlapping lines), whose markers are pointed at the API's id instead. The
API's ids are numbered after the model's, so the two never collide.

Pure Python: no Django imports.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from core.answer_markers import citations_block
from core.citations.markers import MARKER_RE, citation_id, marker, marker_ids
from core.citations.parsing import parse_citations
from core.citations.parsing.block import find_blocks
from core.citations.parsing.model import EXCERPT_LIMIT

from .citing import ApiCitation

_ANY_ID = re.compile(r"\bc(\d{1,6})\b", re.I)
_REPEATED = re.compile(r"(\[c\d{1,6}\])(?:[ \t]*\1)+")  # "[c3] [c3]" once a model's id points at the API's


@dataclass(frozen=True, slots=True)
class Answer:
    """The recorded answer and the ids of the citations the API extracted."""

    text: str
    api_ids: list[str]


@dataclass(slots=True)
class TextBlock:
    """One text block of the model's answer and the API's citations of it."""

    text: str
    citations: list[ApiCitation]


def compose(blocks: list[TextBlock], *, content_ids: list[str]) -> Answer:
    written = "".join(block.text for block in blocks)
    own = find_blocks(written)
    numbers = [int(m.group(1)) for m in _ANY_ID.finditer(written)]
    next_number = max(numbers, default=0) + 1
    # The API's citations, one id per cited range, in the order the answer cites them.
    ids: dict[tuple[str, int, int], str] = {}
    entries: list[dict] = []
    for block in blocks:
        for cited in block.citations:
            key = (cited.path, cited.line_start, cited.line_end)
            if key not in ids:
                ids[key] = citation_id(next_number)
                next_number += 1
                entries.append(_entry(ids[key], cited))
    # The model's own entries that cite what the API cites: their markers point at the API's id.
    renamed: dict[str, str] = {}
    kept_blocks: list[str] = []
    for own_block in own:
        raw = written[own_block.start : own_block.end]
        try:
            listed = json.loads(own_block.body) if own_block.closed else None
        except ValueError:
            listed = None
        if not isinstance(listed, list):
            kept_blocks.append(raw)  # read as today, whatever it holds
            continue
        kept = []
        for parsed, entry in zip(_parsed(raw, content_ids), listed, strict=False):
            same = _same_lines(parsed, ids)
            if same is not None and parsed.cid:
                renamed[parsed.cid] = same
            else:
                kept.append(entry)
        if kept:
            kept_blocks.append(citations_block(json.dumps(kept, ensure_ascii=False, indent=2)))
    # The prose: the model's blocks, each cited one followed by its markers, the model's block(s) taken out.
    pieces, position = [], 0
    cuts = [(b.start, b.end) for b in own]
    for block in blocks:
        start, end = position, position + len(block.text)
        position = end
        text = _without(block.text, start, cuts)
        if block.citations:
            markers = "".join(
                marker(ids[(c.path, c.line_start, c.line_end)]) for c in _unique(block.citations)
            )
            body = text.rstrip()
            text = f"{body} {markers}{text[len(body) :]}" if body else text
        pieces.append(text)
    prose = _REPEATED.sub(r"\1", MARKER_RE.sub(lambda m: _renamed(m, renamed), "".join(pieces))).rstrip()
    tail = list(kept_blocks)
    if entries:
        tail.append(citations_block(json.dumps(entries, ensure_ascii=False, indent=2)))
    text = prose + ("\n\n" + "\n\n".join(tail) if tail else "")
    return Answer(text, [entry["id"] for entry in entries])


def _parsed(raw: str, content_ids: list[str]):
    return [
        c for c in parse_citations(raw, content_ids=content_ids).citations if c.found_by == "citations_block"
    ]


def _same_lines(parsed, ids: dict[tuple[str, int, int], str]) -> str | None:
    """The API's id citing lines of the same file that ``parsed`` cites, if any."""
    if parsed.source_path is None or parsed.line_start is None:
        return None
    end = parsed.line_end or parsed.line_start
    for (path, first, last), cid in ids.items():
        if path == parsed.source_path and parsed.line_start <= last and first <= end:
            return cid
    return None


def _without(text: str, offset: int, cuts: list[tuple[int, int]]) -> str:
    """``text`` (at ``offset`` in the whole answer) less the parts inside ``cuts``."""
    kept = []
    for i, char in enumerate(text):
        at = offset + i
        if not any(start <= at < end for start, end in cuts):
            kept.append(char)
    return "".join(kept)


def _unique(citations: list[ApiCitation]) -> list[ApiCitation]:
    seen, unique = set(), []
    for cited in citations:
        key = (cited.path, cited.line_start, cited.line_end)
        if key not in seen:
            seen.add(key)
            unique.append(cited)
    return unique


def _renamed(match: re.Match, renamed: dict[str, str]) -> str:
    ids = marker_ids(match.group(1))
    if not ids or not any(cid in renamed for cid in ids):
        return match.group(0)
    shown = list(dict.fromkeys(renamed.get(cid, cid) for cid in ids))
    return "[" + ", ".join(shown) + "]"


def _entry(cid: str, cited: ApiCitation) -> dict:
    return {
        "id": cid,
        "source_file": cited.path,
        "source_type": "file",
        "location": {"line_start": cited.line_start, "line_end": cited.line_end},
        "excerpt": _shortened(cited.excerpt),
        "relevance": "direct",
    }


def _shortened(excerpt: str) -> str:
    """The cited text within the format's limit: as many whole lines as fit (the
    first line cut at a word when it alone is longer)."""
    if len(excerpt) <= EXCERPT_LIMIT:
        return excerpt
    kept = ""
    for line in excerpt.split("\n"):
        joined = f"{kept}\n{line}" if kept else line
        if len(joined) > EXCERPT_LIMIT:
            break
        kept = joined
    if kept:
        return kept
    return excerpt[:EXCERPT_LIMIT].rsplit(" ", 1)[0] or excerpt[:EXCERPT_LIMIT]
