"""HTML files (uploaded, or members of an archive or a git repository) →
Markdown, converted as fetched web pages are (``core.ingest.markup``): the
page's title as ``# title``, its main content, furniture dropped. Every
line's origin is the nearest heading above it.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from pathlib import Path

from core.ingest.markup import html_body_markdown

from .model import DocumentError, Rendition, plain

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def markdown_headings(markdown: str, *, shift: int = 0) -> list[tuple[str, str | None]]:
    """``(line, heading)`` for each line of ``markdown``: ``heading`` is the
    text when the line is an ATX heading (outside fenced code), else
    ``None``; ``shift`` lowers every heading that many levels (at most 6)."""
    out: list[tuple[str, str | None]] = []
    fenced = False
    for line in markdown.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        match = None if fenced else _HEADING.match(line)
        if match:
            level = min(len(match.group(1)) + shift, 6)
            text = " ".join(match.group(2).split())
            out.append((f"{'#' * level} {text}", text))
        else:
            out.append((line.rstrip(), None))
    return out


def html_markdown(data: bytes, name: str, *, base: str = "") -> tuple[str, str]:
    """``(title, body)`` of an HTML file's bytes, refused with the file's name
    when it cannot be parsed."""
    try:
        title, body = html_body_markdown(data, base_url=base, fallback_title=name)
    except (ValueError, LookupError, RecursionError, AssertionError) as exc:
        raise DocumentError(f"{name} could not be read as HTML ({exc}).") from exc
    return plain(title), plain(body)


def convert_html(path: Path, name: str) -> Rendition:
    title, body = html_markdown(path.read_bytes(), name)
    rendition = Rendition(kind="html")
    heading = title
    rendition.add(f"# {title}", {"heading": heading})
    lines = markdown_headings(body)
    if lines and lines[0][1] == title:  # the page's <h1> repeats its <title>
        lines = lines[1:]
    if lines:
        rendition.add("")
    for line, text in lines:
        if text is not None:
            heading = text
            rendition.pages += 1
        rendition.add(line, {"heading": heading} if line.strip() else None)
    return rendition
