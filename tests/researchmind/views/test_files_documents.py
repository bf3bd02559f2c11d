"""The text viewer on a document's rendition labels its lines with where
they came from (slide, sheet and cells, cell, paragraph and heading,
chapter), and names the cited lines' place in the original."""

from __future__ import annotations

import html
import re
import zipfile

import docx
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from tests.core.ingest.documents.builders import (
    make_epub,
    make_slides,
    make_word,
    make_workbook,
    readme_sections,
)

pytestmark = pytest.mark.django_db(transaction=True)


def upload(client, research, path):
    client.post(
        reverse("content_add", args=[research.id, "files"]),
        {"files": SimpleUploadedFile(path.name, path.read_bytes())},
    )
    item = research.content_items.get(title=path.name)
    assert item.status == "ready", item.error
    lines = (item.folder / f"{path.name}.md").read_text(encoding="utf-8").split("\n")
    return item, lines


def labels(page: str) -> list[str]:
    return [html.unescape(label) for label in re.findall(r'<td class="origin-label">([^<]*)</td>', page)]


def view(client, research, item, name, hl):
    url = reverse("file_viewer", args=[research.id, item.id, f"{name}.md"])
    response = client.get(url, {"hl": hl})
    assert response.status_code == 200
    return response.content.decode()


def test_a_slide_deck_is_labelled_by_slide_and_the_cited_lines_name_it(client_for, user, research, tmp_path):
    sections = readme_sections()
    client = client_for(user)
    item, lines = upload(client, research, make_slides(tmp_path, sections))
    title = sections[3][0]
    start = lines.index(f"## Slide 4: {title}") + 1
    page = view(client, research, item, "celery.pptx", f"{start}-{start + 2}")
    assert "slide 4" in labels(page)
    assert '(<span id="cited-origin">celery.pptx, slide 4</span>)' in page
    # The label sits in its own row, just before the slide's first line shown.
    assert re.search(rf'<td class="origin-label">slide 4</td></tr>\s*<tr id="L{start}"', page)


def test_a_workbook_is_labelled_by_sheet_and_cells(client_for, user, research, tmp_path):
    client = client_for(user)
    item, lines = upload(client, research, make_workbook(tmp_path, readme_sections()))
    row = next(n for n, line in enumerate(lines, 1) if "What's a Task Queue?" in line)
    number = int(lines[row - 1].split("|")[1])
    page = view(client, research, item, "celery.xlsx", str(row))
    assert f"Sections A{number}:D{number}" in labels(page)
    assert f'<span id="cited-origin">celery.xlsx, Sections A{number}:D{number}</span>' in page


def test_a_word_document_is_labelled_by_paragraph_and_heading(client_for, user, research, tmp_path):
    sections = readme_sections()
    client = client_for(user)
    item, lines = upload(client, research, make_word(tmp_path, sections))
    paragraph = dict((t, p) for t, _, p in sections)["What's a Task Queue?"][0]
    at = lines.index(paragraph) + 1
    page = view(client, research, item, "celery.docx", str(at))
    label = html.unescape(re.search(rf'<td class="origin-label">([^<]*)</td></tr>\s*<tr id="L{at}"', page)[1])
    number = re.fullmatch(r"¶ (\d+) · What's a Task Queue\?", label)[1]
    assert docx.Document(str(tmp_path / "celery.docx")).paragraphs[int(number) - 1].text == paragraph
    assert f'<span id="cited-origin">celery.docx, ¶ {number}</span>' in page


def test_an_epub_is_labelled_by_chapter(client_for, user, research, tmp_path):
    client = client_for(user)
    item, lines = upload(client, research, make_epub(tmp_path))
    at = lines.index("## Chapter 3: The Basics") + 1
    page = html.unescape(view(client, research, item, "libffi.epub", f"{at}-{at + 4}"))
    assert "“Chapter 3: The Basics”" in labels(page)
    assert '<span id="cited-origin">libffi.epub, “Chapter 3: The Basics”</span>' in page


def test_a_chapter_title_is_escaped_in_its_label(client_for, user, research, tmp_path):
    """A label comes from the document: its markup is shown as text, never run."""
    book = make_epub(tmp_path, name="source.epub")
    hostile = tmp_path / "hostile.epub"
    with zipfile.ZipFile(book) as source, zipfile.ZipFile(hostile, "w") as out:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == "OEBPS/nav.xhtml":
                data = data.replace(b"Chapter 1: Introduction", b"&lt;script&gt;alert(1)&lt;/script&gt;")
            out.writestr(info, data)
    client = client_for(user)
    item, _lines = upload(client, research, hostile)
    page = view(client, research, item, "hostile.epub", "3")
    assert "<script>alert(1)</script>" not in page
    assert '<td class="origin-label">“&lt;script&gt;alert(1)&lt;/script&gt;”</td>' in page


def test_plain_text_has_no_labels(client_for, user, research, add_text):
    item = add_text(research, "Notes", "# Notes\n\nPlain text.\n")
    name = next(p.name for p in item.folder.iterdir())
    response = client_for(user).get(reverse("file_viewer", args=[research.id, item.id, name]), {"hl": "3"})
    page = response.content.decode()
    assert labels(page) == [] and "cited-origin" not in page
