"""The sandbox file viewer, raw download and citation feedback."""

from __future__ import annotations

import re

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from citations.models import Citation, CitationFeedback
from citations.services import citation_feedback_record
from core.citations.markers import ID_RE
from core.citations.rendering import web_href
from core.ingest.documents.locate import describe, line_labels, load_map, map_locator
from core.viewer import ViewerError, open_window, raw_text
from researchmind.models import ContentItem
from researchmind.pages import owned_session

RANGE = re.compile(r"^(\d{1,9})(?:-(\d{1,9}))?$")


def _range(value: str | None) -> tuple[int | None, int | None]:
    match = RANGE.match(value or "")
    if not match:
        return None, None
    start = int(match.group(1))
    end = int(match.group(2) or start)
    return (start, end) if end >= start else (end, start)


def _owned_item(request, session_id, content_id):
    session = owned_session(request, session_id)
    item = get_object_or_404(
        ContentItem.objects.owned_by(request.user),
        pk=content_id,
        session=session,
        status=ContentItem.Status.READY,
    )
    return session, item


@login_required
@require_GET
def file_viewer(request, session_id, content_id, file_path):
    session, item = _owned_item(request, session_id, content_id)
    hl_start, hl_end = _range(request.GET.get("hl"))
    at_start, at_end = _range(request.GET.get("at"))
    page_start, _page_end = _range(request.GET.get("from"))
    start = hl_start or at_start
    end = hl_end or at_end
    try:
        # Resolved within the item's own folder: a symlink that leaves the item
        # (to another item, the manifest) is refused like one leaving the sandbox.
        window = open_window(
            item.folder,
            file_path,
            line_start=start,
            line_end=end,
            first_line=page_start,
            highlight=hl_start is not None,
        )
    except ViewerError as exc:
        raise Http404(str(exc)) from None
    # A document's rendition: each line group is labelled with where it came
    # from (slide, sheet and cells, cell, paragraph and heading, chapter, page).
    data = load_map(item.documents_path, file_path)
    labels = line_labels(data, window.first, window.last) if data else {}
    cited = None
    if data and window.highlight_start:
        cited = describe(map_locator(data, window.highlight_start, window.highlight_end), data["original"])
    return render(
        request,
        "researchmind/file_viewer.html",
        {
            "session": session,
            "item": item,
            "file_path": file_path,
            "window": window,
            "rows": [(line, labels.get(line.number)) for line in window.lines],
            "cited_label": cited,
            "hl": request.GET.get("hl", ""),
            "original_href": web_href(item.source_url),
            "back": _cited_from(session, request.GET.get("cite", "")),
            "page_href": _page_view_href(session, item, file_path, data, window, request.GET.get("cite", "")),
        },
    )


def _page_view_href(session, item, file_path: str, data: dict | None, window, cite: str) -> str | None:
    """The Page view of the PDF this file is the text of (``None`` for other
    files), at the page of the first line shown or highlighted."""
    if data is None or data.get("kind") != "pdf":
        return None
    line = window.highlight_start or window.first or 1
    origins = data["lines"]
    page = next((o["page"] for o in reversed(origins[:line]) if o and "page" in o), 1)
    href = reverse("document_page", args=[session.id, item.id, file_path]) + f"?page={page}"
    if _CITE.match(cite):
        href += f"&cite={cite}"
    return href + "#cited"


_CITE = re.compile(rf"^(\d{{1,12}})-({ID_RE.pattern})$")


def _cited_from(session, value: str) -> dict | None:
    """The answer and citation the viewer was opened from (``cite=<question>-<cid>``),
    when that citation belongs to this session (so it is the person's own)."""
    match = _CITE.match(value)
    if not match:
        return None
    citation = (
        Citation.objects.filter(question_id=int(match[1]), cid=match[2], question__session=session)
        .select_related("question")
        .first()
    )
    if citation is None:
        return None
    question = citation.question
    href = reverse("question_detail", args=[session.id, question.pk]) + f"#source-{citation.cid}"
    return {"href": href, "question": question.text, "cid": citation.cid, "param": value}


@login_required
@require_GET
def file_raw(request, session_id, content_id, file_path):
    _session, item = _owned_item(request, session_id, content_id)
    try:
        data, filename = raw_text(item.folder, file_path)
    except ViewerError as exc:
        raise Http404(str(exc)) from None
    response = HttpResponse(data, content_type="text/plain; charset=utf-8")
    # Always an attachment in text/plain: an uploaded .html never renders in our origin.
    safe_name = re.sub(r"[^A-Za-z0-9._-]", "_", filename)[:100] or "file.txt"
    response["Content-Disposition"] = f'attachment; filename="{safe_name}"'
    response["X-Content-Type-Options"] = "nosniff"
    return response


@login_required
@require_POST
def citation_feedback(request, citation_id):
    citation = get_object_or_404(
        Citation.objects.select_related("question__session"),
        pk=citation_id,
        question__session__owner=request.user,
    )
    verdict = request.POST.get("verdict", "")
    if verdict not in CitationFeedback.Verdict.values:
        return HttpResponse("Choose helpful or wrong.", status=400)
    citation_feedback_record(citation=citation, user=request.user, verdict=verdict)
    return render(request, "researchmind/_feedback.html", {"citation": citation, "verdict": verdict})
