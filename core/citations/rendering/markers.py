"""Walking a Markdown answer's prose (paragraphs outside code) without parsing
it, and telling when its `[cN]` markers (``core.citations.markers``) are too
many to link.

Pure Python (no Django imports).
"""

from __future__ import annotations

import re
from collections.abc import Callable

_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CODE_SPAN_RE = re.compile(r"(`+)(?:.+?)\1", re.DOTALL)
_MAX_BRACKETS, _MAX_INLINE = 150, 400
MAX_MARKDOWN_CHARS = 1_000_000  # beyond this an answer is shown as plain text


def map_paragraphs(text: str, func: Callable[[str], str]) -> str:
    """Apply ``func`` to each paragraph (lines up to a blank line) outside
    fenced code blocks; fences and blank lines pass through unchanged."""
    out: list[str] = []
    para: list[str] = []
    fence: str | None = None

    def flush() -> None:
        if para:
            out.append(func("".join(para)))
            para.clear()

    for line in text.splitlines(keepends=True):
        match = _FENCE_RE.match(line)
        if fence is not None:
            if match and match[1][0] == fence[0] and len(match[1]) >= len(fence):
                fence = None
            out.append(line)
        elif match or not line.strip():
            flush()
            fence = match[1] if match else None
            out.append(line)
        else:
            para.append(line)
    flush()
    return "".join(out)


def _outside_code_spans(text: str, func: Callable[[str], str]) -> str:
    rebuilt, pos = [], 0
    for span in _CODE_SPAN_RE.finditer(text):
        rebuilt += [func(text[pos : span.start()]), span[0]]
        pos = span.end()
    rebuilt.append(func(text[pos:]))
    return "".join(rebuilt)


def map_prose(text: str, func: Callable[[str], str]) -> str:
    """Apply ``func`` to the Markdown outside fenced code blocks and inline
    code spans (indented code is rare in answers and left alone)."""
    return map_paragraphs(text, lambda para: _outside_code_spans(para, func))


def is_pathological(para: str) -> bool:
    # Python-Markdown's inline processing is quadratic or worse in the number
    # of "[", "(", "<" and escapes in one paragraph (20,000 stray "[" take
    # minutes). Prose never has that many; such a paragraph is shown as text.
    return sum(map(para.count, "[(<")) > _MAX_BRACKETS or sum(map(para.count, "\\`*_&")) > _MAX_INLINE
