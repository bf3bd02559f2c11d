"""Documents over the API: a PDF uploaded through the API ends ready, and
its citations carry their locator in ``/api/questions/{id}/citations``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import docx
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from citations.services import citations_record
from researchmind.models import Question
from tests.core.ingest.documents.builders import (
    libffi_page,
    make_epub,
    make_notebook,
    make_odt,
    make_slides,
    make_word,
    make_workbook,
    readme_sections,
)

pytestmark = pytest.mark.django_db(transaction=True)

# How the question page names each new kind's citation (the answer's sources).
NAMED = {
    "epub": "libffi.epub, “Chapter 3: The Basics”",
    "odt": "celery.odt, ¶ ",
    "html": "Introduction.html, “1 What is libffi?”",
}


def _epub(folder, _sections):
    return make_epub(folder)


def _odt(folder, _sections):
    return make_odt(folder)


def _html(folder, _sections):
    return Path(shutil.copy(libffi_page("Introduction"), folder / "Introduction.html"))


SPEC_PDF = Path("/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf")  # Debian's shared-mime-info


def test_a_pdf_uploaded_through_the_api_is_cited_with_its_page(api, research):
    if not SPEC_PDF.exists():
        pytest.fail(f"{SPEC_PDF} is missing: `make test` installs Debian's shared-mime-info.")
    upload = SimpleUploadedFile("mime-spec.pdf", SPEC_PDF.read_bytes(), content_type="application/pdf")
    response = api.post(f"/api/sessions/{research.id}/content/files", data={"files": [upload]})
    assert response.status_code in (200, 201, 202), response.content
    item = research.content_items.get()
    assert item.status == "ready", item.error
    lines = (item.folder / "mime-spec.pdf.md").read_text(encoding="utf-8").split("\n")
    at = next(
        n
        for n, line in enumerate(lines, start=1)
        if "A standard way of getting the MIME type for a file." in line
    )
    page = max(int(line.split()[-1]) for line in lines[:at] if line.startswith("## Page "))
    block = [{"id": "c1", "source_file": f"{item.id}/mime-spec.pdf.md", "source_type": "file",
              "location": {"line_start": at, "line_end": at}, "excerpt": "A standard way of getting the MIME type for a file."}]  # fmt: skip
    answer = "The database is shared [c1]."
    question = Question.objects.create(
        session=research, text="What is it?", engine="builtin", status=Question.Status.COMPLETE,
        answer=answer, answer_raw=f"{answer}\n<!-- CITATIONS: {json.dumps(block)} -->",
    )  # fmt: skip
    citations_record(question)
    (citation,) = api.get(f"/api/questions/{question.pk}/citations").json()
    assert citation["verification"] == "verified"
    locator = citation["locator"]
    assert (locator["kind"], locator["page"], locator["page_end"], locator["ocr"]) == (
        "pdf",
        page,
        page,
        False,
    )
    assert page == 2
    assert [region["page"] for region in locator["regions"]] == [2]
    assert len(locator["regions"][0]["rects"]) == 1  # the bullet is not part of the quote
    assert all(
        len(rect) == 4 and rect[0] < rect[2] and rect[1] < rect[3] for rect in locator["regions"][0]["rects"]
    )


@pytest.mark.parametrize(
    ("build", "name", "find", "expected"),
    [
        (
            make_word,
            "celery.docx",
            "## What's a Task Queue?",
            {"kind": "docx", "heading": "What's a Task Queue?"},
        ),
        (make_slides, "celery.pptx", "## Slide 2: ", {"kind": "pptx", "slide": 2}),
        (make_workbook, "celery.xlsx", "| 3 | ", {"kind": "xlsx", "sheet": "Sections", "cells": "A3:D3"}),
        (make_notebook, "tasks.ipynb", "app = Celery('tasks')", {"kind": "ipynb", "cell": 2}),
        (
            _epub,
            "libffi.epub",
            "## Chapter 3: The Basics",
            {"kind": "epub", "chapter": "Chapter 3: The Basics"},
        ),
        (_odt, "celery.odt", "## What's a Task Queue?", {"kind": "odt", "heading": "What's a Task Queue?"}),
        (
            _html,
            "Introduction.html",
            "## 1 What is libffi?",
            {"kind": "html", "heading": "1 What is libffi?"},
        ),
    ],
)
def test_office_files_and_notebooks_through_the_api_carry_their_locator(
    api, research, tmp_path, build, name, find, expected
):
    """Each kind uploaded through the API ends ready as its rendition, and a
    verified citation of it names its paragraph, slide, cells or cell."""
    path = build(tmp_path, readme_sections())
    upload = SimpleUploadedFile(name, path.read_bytes())
    assert api.post(f"/api/sessions/{research.id}/content/files", data={"files": [upload]}).status_code == 201
    item = research.content_items.get()
    assert item.status == "ready", item.error
    lines = (item.folder / f"{name}.md").read_text(encoding="utf-8").split("\n")
    at = next(n for n, line in enumerate(lines, start=1) if line.startswith(find))
    if expected["kind"] == "docx":
        at += 2  # the paragraph under the heading
    excerpt = lines[at - 1].strip("|# ").split(" | ")[0] or lines[at - 1]
    block = [{"id": "c1", "source_file": f"{item.id}/{name}.md", "source_type": "file",
              "location": {"line_start": at, "line_end": at}, "excerpt": excerpt}]  # fmt: skip
    answer = "It says so [c1]."
    question = Question.objects.create(
        session=research, text="What?", engine="builtin", status=Question.Status.COMPLETE,
        answer=answer, answer_raw=f"{answer}\n<!-- CITATIONS: {json.dumps(block)} -->",
    )  # fmt: skip
    citations_record(question)
    (citation,) = api.get(f"/api/questions/{question.pk}/citations").json()
    assert citation["verification"] == "verified", citation["verification_detail"]
    locator = citation["locator"]
    assert {key: locator[key] for key in expected} == expected
    if expected["kind"] == "docx":
        assert docx.Document(str(path)).paragraphs[locator["paragraph"] - 1].text == lines[at - 1]
    if expected["kind"] in NAMED:
        assert NAMED[expected["kind"]] in Question.objects.get(pk=question.pk).html_cache
