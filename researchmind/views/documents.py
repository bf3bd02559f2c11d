"""The viewer's Page view of a PDF: the page as an image rendered on the
server, the cited characters' rectangles drawn over it, previous and next
page. The text view stays the default and the accessible fallback."""

from __future__ import annotations

import functools
import re

from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from citations.models import Citation
from core.ingest.documents import DocumentError
from core.ingest.documents.locate import load_map
from core.ingest.documents.pages import cached_page_path, media_type, page_image, rect_boxes
from core.sandbox import resolve_in_sandbox
from researchmind.views.files import _cited_from, _owned_item

_PAGE = re.compile(r"^\d{1,6}$")


@functools.lru_cache(maxsize=64)
def _map_header(documents_dir: str, file_path: str, _mtime_ns: int, _size: int) -> dict | None:
    """The map's kind, original and page count, kept per map file version: an
    image request must not parse a long document's whole map each time."""
    data = load_map(documents_dir, file_path)
    return None if data is None else {key: data.get(key) for key in ("kind", "original", "pages")}


def _pdf_header(item, file_path: str) -> dict:
    try:
        # Resolved as load_map resolves it: ``file_path`` comes from the URL.
        stat = resolve_in_sandbox(item.documents_path / "maps", f"{file_path}.json").stat()
    except (OSError, ValueError):
        raise Http404("This file is not the text of a PDF.") from None
    header = _map_header(str(item.documents_path), file_path, stat.st_mtime_ns, stat.st_size)
    if header is None or header["kind"] != "pdf":
        raise Http404("This file is not the text of a PDF.")
    return header


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
    header = _pdf_header(item, file_path)
    cached = cached_page_path(item.documents_path, header["original"], page)
    if not (1 <= page <= (header["pages"] or 0) and cached is not None):  # else render it (or say why not)
        try:
            cached = page_image(item.documents_path, header["original"], page).path
        except DocumentError as exc:
            raise Http404(str(exc)) from None
        except OSError:  # its path is private: say what is missing, not where
            raise Http404("The original of this document is missing: its pages cannot be shown.") from None
    response = FileResponse(cached.open("rb"), content_type=media_type(cached))
    response["Cache-Control"] = "private, max-age=3600"
    response["X-Content-Type-Options"] = "nosniff"
    return response
