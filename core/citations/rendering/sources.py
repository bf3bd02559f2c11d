"""The sources panel beside an answer, and the answer as Markdown with footnotes.

Pure Python (no Django imports).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from core.citations.rendering.badges import CitationView
from core.citations.rendering.links import sub_markers
from core.citations.rendering.markers import map_prose
from core.citations.rendering.sanitize import safe_href
from core.sandbox import is_private


@dataclass(frozen=True, slots=True)
class SourceGroup:
    """One cited source; each entry's element id is ``{id_prefix}source-{cid}``
    (the target of the answer links' `aria-describedby`)."""

    key: str
    label: str
    source_type: str
    is_url: bool
    href: str | None
    entries: list[CitationView] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class SourcesPanel:
    cited: list[SourceGroup]
    consulted: list[str]
    id_prefix: str = ""


def _group_key(view: CitationView) -> tuple[str, str]:
    if view.is_url and view.url:
        return f"url:{view.url}", view.title or view.url
    if view.path:
        name = f"{view.title} — {view.path}" if view.title else view.path
        return f"file:{view.path}", name
    kind = view.source_type or "inference"
    return f"{kind}:", {"memory": "Model knowledge", "inference": "Inference"}.get(kind, kind.capitalize())


def render_sources_panel_data(
    citations: Mapping[str, CitationView] | Iterable[CitationView],
    consulted: Iterable[str] = (),
    *,
    id_prefix: str = "",
) -> SourcesPanel:
    """Group cited sources (first-seen order) and list the files that were
    read but not cited (private files never listed)."""
    views = list(citations.values()) if isinstance(citations, Mapping) else list(citations)
    groups: dict[str, SourceGroup] = {}
    for view in views:
        key, label = _group_key(view)
        if key not in groups:
            href = safe_href(view.url) if view.is_url else None
            groups[key] = SourceGroup(key, label, view.source_type, view.is_url, href)
        groups[key].entries.append(view)
    cited_paths = {_norm(view.path) for view in views if view.path}
    seen: set[str] = set()
    rest = []
    for path in consulted:
        norm = _norm(path)
        if norm and norm not in cited_paths and norm not in seen and not is_private(norm):
            seen.add(norm)
            rest.append(norm)
    return SourcesPanel(cited=list(groups.values()), consulted=rest, id_prefix=id_prefix)


def _norm(path: str) -> str:
    return "/".join(part for part in path.split("/") if part not in ("", "."))


# --- copy as Markdown -------------------------------------------------------------


def answer_as_markdown(text: str, citations: Mapping[str, CitationView]) -> str:
    """The answer with `[cN]` as Markdown footnotes `[^cN]` plus a footnote
    list (label, lines, excerpt, URL) in order of first use."""
    used: list[str] = []

    def emit(cid: str) -> str:
        used.append(cid)
        return f"[^{cid}]"

    body = map_prose(text, lambda prose: sub_markers(prose, citations, emit)).rstrip()
    notes = [_footnote(citations[cid]) for cid in dict.fromkeys(used)]
    return body + ("\n\n" + "\n".join(notes) if notes else "") + "\n"


def _footnote(view: CitationView) -> str:
    parts = [view.label or view.path or view.url or view.source_type]
    if view.lines and not parts[0].endswith(view.lines):
        parts.append(f"lines {view.lines}")
    note = ", ".join(parts)
    if view.excerpt:
        note += ": “" + " ".join(view.excerpt.split()) + "”"
    if view.url and safe_href(view.url):
        note += f" <{view.url}>"
    return f"[^{view.cid}]: {note} ({view.status_label})"
