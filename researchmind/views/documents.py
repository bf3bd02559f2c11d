"""The viewer's Page view of a PDF: the page as an image rendered on the
server, the cited characters' rectangles drawn over it, previous and next
page. The text view stays the default and the accessible fallback."""

from __future__ import annotations

import re

from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from citations.models import Citation
from core.ingest.documents import DocumentError
from core.ingest.documents.locate import load_map
from core.ingest.documents.pages import page_image, rect_boxes
from researchmind.views.files import _cited_from, _owned_item

_PAGE = re.compile(r"^\d{1,6}$")


def _pdf_map(item, file_path: str) -> dict:
    data = load_map(item.documents_path, file_path)
    if data is None or data.get("kind") != "pdf":
        raise Http404("This file is not the text of a PDF.")
    return data


def _citation(session, cite: str) -> Citation | None:
    back = _cited_from(session, cite)
    if back is None:
        return None
    question_id, cid = cite.split("-", 1)
    return Citation.objects.filter(question_id=int(question_id), cid=cid, question__session=session).first()


@login_required
@require_GET
def document_page(request, session_id, content_id, file_path):
    session, item = _owned_item(request, session_id, content_id)
    data = _pdf_map(item, file_path)
    cite = request.GET.get("cite", "")
    citation = _citation(session, cite)
    locator = (
        citation.locator
        if citation is not None and citation.source_path == f"{item.id}/{file_path}"
        else None
    )
    requested = request.GET.get("page", "")
    number = int(requested) if _PAGE.match(requested) else (locator["page"] if locator else 1)
    try:
        image = page_image(item.documents_path, data["original"], number)
    except DocumentError as exc:
        raise Http404(str(exc)) from None
    rects = next((r["rects"] for r in (locator or {}).get("regions", []) if r["page"] == number), [])
    suffix = f"&cite={cite}" if locator else ""
    text_href = reverse("file_viewer", args=[session.id, item.id, file_path])
    if locator and citation.line_start:
        end = citation.line_end or citation.line_start
        text_href += f"?hl={citation.line_start}-{end}&cite={cite}#L{citation.line_start}-L{end}"
    else:
        heading = next((n for n, o in enumerate(data["lines"], start=1) if o and o.get("page") == number), 1)
        text_href += f"?at={heading}#L{heading}"
    return render(
        request,
        "researchmind/document_page.html",
        {
            "session": session,
            "item": item,
            "file_path": file_path,
            "original": data["original"],
            "page": image,
            "boxes": rect_boxes(rects, image.height),
            "image_href": reverse("document_page_image", args=[session.id, item.id, number, file_path]),
            "previous_href": f"?page={number - 1}{suffix}" if number > 1 else "",
            "next_href": f"?page={number + 1}{suffix}" if number < image.count else "",
            "text_href": text_href,
            "back": _cited_from(session, cite) if locator else None,
            "ocr": any(
                origin and origin.get("page") == number and origin.get("ocr") for origin in data["lines"]
            ),
        },
    )


@login_required
@require_GET
def document_page_image(request, session_id, content_id, page, file_path):
    _session, item = _owned_item(request, session_id, content_id)
    data = _pdf_map(item, file_path)
    try:
        image = page_image(item.documents_path, data["original"], page)
    except DocumentError as exc:
        raise Http404(str(exc)) from None
    response = FileResponse(image.path.open("rb"), content_type="image/png")
    response["Cache-Control"] = "private, max-age=3600"
    response["X-Content-Type-Options"] = "nosniff"
    return response
