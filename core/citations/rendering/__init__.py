"""Answer rendering: untrusted Markdown → sanitised HTML with `[cN]` links.

Pure Python (no Django imports). The answer text comes from an engine that
read untrusted content, so it is treated like any user input: Markdown is
converted, then everything goes through nh3 with a tight allowlist, and only
*after* that are the citation links inserted — our own attributes never pass
through the sanitiser and the answer can never forge them (no `class`, `id`
or `data-*` attribute on links survives sanitising).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from core.citations.markers import MARKER_RE, marker_ids
from core.citations.rendering.badges import CitationView
from core.citations.rendering.convert import markdown_to_html
from core.citations.rendering.links import cite_html, link_citations
from core.citations.rendering.markers import MAX_MARKDOWN_CHARS
from core.citations.rendering.reader import for_reader
from core.citations.rendering.sanitize import (
    ALLOWED_ATTRIBUTES,
    ALLOWED_CLASSES,
    ALLOWED_TAGS,
    DROPPED_WITH_CONTENT,
    URL_SCHEMES,
    safe_href,
    sanitize_html,
    web_href,
)
from core.citations.rendering.sources import (
    SourceGroup,
    SourcesPanel,
    answer_as_markdown,
    render_sources_panel_data,
)

__all__ = [
    "ALLOWED_ATTRIBUTES",
    "ALLOWED_CLASSES",
    "ALLOWED_TAGS",
    "DROPPED_WITH_CONTENT",
    "MARKER_RE",
    "MAX_MARKDOWN_CHARS",
    "URL_SCHEMES",
    "CitationView",
    "SourceGroup",
    "SourcesPanel",
    "answer_as_markdown",
    "cite_html",
    "link_citations",
    "markdown_to_html",
    "marker_ids",
    "render_answer",
    "render_sources_panel_data",
    "safe_href",
    "sanitize_html",
    "web_href",
]


def render_answer(
    markdown_text: str,
    citations: Mapping[str, CitationView],
    *,
    link_for: Callable[[CitationView], str | None],
    id_prefix: str = "",
) -> str:
    """Render an answer: Markdown → sanitised HTML → `[cN]` links.

    ``link_for`` returns the viewer URL (or the original page for URL
    sources) of a citation; unsafe or missing URLs give an unlinked marker.
    ``id_prefix`` keeps `aria-describedby` ids unique when several answers
    share a page; the sources panel uses the same ids."""
    html = for_reader(markdown_to_html(markdown_text))
    return link_citations(html, citations, link_for=link_for, id_prefix=id_prefix)
