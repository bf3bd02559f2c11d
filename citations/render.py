"""Answer rendering: untrusted Markdown → sanitised HTML with `[cN]` links.

Pure Python (no Django imports). The answer text comes from an engine that
read untrusted content, so it is treated like any user input: Markdown is
converted, then everything goes through nh3 with a tight allowlist, and only
*after* that are the citation links inserted — our own attributes never pass
through the sanitiser and the answer can never forge them (no `class`, `id`
or `data-*` attribute on links survives sanitising).
"""

from __future__ import annotations

import html
import re
import secrets
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import markdown
import nh3
from pygments.token import STANDARD_TYPES

from researchmind.sandbox import is_private

# status → (label, tone); one colour per tone in app.css (badge--ok/info/warn/bad/muted).
STATUSES = {
    "verified": ("Verified", "ok"),
    "url_matched": ("Matched in page", "ok"),
    "relocated": ("Verified at other lines", "info"),
    "located": ("File found", "info"),
    "excerpt_mismatch": ("Excerpt not found", "warn"),
    "line_out_of_range": ("Lines out of range", "warn"),
    "stale": ("File changed: re-verify", "warn"),
    "missing_file": ("File missing", "bad"),
    "outside_sandbox": ("Outside sandbox", "bad"),
    "unverifiable": ("Unverifiable", "muted"),
    "pending": ("Not verified yet", "muted"),
}
# Only ranges whose excerpt was really found are highlighted in the viewer.
HIGHLIGHTED_STATUSES = frozenset({"verified", "relocated"})


@dataclass(frozen=True, slots=True)
class CitationView:
    """Everything the page needs to show one citation; built by the caller
    from a Citation row (all text fields are untrusted and escaped here)."""

    cid: str
    label: str
    excerpt: str = ""
    status: str = "pending"
    status_label: str = ""
    href: str | None = None
    is_url: bool = False
    source_type: str = "file"
    path: str | None = None
    url: str | None = None
    title: str | None = None
    line_start: int | None = None
    line_end: int | None = None
    relevance: str | None = None
    confidence: float | None = None
    highlight: bool | None = None  # None: only verified/relocated ranges

    def __post_init__(self) -> None:
        if not self.status_label:
            label = self.status.replace("_", " ").capitalize()
            object.__setattr__(self, "status_label", STATUSES.get(self.status, (label,))[0])
        if self.highlight is None:
            object.__setattr__(self, "highlight", self.status in HIGHLIGHTED_STATUSES)

    @property
    def tone(self) -> str:
        return STATUSES.get(self.status, ("", "muted"))[1]

    @property
    def lines(self) -> str:
        if self.line_start is None:
            return ""
        end = self.line_end if self.line_end is not None else self.line_start
        return f"{self.line_start}" if end == self.line_start else f"{self.line_start}-{end}"


# --- sanitiser ----------------------------------------------------------------

ALLOWED_TAGS = frozenset(
    "a abbr b blockquote br caption code dd del div dl dt em h1 h2 h3 h4 h5 h6 hr i ins kbd li "
    "mark ol p pre q s samp small span strong sub sup table tbody td tfoot th thead tr ul var".split()
)
# Dropped together with their content: text inside them is never meant to show.
DROPPED_WITH_CONTENT = frozenset(
    "script style template iframe object embed noscript textarea title xmp noembed noframes "
    "svg math select".split()
)
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "abbr": {"title"}, "ol": {"start"}}
_ALIGN = {"align": {"left", "center", "right"}}
# Classes are restricted too: a free `class` would let an answer dress text up
# as a citation link or a "verified" badge.
_PYGMENTS_CLASSES = {name for name in STANDARD_TYPES.values() if name}
ALLOWED_CLASSES = {"div": {"highlight"}, "span": _PYGMENTS_CLASSES}
URL_SCHEMES = frozenset({"http", "https", "mailto"})


_CLEANER = nh3.Cleaner(
    tags=set(ALLOWED_TAGS),
    clean_content_tags=set(DROPPED_WITH_CONTENT),
    attributes={tag: set(names) for tag, names in ALLOWED_ATTRIBUTES.items()},
    tag_attribute_values={"td": _ALIGN, "th": _ALIGN},
    allowed_classes={tag: set(names) for tag, names in ALLOWED_CLASSES.items()},
    url_schemes=set(URL_SCHEMES),
    link_rel="noopener noreferrer",
    strip_comments=True,
)


def sanitize_html(fragment: str) -> str:
    """Clean an untrusted HTML fragment with the app's allowlist."""
    return _CLEANER.clean(fragment)


def safe_href(url: str | None) -> str | None:
    """Return ``url`` if it is http(s)/mailto or relative, else None.

    Used for links we build ourselves (URL sources come from the engine)."""
    if not url or any(ord(ch) <= 32 or ord(ch) == 127 for ch in url):
        return None
    scheme = urlsplit(url).scheme.lower()
    if scheme:
        return url if scheme in URL_SCHEMES else None
    # No scheme: a colon before the first slash would still be read as one.
    return None if ":" in url.split("/", 1)[0] else url


# --- markers ------------------------------------------------------------------

MARKER_RE = re.compile(r"\[(c\d{1,5}(?:\s*(?:[,;]|[-–])\s*c?\d{1,5})*)\]")
_MAX_RANGE = 50  # "[c1-c99999]" is a typo or an attack, not 99,999 citations
_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CODE_SPAN_RE = re.compile(r"(`+)(?:.+?)\1", re.DOTALL)
_REF_DEF_RE = re.compile(r"^ {0,3}\[c\d+\]:.*$", re.DOTALL)
_MAX_BRACKETS, _MAX_INLINE = 150, 400
MAX_MARKDOWN_CHARS = 1_000_000  # beyond this an answer is shown as plain text


def marker_ids(inner: str) -> list[str] | None:
    """Expand the inside of one marker ("c1, c2", "c1-c3") to ids, or None if
    it is not a sensible marker."""
    ids: list[str] = []
    for part in re.split(r"\s*[,;]\s*", inner):
        match = re.fullmatch(r"c(\d+)(?:\s*[-–]\s*c?(\d+))?", part)
        if not match:
            return None
        first = int(match[1])
        last = int(match[2]) if match[2] else first
        if last < first or last - first >= _MAX_RANGE:
            return None
        ids.extend(f"c{n}" for n in range(first, last + 1))
    return ids


def _map_paragraphs(text: str, func: Callable[[str], str]) -> str:
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


def _map_prose(text: str, func: Callable[[str], str]) -> str:
    """Apply ``func`` to the Markdown outside fenced code blocks and inline
    code spans (indented code is rare in answers and left alone)."""
    return _map_paragraphs(text, lambda para: _outside_code_spans(para, func))


def _is_pathological(para: str) -> bool:
    # Python-Markdown's inline processing is quadratic or worse in the number
    # of "[", "(", "<" and escapes in one paragraph (20,000 stray "[" take
    # minutes). Prose never has that many; such a paragraph is shown as text.
    return sum(map(para.count, "[(<")) > _MAX_BRACKETS or sum(map(para.count, "\\`*_&")) > _MAX_INLINE


# --- rendering ----------------------------------------------------------------

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
        "data-source": view.label,
        "aria-describedby": f"{id_prefix}source-{view.cid}",
    }
    text = "".join(_attr(name, value) for name, value in attrs.items()) + f">[{html.escape(view.cid)}]"
    if href:
        return f'<a class="cite"{_attr("href", href)}{text}</a>'
    return f'<span class="cite cite--nolink" tabindex="0"{text}</span>'


def _sub_markers(text: str, citations: Mapping[str, object], emit: Callable[[str], str]) -> str:
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
            out.append(token if skip_depth or "[c" not in token else _sub_markers(token, citations, emit))
    return "".join(out)


def markdown_to_html(markdown_text: str) -> str:
    """Untrusted Markdown → sanitised HTML (no citation links)."""
    converter = markdown.Markdown(
        extensions=["fenced_code", "tables", "codehilite", "sane_lists"],
        extension_configs={
            "codehilite": {"css_class": "highlight", "guess_lang": False, "use_pygments": True},
            # `align` instead of inline styles, which the sanitiser drops.
            "tables": {"use_align_attribute": True},
        },
        output_format="html",
    )
    # Raw HTML in an answer is shown as text, never passed through: the
    # sanitiser would drop an unclosed <textarea> or <style> together with
    # everything after it, losing the rest of the answer.
    converter.preprocessors.deregister("html_block")
    converter.inlinePatterns.deregister("html")
    literal: list[str] = []
    token = f"rmliteral{secrets.token_hex(8)}x"

    def prepare(para: str) -> str:
        # "[c1]: https://evil" would turn every [c1] into the answer's own link.
        lines = para.splitlines(keepends=True)
        para = "".join(line for line in lines if not _REF_DEF_RE.match(line))
        if not _is_pathological(para):
            return para
        literal.append(html.escape(para.strip(), quote=False))
        return f"{token}{len(literal) - 1}\n"

    source = markdown_text or ""
    if len(source) > MAX_MARKDOWN_CHARS:
        return sanitize_html(_plain_paragraphs(source))
    try:
        text = converter.convert(_map_paragraphs(source, prepare))
    except RecursionError:
        # Deeply nested lists or quotes exhaust Python-Markdown's recursion:
        # the answer is still shown, as plain paragraphs.
        return sanitize_html(_plain_paragraphs(source))
    if literal:
        text = re.sub(rf"{token}(\d+)", lambda match: literal[int(match[1])], text)
    return sanitize_html(text)


def _plain_paragraphs(text: str) -> str:
    paragraphs = re.split(r"\n[ \t]*\n", text.strip())
    return "".join(f"<p>{html.escape(p, quote=False).replace(chr(10), '<br>')}</p>" for p in paragraphs if p)


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
    return link_citations(markdown_to_html(markdown_text), citations, link_for=link_for, id_prefix=id_prefix)


# --- sources panel --------------------------------------------------------------


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

    body = _map_prose(text, lambda prose: _sub_markers(prose, citations, emit)).rstrip()
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
