"""What the question page shows of an answer: the rendered, sanitised HTML
(cached per question, refreshed when verification changes), the sources
panel and the Markdown copy."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import cache
from html import escape as escape_html
from urllib.parse import quote

from django.template.defaultfilters import floatformat, truncatechars
from django.urls import reverse
from django.utils.encoding import force_str
from django.utils.functional import Promise
from django.utils.http import RFC3986_SUBDELIMS
from django.utils.safestring import mark_safe

from citations.models import Citation
from core.citations import rendering
from core.citations.rendering import CitationView, answer_as_markdown, render_answer, web_href
from core.citations.rendering.badges import support_summary
from core.citations.rendering.quote import clean_quote
from core.citations.states import COUNTED_AS_VERIFIED, HIGHLIGHTED
from core.ingest.documents import RENDITION_SUFFIX
from core.ingest.documents.locate import describe
from progress.selectors import files_read as read_files

# Stands for the part of a URL that varies from citation to citation when its route is
# reversed once for them all (``Links``); quoting leaves it as it is.
_MARK = "rmcitationsmark"
_INT_MARK = 918273645


class Links:
    """The URLs of one answer's citations, each route reversed once and the varying part
    filled in as ``reverse`` would have it (a reverse per citation was a fifth of
    rendering an answer of 1,000)."""

    def __init__(self) -> None:
        self.viewer_bases: dict[tuple, str] = {}
        self.feedback_parts: tuple[str, str] | None = None

    def viewer(self, session_id, item_id, path: str) -> str:
        if "\n" in path:  # no route matches it: ``reverse`` says so
            return reverse("file_viewer", args=[session_id, item_id, path])
        key = (session_id, item_id)
        if key not in self.viewer_bases:
            marked = reverse("file_viewer", args=[session_id, item_id, _MARK])
            self.viewer_bases[key] = marked.removesuffix(_MARK)  # the route ends with the path
        # Quoted as ``reverse`` quotes the whole URL (the base is quoted already).
        return self.viewer_bases[key] + quote(path, safe=RFC3986_SUBDELIMS + "/~:@")

    def feedback(self, citation_pk: int) -> str:
        if self.feedback_parts is None:
            before, _, after = reverse("citation_feedback", args=[_INT_MARK]).rpartition(str(_INT_MARK))
            self.feedback_parts = (before, after)
        return f"{self.feedback_parts[0]}{int(citation_pk)}{self.feedback_parts[1]}"


def viewer_url(citation: Citation, links: Links | None = None) -> str | None:
    if not citation.content_item_id or not citation.path_in_item:
        return None
    if citation.verification == Citation.Verification.SOURCE_REMOVED:
        return None  # its item is being (or was) removed: a link would open a 404
    args = (citation.question.session_id, citation.content_item_id, citation.path_in_item)
    url = links.viewer(*args) if links else reverse("file_viewer", args=args)
    # ``cite`` names the citation it was opened from: the viewer links back to it.
    cite = f"cite={citation.question_id}-{citation.cid}"
    if citation.line_start:
        end = citation.line_end or citation.line_start
        # Only verified ranges are highlighted; others open scrolled to the lines.
        key = "hl" if citation.verification in HIGHLIGHTED else "at"
        url += f"?{key}={citation.line_start}-{end}&{cite}#L{citation.line_start}-L{end}"
    else:
        url += f"?{cite}"
    return url


@cache
def _choices(field: str) -> dict:
    """A choice field's labels by value, read once (``get_FOO_display`` rebuilds them per call)."""
    return dict(Citation._meta.get_field(field).flatchoices)


def display(citation: Citation, field: str) -> str:
    """``citation.get_<field>_display()``, from the labels read once."""
    value = getattr(citation, field)
    return force_str(_choices(field).get(value, value), strings_only=True)


def citation_view(citation: Citation, links: Links | None = None) -> CitationView:
    is_url = citation.source_type == Citation.SourceType.URL
    href = in_viewer = viewer_url(citation, links)
    if href is None and citation.url:
        href = web_href(citation.url)  # engine-supplied: only http(s), never javascript: or data:
    label = citation.title or citation.source_path or citation.url or citation.get_source_type_display()
    if citation.source_path and citation.title:
        label = f"{citation.title}/{citation.path_in_item}" if citation.path_in_item else citation.title
    if citation.locator and citation.path_in_item.endswith(RENDITION_SUFFIX):
        # A document is named as itself with its page, slide or cell, not as its rendition's lines.
        label = describe(citation.locator, citation.path_in_item.removesuffix(RENDITION_SUFFIX))
    elif citation.line_start:
        label += f":{citation.line_start}" + (
            f"-{citation.line_end}" if citation.line_end and citation.line_end != citation.line_start else ""
        )
    return CitationView(
        cid=citation.cid,
        label=label,
        # The file's text with its markup cleaned, lines kept (the row keeps it verbatim).
        excerpt=clean_quote(citation.excerpt, citation.source_path),
        status=citation.verification,
        status_label=display(citation, "verification"),
        href=href,
        is_url=is_url and not in_viewer,
        highlight=citation.verification in HIGHLIGHTED,
        support=citation.support,
        support_reason=citation.support_reason,
    )


def store_answer_html(question, citations: list[Citation] | None = None) -> str:
    """Render the answer with its citations as they are now and keep it on the
    question: called by the writes that change either (recording citations,
    re-verifying them, flagging them stale), never by a page load. A caller
    that has just saved all of them, in order, passes them instead of having
    them read back."""
    if citations is None:
        citations = question.citations.order_by("position")
    links = Links()
    views = {c.cid: citation_view(c, links) for c in citations}
    html = (
        rendering.render_answer(question.answer, views, link_for=lambda view: view.href)
        if question.answer
        else ""
    )
    type(question).objects.filter(pk=question.pk).update(html_cache=html)
    question.html_cache = html
    return html


EXCERPT_SHOWN = 1200  # characters of a quote the sources list shows (``truncatechars``)


def _shown_excerpt(text: str) -> str:
    """``truncatechars:EXCERPT_SHOWN`` of the quote: a short one only NFC-normalised, as the filter
    returns it, without counting its characters one by one."""
    normal = unicodedata.normalize("NFC", text)
    return normal if len(normal) <= EXCERPT_SHOWN else truncatechars(text, EXCERPT_SHOWN)


# One entry of the page's sources list, as the template's loop had it (``{{ }}`` escapes as
# ``conditional_escape`` does); the form's CSRF input, per request, is the template's, between
# the two halves. Written out here once rather than per row in the template: a page of 1,000
# citations spent two thirds of its time resolving the loop's variables and tags.
_ROW_OPEN = (
    '\n          <li id="source-{cid}" class="source">'
    '\n            <span class="cid">[{cid}]</span>'
    "\n            {link}"
    '\n            <span class="badge verify-{verification}" title="{detail}">{status_label}</span>'
    '\n            <span class="{support_class} support-{support}" title="{support_title}">{support_label}</span>'
    "\n            {attached}"
    "\n            {extracted}"
    '\n            <span class="meta">{kind}{confidence}</span>'
    "\n            {excerpt}"
    "\n            "
    '\n            <form method="post" action="{feedback}" hx-post="{feedback}" hx-swap="outerHTML"'
    ' class="feedback-form inline-form">'
    "\n              "
)
_ROW_CLOSE = mark_safe(
    '\n              <button type="submit" name="verdict" value="helpful" class="button tiny">Helpful</button>'
    '\n              <button type="submit" name="verdict" value="wrong" class="button tiny">Wrong</button>'
    "\n            </form>"
    "\n          </li>"
    "\n          "
)
_NEW_TAB = mark_safe(' rel="noopener noreferrer" target="_blank"')
_ATTACHED = mark_safe(
    '<span class="badge badge--info attached-by-app" title="The model gave no citation that verifies: the'
    ' app matched this sentence to the lines of a passage the model was given or read.">Attached by the'
    " app</span>"
)
_EXTRACTED = mark_safe(
    '<span class="badge badge--info extracted-by-api" title="The Anthropic API extracted this quote from a'
    ' passage the app sent, one line per block: the lines are the blocks it cited.">Extracted by the'
    " API</span>"
)


@dataclass(frozen=True, slots=True)
class SourceRow:
    """One entry of the page's sources list: its markup up to the feedback form's CSRF input
    (``opening``) and after it (``closing``)."""

    cid: str
    opening: str
    closing: str = _ROW_CLOSE


def _text(value) -> str:
    """``value`` as ``{{ value }}`` writes it: escaped unless it is marked safe (``conditional_escape``,
    without building a ``SafeString`` per value)."""
    if isinstance(value, Promise):
        value = str(value)
    return value.__html__() if hasattr(value, "__html__") else escape_html(str(value))


def _row_opening(
    citation: Citation,
    view: CitationView,
    title: str,
    kind: str,
    confidence: str,
    excerpt: str,
    feedback_url: str,
) -> str:
    label = _text(view.label)
    if view.href:
        link = f'<a href="{_text(view.href)}"{_NEW_TAB if view.is_url else ""}>{label}</a>'
    else:
        link = f"<span>{label}</span>"
    return mark_safe(  # noqa: S308 (every value in it is escaped by _text)
        _ROW_OPEN.format(
            cid=_text(citation.cid),
            link=link,
            verification=_text(citation.verification),
            detail=_text(citation.verification_detail),
            status_label=_text(view.status_label),
            support_class="meta support-quiet" if citation.support == "unjudged" else "badge",
            support=_text(citation.support),
            support_title=_text(title),
            support_label=_text(view.support_label),
            attached=_ATTACHED if citation.found_by == "attached" else "",
            extracted=_EXTRACTED if citation.found_by == "api" else "",
            kind=_text(kind),
            confidence=f" · confidence {_text(confidence)}" if confidence else "",
            excerpt=f'<blockquote class="excerpt">{_text(excerpt)}</blockquote>' if excerpt else "",
            feedback=_text(feedback_url),
        )
    )


def source_rows(question, citations: list[Citation], views: dict[str, CitationView], links: Links) -> list:
    """The sources list's rows, their labels, URLs and markup worked out here once rather than
    per row in the template (a page of 1,000 citations spent most of its time there)."""
    protocol = question.protocol if isinstance(question.protocol, dict) else {}
    model = protocol.get("support_judge_model")
    confidences: dict[float, str] = {}
    rows = []
    for citation in citations:
        title = citation.support_reason
        if citation.support_judged_by:
            judge = display(citation, "support_judged_by")
            if citation.support_judged_by == "llm" and model:
                judge += f": {model}"
            title += f" ({judge})"
        kind = display(citation, "source_type") + (f" · {citation.relevance}" if citation.relevance else "")
        if citation.confidence is not None and citation.confidence not in confidences:
            confidences[citation.confidence] = floatformat(citation.confidence, 2)
        view = views[citation.cid]
        confidence = confidences.get(citation.confidence, "") if citation.confidence is not None else ""
        excerpt = _shown_excerpt(view.excerpt) if view.excerpt else ""
        opening = _row_opening(citation, view, title, kind, confidence, excerpt, links.feedback(citation.pk))
        rows.append(SourceRow(citation.cid, opening))
    return rows


def answer_context(question, *, files_read: list[str] | None = None) -> dict:
    """What the page shows of the answer. Reads only: the stored HTML, or,
    before the run has stored it, the answer rendered now and not kept.
    ``files_read`` (from the run's summary) spares reading the run's events."""
    citations = list(question.citations.order_by("position"))
    links = Links()
    views = {c.cid: citation_view(c, links) for c in citations}
    html = question.html_cache
    if not html and question.answer:
        html = render_answer(question.answer, views, link_for=lambda view: view.href)
    cited_paths = {c.source_path for c in citations}
    if files_read is None:
        files_read = read_files(question.pk)
    consulted = sorted(set(files_read) - cited_paths - {""})
    verified = sum(1 for c in citations if c.verification in COUNTED_AS_VERIFIED)
    return {
        "answer_html": html,
        "citations": source_rows(question, citations, views, links),
        "consulted": consulted,
        "answer_markdown": answer_as_markdown(question.answer, views) if question.answer else "",
        "verification_rate": round(100 * verified / len(citations)) if citations else None,
        "support_summary": support_summary(c.support for c in citations),
    }
