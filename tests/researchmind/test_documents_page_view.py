"""The viewer's Page view of a PDF citation: the page rendered by pdfium at
150 dpi and cached, the verified characters' rectangles drawn over it, page
navigation, and the way back to the text view."""

from __future__ import annotations

import gzip
import io
import json
import re
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from PIL import Image

from citations.models import Citation
from citations.services import citations_record
from researchmind.models import Question

pytestmark = pytest.mark.django_db(transaction=True)

CRC_PDF = Path(
    "/usr/share/doc/zlib1g-dev/crc-doc.1.0.pdf.gz"
)  # Debian's zlib1g-dev (`make test` installs it)


@pytest.fixture
def crc_item(client_for, user, research):
    if not CRC_PDF.exists():
        pytest.fail(
            f"{CRC_PDF} is missing: `make test` installs Debian's zlib1g-dev for the documents tests."
        )
    client_for(user).post(
        reverse("content_add", args=[research.id, "files"]),
        {"files": SimpleUploadedFile("crc.pdf", gzip.decompress(CRC_PDF.read_bytes()))},
    )
    item = research.content_items.get()
    assert item.status == "ready", item.error
    return item


@pytest.fixture
def cited(research, crc_item) -> Citation:
    """A verified citation of the paragraph under "2 Related work", on page 3."""
    lines = (crc_item.folder / "crc.pdf.md").read_text(encoding="utf-8").split("\n")
    at = lines.index("2 Related work") + 2
    block = [{"id": "c1", "source_file": f"{crc_item.id}/crc.pdf.md", "source_type": "file",
              "location": {"line_start": at, "line_end": at + 1}, "excerpt": f"{lines[at - 1]} {lines[at]}"}]  # fmt: skip
    answer = "CRCs date from 1961 [c1]."
    question = Question.objects.create(
        session=research, text="Who proposed CRCs?", engine="builtin", status=Question.Status.COMPLETE,
        answer=answer, answer_raw=f"{answer}\n<!-- CITATIONS: {json.dumps(block)} -->",
    )  # fmt: skip
    citations_record(question)
    return Citation.objects.get(question=question)


def test_the_text_view_links_to_the_cited_page(client_for, user, research, crc_item, cited):
    text_view = reverse("file_viewer", args=[research.id, crc_item.id, "crc.pdf.md"])
    html = (
        client_for(user)
        .get(text_view, {"hl": f"{cited.line_start}-{cited.line_end}", "cite": f"{cited.question_id}-c1"})
        .content.decode()
    )
    page_view = reverse("document_page", args=[research.id, crc_item.id, "crc.pdf.md"])
    assert f'href="{page_view}?page=3&amp;cite={cited.question_id}-c1#cited"' in html


def test_the_page_view_draws_the_citations_rectangles_on_its_page(
    client_for, user, research, crc_item, cited
):
    page_view = reverse("document_page", args=[research.id, crc_item.id, "crc.pdf.md"])
    html = client_for(user).get(page_view, {"page": 3, "cite": f"{cited.question_id}-c1"}).content.decode()
    assert "page 3 of 29" in html
    rects = cited.locator["regions"][0]["rects"]
    drawn = re.findall(
        r'<rect class="page-hl"(?: id="cited")? x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"',
        html,
    )
    assert len(drawn) == len(rects) == 2
    for (x, y, width, height), (left, bottom, right, top) in zip(drawn, rects, strict=True):
        # SVG boxes from the top left, 1.5 points of margin around each PDF rectangle.
        assert float(x) == pytest.approx(left - 1.5, abs=0.01)
        assert float(y) == pytest.approx(792 - top - 1.5, abs=0.01)
        assert float(width) == pytest.approx(right - left + 3, abs=0.01)
        assert float(height) == pytest.approx(top - bottom + 3, abs=0.01)
    assert 'id="cited"' in html
    assert "?page=2&amp;cite=" in html and "?page=4&amp;cite=" in html
    assert f"hl={cited.line_start}-{cited.line_end}" in html  # back to the text view at the cited lines


def test_the_page_image_is_rendered_at_150_dpi_and_cached(client_for, user, research, crc_item):
    image = reverse("document_page_image", args=[research.id, crc_item.id, 3, "crc.pdf.md"])
    response = client_for(user).get(image)
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    png = Image.open(io.BytesIO(b"".join(response.streaming_content)))
    width, height = png.size  # 612 x 792 points at 150 / 72, pdfium rounding up
    assert (width, height) in ((1275, 1650), (1275, 1651))
    assert (crc_item.documents_path / "pages" / "crc.pdf" / "3-150dpi.png").is_file()


def test_the_last_page_has_no_next_and_a_page_past_it_is_404(client_for, user, research, crc_item):
    page_view = reverse("document_page", args=[research.id, crc_item.id, "crc.pdf.md"])
    client = client_for(user)
    html = client.get(page_view, {"page": 29}).content.decode()
    assert "page 29 of 29" in html and 'rel="next"' not in html and 'rel="prev"' in html
    assert client.get(page_view, {"page": 30}).status_code == 404


def test_text_files_and_other_peoples_pdfs_have_no_page_view(
    client_for, user, other_user, research, crc_item, add_text
):
    notes = add_text(research, "Notes", "# Notes\n\nPlain text.\n")
    notes_file = next(p.name for p in notes.folder.iterdir())
    assert (
        client_for(user).get(reverse("document_page", args=[research.id, notes.id, notes_file])).status_code
        == 404
    )
    page_view = reverse("document_page", args=[research.id, crc_item.id, "crc.pdf.md"])
    assert client_for(other_user).get(page_view).status_code == 404


def test_a_path_that_climbs_out_of_the_maps_folder_is_404(client_for, user, research, crc_item):
    """The Page view's path names a rendition; "../" cannot make it read another JSON file."""
    outside = crc_item.documents_path / "secret.json"
    outside.write_text('{"version": 1, "kind": "pdf", "original": "crc.pdf", "lines": []}')
    client = client_for(user)
    for path in ("../secret", "maps/../../secret", "%2e%2e/secret"):
        assert client.get(f"/sessions/{research.id}/pages/{crc_item.id}/{path}").status_code == 404
