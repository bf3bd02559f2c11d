"""Citations of documents: the built-in engine answers from a PDF's
rendition, and every citation of it carries its page and highlight
rectangles and is named "crc.pdf, p. N" on the question page; plain text
keeps a null locator."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from citations.models import Citation
from citations.services import citations_record
from researchmind.models import Question
from researchmind.runs import run_question

pytestmark = pytest.mark.django_db(transaction=True)

CRC_PDF = Path(
    "/usr/share/doc/zlib1g-dev/crc-doc.1.0.pdf.gz"
)  # Debian's zlib1g-dev (`make test` installs it)


@pytest.fixture
def crc_bytes() -> bytes:
    if not CRC_PDF.exists():
        pytest.fail(
            f"{CRC_PDF} is missing: `make test` installs Debian's zlib1g-dev for the documents tests."
        )
    return gzip.decompress(CRC_PDF.read_bytes())


@pytest.fixture
def crc_item(client_for, user, research, crc_bytes):
    client_for(user).post(
        reverse("content_add", args=[research.id, "files"]),
        {"files": SimpleUploadedFile("crc.pdf", crc_bytes, content_type="application/pdf")},
    )
    item = research.content_items.get()
    assert item.status == "ready", item.error
    return item


def test_builtin_answer_from_a_pdf_cites_its_pages(client_for, user, research, crc_item):
    """Every citation of the rendition that the built-in engine makes is
    verified, has the page its lines are on, and rectangles on that page."""
    question = Question.objects.create(
        session=research,
        text="How many CPU cycles per byte does the interleaved CRC computation take?",
        engine="builtin",
    )
    run_question(question.pk)
    question.refresh_from_db()
    assert question.status == "complete", question.error
    cited = list(question.citations.filter(source_path__endswith="crc.pdf.md"))
    assert cited
    lines = (crc_item.folder / "crc.pdf.md").read_text(encoding="utf-8").split("\n")
    for citation in cited:
        assert citation.verification in ("verified", "relocated")
        page = max(
            int(line.split()[-1]) for line in lines[: citation.line_start] if line.startswith("## Page ")
        )
        assert citation.locator["kind"] == "pdf" and citation.locator["page"] == page
        assert citation.locator["regions"][0]["rects"]
    page = client_for(user).get(reverse("question_detail", args=[research.id, question.pk])).content.decode()
    assert f"crc.pdf, p. {cited[0].locator['page']}" in page


def cite_related_work(research, crc_item) -> Citation:
    """Record an answer citing the paragraph under "2 Related work" (page 3), as an engine would."""
    lines = (crc_item.folder / "crc.pdf.md").read_text(encoding="utf-8").split("\n")
    at = lines.index("2 Related work") + 2  # the paragraph under the heading
    block = [{
        "id": "c1",
        "source_file": f"{crc_item.id}/crc.pdf.md",
        "source_type": "file",
        "location": {"line_start": at, "line_end": at + 1},
        "excerpt": f"{lines[at - 1]} {lines[at]}",
    }]  # fmt: skip
    question = Question.objects.create(
        session=research,
        text="Who proposed CRCs?",
        engine="builtin",
        status=Question.Status.COMPLETE,
        answer="CRCs date from 1961 [c1].",
        answer_raw=f"CRCs date from 1961 [c1].\n<!-- CITATIONS: {json.dumps(block)} -->",
    )
    citations_record(question)
    return Citation.objects.select_related("question").get(question=question)


def test_a_hand_written_citation_of_page_three_names_page_three(research, crc_item):
    citation = cite_related_work(research, crc_item)
    assert citation.verification == "verified"
    assert (citation.locator["page"], citation.locator["page_end"]) == (3, 3)
    assert len(citation.locator["regions"][0]["rects"]) == 2
    assert "crc.pdf, p. 3" in Question.objects.get(pk=citation.question_id).html_cache


def test_the_admin_shows_a_pdf_citations_locator(research, crc_item, auditor):
    citation = cite_related_work(research, crc_item)
    page = auditor.get(reverse("admin:citations_citation_change", args=[citation.pk])).content.decode()
    assert "&quot;kind&quot;: &quot;pdf&quot;" in page and "&quot;page&quot;: 3" in page


def test_plain_text_citations_keep_a_null_locator(research, add_text):
    item = add_text(research, "Notes", "# Notes\n\nAccess tokens expire after 15 minutes.\n")
    block = [{"id": "c1", "source_file": f"{item.id}/notes.md", "source_type": "file",
              "location": {"line_start": 3, "line_end": 3}, "excerpt": "Access tokens expire after 15 minutes."}]  # fmt: skip
    question = Question.objects.create(
        session=research, text="q", engine="builtin", status=Question.Status.COMPLETE,
        answer="Fifteen minutes [c1].", answer_raw=f"Fifteen minutes [c1].\n<!-- CITATIONS: {json.dumps(block)} -->",
    )  # fmt: skip
    citations_record(question)
    citation = Citation.objects.get(question=question)
    assert citation.verification == "verified" and citation.locator is None
