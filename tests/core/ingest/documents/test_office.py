"""Word, PowerPoint, Excel and notebooks → renditions, made from a real text
(Celery's README) with the libraries that read them."""

from __future__ import annotations

import zipfile

import docx
import pytest

from core.ingest import Limits
from core.ingest.documents import DocumentError, convert_document

LIMITS = Limits()


def test_word_headings_paragraphs_lists_and_tables(word_file, sections):
    rendition = convert_document(word_file, "celery.docx", "docx", limits=LIMITS)
    text = rendition.text
    assert "# Celery" in rendition.lines
    assert "## What's a Task Queue?" in rendition.lines
    assert "### Open Collective" in rendition.lines
    queue_paragraph = dict((t, p) for t, _, p in sections)["What's a Task Queue?"][0]
    assert queue_paragraph in rendition.lines
    assert "- Redis\n- RabbitMQ" in text
    assert "| Field | Value |\n| --- | --- |\n| Version | 5.7.0 \\| Collider |\n| License | BSD |" in text


def test_word_lines_name_their_paragraph_as_python_docx_counts_it(word_file, sections):
    """The paragraph number of a line is its position in Document.paragraphs
    (from 1), and the heading is the nearest one above it."""
    rendition = convert_document(word_file, "celery.docx", "docx", limits=LIMITS)
    paragraphs = docx.Document(str(word_file)).paragraphs
    queue_paragraph = dict((t, p) for t, _, p in sections)["What's a Task Queue?"][0]
    origin = rendition.origins[rendition.lines.index(queue_paragraph)]
    assert paragraphs[origin["paragraph"] - 1].text == queue_paragraph
    assert origin["heading"] == "What's a Task Queue?"


def test_powerpoint_has_a_section_per_slide_with_title_text_and_notes(slides_file, sections):
    rendition = convert_document(slides_file, "celery.pptx", "pptx", limits=LIMITS)
    title, _, paragraphs = sections[2]
    heading = rendition.lines.index(f"## Slide 3: {title}")
    body = rendition.lines.index(paragraphs[0])
    notes = rendition.lines.index(f"Say: {title}")
    assert heading < body < notes
    assert rendition.lines[notes - 1] == "Notes:"
    assert {rendition.origins[n]["slide"] for n in (heading, body, notes)} == {3}
    assert rendition.pages == 6


def test_excel_sheet_is_a_table_with_cell_references(workbook_file, sections):
    rendition = convert_document(workbook_file, "celery.xlsx", "xlsx", limits=LIMITS)
    assert "## Sheet: Sections" in rendition.lines
    assert "| Row | A | B | C | D |" in rendition.lines
    row = next(n for n, line in enumerate(rendition.lines) if "What's a Task Queue?" in line)
    position = [t for t, _, _ in sections].index("What's a Task Queue?") + 2  # after the header row
    assert rendition.lines[row].startswith(f"| {position} | What's a Task Queue? | 1 | 6 | ")
    assert rendition.origins[row] == {"sheet": "Sections", "row": position, "first": "A", "last": "D"}
    assert "(This sheet is empty.)" in rendition.lines


def test_notebook_cells_become_markdown_and_fenced_code(notebook_file, sections):
    rendition = convert_document(notebook_file, "tasks.ipynb", "ipynb", limits=LIMITS)
    text = rendition.text
    assert "```python\nfrom celery import Celery\napp = Celery('tasks')\n```" in text
    assert "```output\nstarted\n<Figure>\n```" in text
    assert "iVBORw0KGgo" not in text and "model_id" not in text
    assert '"cells"' not in text
    _, _, paragraphs = sections[6]
    assert rendition.origins[rendition.lines.index(paragraphs[0])] == {"cell": 1}
    assert rendition.origins[rendition.lines.index("app = Celery('tasks')")] == {"cell": 2}
    assert rendition.origins[rendition.lines.index(paragraphs[1])] == {"cell": 3}


@pytest.mark.parametrize(("name", "kind", "claim"), [
    ("a.docx", "docx", "a Word document"), ("a.pptx", "pptx", "a PowerPoint file"), ("a.xlsx", "xlsx", "an Excel workbook"),
])  # fmt: skip
def test_an_office_name_on_other_bytes_is_refused(tmp_path, name, kind, claim):
    path = tmp_path / name
    path.write_bytes(b"%PDF-1.4 not an office file")
    with pytest.raises(DocumentError, match=f"{name} is named like {claim} but is not one"):
        convert_document(path, name, kind, limits=LIMITS)


def test_a_zip_that_is_not_a_word_document_is_refused(tmp_path):
    path = tmp_path / "notes.docx"
    with zipfile.ZipFile(path, "w") as package:
        package.writestr("notes.txt", "hello")
    with pytest.raises(
        DocumentError,
        match=r"notes\.docx is named like a Word document but is not one \(it has no word/document\.xml\)",
    ):
        convert_document(path, "notes.docx", "docx", limits=LIMITS)


def test_a_word_document_that_is_a_zip_bomb_is_refused(word_file, tmp_path):
    """A real .docx with one more member that unpacks 2,000 to 1: the archive limits refuse it."""
    bomb = tmp_path / "bomb.docx"
    with zipfile.ZipFile(word_file) as source, zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as out:
        for info in source.infolist():
            out.writestr(info, source.read(info))
        out.writestr("word/media/zeros.bin", b"\0" * (20 * 1024 * 1024))
    with pytest.raises(DocumentError, match=r"bomb\.docx was refused: .*zip bomb"):
        convert_document(bomb, "bomb.docx", "docx", limits=LIMITS)


def test_a_damaged_word_document_is_refused(word_file, tmp_path):
    damaged = tmp_path / "damaged.docx"
    with zipfile.ZipFile(word_file) as source, zipfile.ZipFile(damaged, "w") as out:
        for info in source.infolist():
            data = source.read(info)
            out.writestr(info, data[: len(data) // 2] if info.filename == "word/document.xml" else data)
    with pytest.raises(DocumentError, match=r"damaged\.docx could not be read"):
        convert_document(damaged, "damaged.docx", "docx", limits=LIMITS)


def test_a_notebook_without_cells_is_refused(tmp_path):
    path = tmp_path / "data.ipynb"
    path.write_text('{"not": "a notebook"}', encoding="utf-8")
    with pytest.raises(DocumentError, match=r"data\.ipynb is not a Jupyter notebook"):
        convert_document(path, "data.ipynb", "ipynb", limits=LIMITS)
