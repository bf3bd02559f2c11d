"""What the question page shows of an answer: the rendered, sanitised HTML
(cached per question, refreshed when verification changes), the sources
panel and the Markdown copy."""

from __future__ import annotations

from django.urls import reverse

from citations.models import Citation
from core.citations import rendering
from core.citations.rendering import CitationView, answer_as_markdown, render_answer, web_href
from core.citations.rendering.badges import support_summary
from core.citations.rendering.quote import clean_quote
from core.citations.states import COUNTED_AS_VERIFIED, HIGHLIGHTED
from core.ingest.documents import RENDITION_SUFFIX
from core.ingest.documents.locate import describe
from progress.selectors import files_read as read_files


def viewer_url(citation: Citation) -> str | None:
    if not citation.content_item_id or not citation.path_in_item:
        return None
    if citation.verification == Citation.Verification.SOURCE_REMOVED:
        return None  # its item is being (or was) removed: a link would open a 404
    url = reverse(
        "file_viewer", args=[citation.question.session_id, citation.content_item_id, citation.path_in_item]
    )
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


def citation_view(citation: Citation) -> CitationView:
    is_url = citation.source_type == Citation.SourceType.URL
    href = in_viewer = viewer_url(citation)
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
        status_label=citation.get_verification_display(),
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
        citations = question.citations.select_related("content_item").order_by("position")
    views = {c.cid: citation_view(c) for c in citations}
    html = (
        rendering.render_answer(question.answer, views, link_for=lambda view: view.href)
        if question.answer
        else ""
    )
    type(question).objects.filter(pk=question.pk).update(html_cache=html)
    question.html_cache = html
    return html


def answer_context(question, *, files_read: list[str] | None = None) -> dict:
    """What the page shows of the answer. Reads only: the stored HTML, or,
    before the run has stored it, the answer rendered now and not kept.
    ``files_read`` (from the run's summary) spares reading the run's events."""
    citations = list(question.citations.select_related("content_item").order_by("position"))
    views = {c.cid: citation_view(c) for c in citations}
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
        "citations": [(c, views[c.cid]) for c in citations],
        "consulted": consulted,
        "answer_markdown": answer_as_markdown(question.answer, views) if question.answer else "",
        "verification_rate": round(100 * verified / len(citations)) if citations else None,
        "support_summary": support_summary(c.support for c in citations),
    }
