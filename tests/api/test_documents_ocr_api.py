"""A scanned PDF uploaded through the API: a citation of its OCR text has
``"ocr": true`` in its locator and its ``label`` says "OCR text: check the
page image" in ``/api/questions/{id}/citations``."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.core.ingest.documents.builders import make_scan
from tests.researchmind.test_documents_ocr import SPEC_PDF, WARNING, cite

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]  # tesseract reads a page


@pytest.fixture
def scan_bytes(tmp_path) -> bytes:
    if not SPEC_PDF.exists():
        pytest.fail(f"{SPEC_PDF} is missing: `make test` installs Debian's shared-mime-info.")
    return make_scan(tmp_path, SPEC_PDF, [2]).read_bytes()


def test_a_scan_uploaded_through_the_api_is_labelled_ocr_text(api, research, scan_bytes):
    upload = SimpleUploadedFile("scan.pdf", scan_bytes, content_type="application/pdf")
    response = api.post(f"/api/sessions/{research.id}/content/files", data={"files": [upload]})
    assert response.status_code in (200, 201, 202), response.content
    item = research.content_items.get()
    assert item.status == "ready", item.error
    citation = cite(research, item)
    (payload,) = api.get(f"/api/questions/{citation.question_id}/citations").json()
    assert payload["verification"] == "verified"
    assert payload["locator"]["ocr"] is True
    assert payload["label"] == f"{item.id}/scan.pdf, p. 1 ({WARNING})"
