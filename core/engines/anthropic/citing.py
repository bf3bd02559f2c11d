"""Citations extracted by the Messages API, mapped to exact lines.

Every passage the model is shown goes out as a ``search_result`` block whose
content blocks are one non-empty line each (``search_result``); the app keeps
each result's block → line map (``SentResult``). A ``search_result_location``
citation names the result (``search_result_index``, counted across the whole
request, and its ``source``) and a block range, so its lines are the map's at
the range's ends (``cited_lines``). The library's types define
``end_block_index`` as exclusive; the API's own examples show it inclusive,
so both are read, the one whose blocks hold the ``cited_text`` winning.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.engines.builtin.search import Hit

_BLANKS = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class SentResult:
    """One ``search_result`` block as it was sent: its source (the file's path
    in the sandbox), its title, and each content block's line and text."""

    source: str
    title: str
    lines: tuple[int, ...]  # block index → the file's line number (from 1)
    texts: tuple[str, ...]  # block index → that line's text, as sent

    def block(self) -> dict:
        """The ``search_result`` content block the request carries."""
        return {
            "type": "search_result",
            "source": self.source,
            "title": self.title,
            "content": [{"type": "text", "text": text} for text in self.texts],
            "citations": {"enabled": True},
        }


@dataclass(frozen=True, slots=True)
class ApiCitation:
    """A citation the API extracted: the file, the lines, the text it quoted."""

    path: str
    line_start: int
    line_end: int
    excerpt: str
    matched: bool  # the cited text is the cited blocks' text (False: a mismatch to surface)


def sent_result(hit: Hit, title: str) -> SentResult | None:
    """``hit`` as a search result of one block per non-empty line (the API refuses
    blank text blocks), or ``None`` when it has no line with text."""
    lines, texts = [], []
    for offset, line in enumerate(hit.text.split("\n")):
        if line.strip():
            lines.append(hit.line_start + offset)
            texts.append(line)
    if not lines:
        return None
    return SentResult(hit.path, title, tuple(lines), tuple(texts))


def result_title(manifest: dict, path: str) -> str:
    """The content item's title and the file: ``Auth notes — auth-notes.md``."""
    content_id, _, rest = path.partition("/")
    item = manifest.get(content_id) or {}
    title = str(item.get("title") or content_id) if isinstance(item, dict) else content_id
    return f"{title} — {rest}" if rest else title


def _squeezed(text: str) -> str:
    return _BLANKS.sub("", text)


def _span(result: SentResult, start: int, end: int) -> tuple[int, int] | None:
    """Blocks ``start`` to ``end`` (exclusive) when they exist and are not empty."""
    if 0 <= start < end <= len(result.texts):
        return start, end
    return None


def cited_lines(location: dict, sent: list[SentResult]) -> ApiCitation | None:
    """The lines a ``search_result_location`` cites, or ``None`` when it names no
    result that was sent (a source this run never sent, a block out of range)."""
    source = str(location.get("source") or "")
    cited = str(location.get("cited_text") or "")
    start, end = location.get("start_block_index"), location.get("end_block_index")
    if not isinstance(start, int) or not isinstance(end, int):
        return None
    index = location.get("search_result_index")
    named = sent[index] if isinstance(index, int) and 0 <= index < len(sent) else None
    candidates = [named] if named is not None and named.source == source else []
    candidates += [result for result in sent if result.source == source and result is not named]
    fallback = None
    for result in candidates:
        # Exclusive, as the library's types say; then inclusive, as the API's examples show.
        for span in (_span(result, start, end), _span(result, start, end + 1)):
            if span is None:
                continue
            texts = result.texts[span[0] : span[1]]
            if _squeezed("".join(texts)) == _squeezed(cited):
                return ApiCitation(
                    source, result.lines[span[0]], result.lines[span[1] - 1], _excerpt(texts), True
                )
            fallback = fallback or (result, span)
    if fallback is None:
        return None
    result, span = fallback
    return ApiCitation(source, result.lines[span[0]], result.lines[span[1] - 1], cited.strip(), False)


def _excerpt(texts: tuple[str, ...]) -> str:
    """The cited blocks' text (the API concatenates them), one line per block as in the file."""
    return "\n".join(text.strip() for text in texts)
