"""A scanned PDF (real pages of Debian's shared-mime-info specification,
rasterised by pdftoppm and bound by img2pdf) uploaded through the page and
through the API: it ends ready with its pages read by OCR and said so in the
item's note; a citation of its text is verified, carries ``"ocr": true`` and
the quoted words' boxes, and is named "OCR text: check the page image" on
the question page, in the admin and on the Page view, which
draws those boxes over the page image."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from citations.models import Citation
from citations.services import citations_record
from core.ingest.documents.locate import load_map
from researchmind.models import Question
from tests.core.ingest.documents.builders import make_scan

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]  # tesseract reads a page

SPEC_PDF = Path("/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf")  # Debian's shared-mime-info
QUOTE = "There are two important requirements for the way the MIME database is stored"
WARNING = "OCR text: check the page image"


@pytest.fixture(scope="module")
def scan_bytes(tmp_path_factory) -> bytes:
    if not SPEC_PDF.exists():
        pytest.fail(f"{SPEC_PDF} is missing: `make test` installs Debian's shared-mime-info.")
    return make_scan(tmp_path_factory.mktemp("scan"), SPEC_PDF, [2]).read_bytes()


def cite(research, item) -> Citation:
    """Record an answer citing the OCR'd sentence, as an engine would."""
    lines = (item.folder / "scan.pdf.md").read_text(encoding="utf-8").split("\n")
    at = next(number for number, line in enumerate(lines, start=1) if QUOTE[:40] in line)
    block = [{"id": "c1", "source_file": f"{item.id}/scan.pdf.md", "source_type": "file",
              "location": {"line_start": at, "line_end": at}, "excerpt": QUOTE}]  # fmt: skip
    answer = "The database must be extensible [c1]."
    question = Question.objects.create(
        session=research, text="What must the database allow?", engine="builtin",
        status=Question.Status.COMPLETE, answer=answer,
        answer_raw=f"{answer}\n<!-- CITATIONS: {json.dumps(block)} -->",
    )  # fmt: skip
    citations_record(question)
    return Citation.objects.select_related("question").get(question=question)


def test_a_scan_uploaded_on_the_page_is_cited_as_ocr_text_everywhere(
    client_for, user, research, scan_bytes, django_user_model
):
    client = client_for(user)
    client.post(
        reverse("content_add", args=[research.id, "files"]),
        {"files": SimpleUploadedFile("scan.pdf", scan_bytes, content_type="application/pdf")},
    )
    item = research.content_items.get()
    assert item.status == "ready", item.error
    assert "scan.pdf: page 1 was read by OCR (check the page image when citing it)." in item.note

    citation = cite(research, item)
    assert citation.verification == "verified"
    locator = citation.locator
    assert (locator["page"], locator["page_end"], locator["ocr"]) == (1, 1, True)
    (region,) = locator["regions"]
    (rect,) = region["rects"]
    # The rectangle is the union of the OCR boxes of the quoted line's words.
    data = load_map(item.documents_path, "scan.pdf.md")
    words = data["lines"][citation.line_start - 1]["words"]
    assert rect == [
        min(w[2] for w in words),
        min(w[3] for w in words),
        max(w[4] for w in words),
        max(w[5] for w in words),
    ]

    answer = client.get(reverse("question_detail", args=[research.id, citation.question_id])).content.decode()
    assert f"scan.pdf, p. 1 ({WARNING})" in answer
    assert citation.location_label == f"{item.id}/scan.pdf, p. 1 ({WARNING})"

    page_view = reverse("document_page", args=[research.id, item.id, "scan.pdf.md"])
    html = client.get(page_view, {"cite": f"{citation.question_id}-c1"}).content.decode()
    assert 'id="ocr-note"' in html and WARNING in html
    (drawn,) = re.findall(r'<rect class="page-hl" id="cited" x="([\d.]+)" y="([\d.]+)"', html)
    height = pdfium.PdfDocument(scan_bytes)[0].get_size()[1]  # as img2pdf sized it from the 200 dpi image
    assert (float(drawn[0]), float(drawn[1])) == pytest.approx(
        (rect[0] - 1.5, height - rect[3] - 1.5), abs=0.01
    )
    image = client.get(reverse("document_page_image", args=[research.id, item.id, 1, "scan.pdf.md"]))
    assert image.status_code == 200 and image["Content-Type"] == "image/jpeg"  # a picture, not type
    assert b"".join(image.streaming_content)[:3] == b"\xff\xd8\xff"

    auditor = django_user_model.objects.create_superuser("ocr-auditor", "o@example.com", "pw-for-tests-2")
    admin = client_for(auditor).get(reverse("admin:citations_citation_changelist")).content.decode()
    assert f"scan.pdf, p. 1 ({WARNING})" in admin


def test_the_ocr_settings_bound_an_upload_and_a_scan_with_nothing_read_fails_with_why(
    client_for, user, research, scan_bytes, settings
):
    settings.DOCUMENT_OCR_MAX_PAGES = 0
    client_for(user).post(
        reverse("content_add", args=[research.id, "files"]),
        {"files": SimpleUploadedFile("scan.pdf", scan_bytes, content_type="application/pdf")},
    )
    item = research.content_items.get()
    assert item.status == "failed"
    assert "scan.pdf has no readable text on any page" in item.error
    assert "page 1 was not OCR'd: the limit is 0 OCR pages per document" in item.error
