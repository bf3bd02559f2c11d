"""Turning `[cN]` markers into citation links, in sanitised HTML only (our
own attributes never pass through the sanitiser, so an answer cannot forge them).

Pure Python (no Django imports).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping

from core.citations.markers import MARKER_RE, marker_ids
from core.citations.rendering.badges import CitationView
from core.citations.rendering.sanitize import safe_href

_TOKEN_RE = re.compile(r'(<(?:[^>"]|"[^"]*")*>)')
_SKIP_TAGS = frozenset({"a", "code", "pre", "kbd", "samp"})
_TAG_NAME_RE = re.compile(r"<(/?)([a-zA-Z0-9]+)")


def _attr(name: str, value: str) -> str:
    return f' {name}="{html.escape(value, quote=True)}"'


def cite_html(view: CitationView, href: str | None, *, id_prefix: str = "") -> str:
    """One citation link (or a focusable span when there is nowhere to go)."""
    attrs = {
        "data-cid": view.cid,
        "data-excerpt": view.excerpt[:500],
        "data-status": view.status,
        "data-status-label": view.status_label,
        "data-tone": view.tone,
        "data-support": view.support,
        "data-support-label": view.support_label,
        "data-support-tone": view.support_tone,
        "data-support-reason": view.support_reason[:300],
        "data-source": view.label,
        "aria-describedby": f"{id_prefix}source-{view.cid}",
    }
    text = "".join(_attr(name, value) for name, value in attrs.items()) + f">[{html.escape(view.cid)}]"
    if href:
        return f'<a class="cite"{_attr("href", href)}{text}</a>'
    return f'<span class="cite cite--nolink" tabindex="0"{text}</span>'


def sub_markers(text: str, citations: Mapping[str, object], emit: Callable[[str], str]) -> str:
    """Replace every marker naming at least one known id; ``emit`` renders
    one known id, unknown ones stay as plain `[cN]`."""

    def replace(match: re.Match[str]) -> str:
        ids = marker_ids(match[1])
        if not ids or not any(cid in citations for cid in ids):
            return match[0]
        return "".join(emit(cid) if cid in citations else f"[{cid}]" for cid in ids)

    return MARKER_RE.sub(replace, text)


def link_citations(
    safe_html: str,
    citations: Mapping[str, CitationView],
    *,
    link_for: Callable[[CitationView], str | None],
    id_prefix: str = "",
) -> str:
    """Turn markers in the text nodes of already-sanitised HTML into links,
    leaving code, preformatted text and existing links alone."""

    def emit(cid: str) -> str:
        return cite_html(citations[cid], safe_href(link_for(citations[cid])), id_prefix=id_prefix)

    out: list[str] = []
    skip_depth = 0
    # The sanitiser's output is well-formed and quotes every attribute, so a
    # quote-aware split into tags and text nodes is exact.
    for token in _TOKEN_RE.split(safe_html):
        if token.startswith("<"):
            tag = _TAG_NAME_RE.match(token)
            if tag and tag[2].lower() in _SKIP_TAGS:
                skip_depth = max(0, skip_depth + (-1 if tag[1] else 1))
            out.append(token)
        else:
            out.append(token if skip_depth or "[c" not in token else sub_markers(token, citations, emit))
    return "".join(out)
