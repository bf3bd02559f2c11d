"""A citation's locator from the map: the page and the rectangles of exactly
the quoted characters on it (checked against pdfium's own character boxes),
and the paragraph, slide, cells or cell of the other kinds."""

from __future__ import annotations

import docx
import pypdfium2 as pdfium
import pytest

from core.ingest import ingest_files
from core.ingest.documents import documents_dir_for
from core.ingest.documents.locate import describe, locate

QUOTE = "improving state of the art over word-by-word 32-bit and 64-bit CRCs (2.1 CPU cycles/byte)"


def ingested(dest, path):
    with path.open("rb") as handle:
        result = ingest_files(dest, [(path.name, handle)])
    (rendition,) = result.files
    return rendition, (dest / rendition).read_text(encoding="utf-8").split("\n")


def line_of(lines, words: str) -> int:
    return next(number for number, line in enumerate(lines, start=1) if words in line)


def inside(box, rect, slack=0.01) -> bool:
    left, bottom, right, top = box
    return (
        rect[0] - slack <= left
        and right <= rect[2] + slack
        and rect[1] - slack <= bottom
        and top <= rect[3] + slack
    )


def test_pdf_citation_names_its_page_and_covers_exactly_the_quote(dest, crc_pdf):
    """The quote starts mid-line ("…per byte, improv-") and ends mid-line: its
    rectangles hold every one of its characters' boxes, one per visual line,
    and the text inside them is the quote and nothing else."""
    rendition, lines = ingested(dest, crc_pdf)
    start = line_of(lines, "improving state of the art")
    locator = locate(documents_dir_for(dest), rendition, lines, start, start + 1, QUOTE)
    assert (locator["kind"], locator["page"], locator["page_end"], locator["ocr"]) == ("pdf", 1, 1, False)
    (region,) = locator["regions"]
    assert region["page"] == 1
    rects = region["rects"]
    assert len(rects) == 3  # "improv-", the whole next line, "cycles/byte)"
    textpage = pdfium.PdfDocument(str(crc_pdf))[0].get_textpage()
    inside_text = " ".join(textpage.get_text_bounded(*rect).strip() for rect in rects)
    assert inside_text.replace("\ufffe", "").replace("improv ing", "improving") == QUOTE
    text = textpage.get_text_range()
    first = text.index("improv\ufffeing")
    for index in range(first, first + len("improv")):
        assert any(inside(textpage.get_charbox(index), rect) for rect in rects)
    before = textpage.get_charbox(first - 2)  # the comma of "per byte," is not highlighted
    assert not any(inside(before, rect) for rect in rects)


def test_pdf_citation_across_a_page_break_names_both_pages(dest, crc_pdf):
    rendition, lines = ingested(dest, crc_pdf)
    page_two = lines.index("## Page 2")
    last_of_one = max(n for n in range(1, page_two) if lines[n - 1].strip())
    first_of_two = next(n for n in range(page_two + 2, len(lines)) if lines[n - 1].strip())
    excerpt = f"{lines[last_of_one - 1]} ... {lines[first_of_two - 1]}"
    locator = locate(documents_dir_for(dest), rendition, lines, last_of_one, first_of_two, excerpt)
    assert (locator["page"], locator["page_end"]) == (1, 2)
    assert [region["page"] for region in locator["regions"]] == [1, 2]
    assert all(region["rects"] for region in locator["regions"])
    assert describe(locator, "crc.pdf") == "crc.pdf, pp. 1–2"


def test_pdf_citation_whose_excerpt_is_not_found_covers_its_whole_lines(dest, crc_pdf):
    rendition, lines = ingested(dest, crc_pdf)
    start = line_of(lines, "improving state of the art")
    locator = locate(documents_dir_for(dest), rendition, lines, start, start, "words that are not there")
    textpage = pdfium.PdfDocument(str(crc_pdf))[0].get_textpage()
    inside_text = " ".join(
        textpage.get_text_bounded(*rect).strip() for rect in locator["regions"][0]["rects"]
    )
    assert inside_text.startswith("modern Intel and AMD processors") and inside_text.endswith("(2.1 CPU")
    assert describe(locator, "crc.pdf") == "crc.pdf, p. 1"


def test_a_plain_text_file_has_no_locator(dest, tmp_path):
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nPlain text.\n")
    rendition, lines = ingested(dest, notes)
    assert locate(documents_dir_for(dest), rendition, lines, 3, 3, "Plain text.") is None


def test_word_citation_names_its_paragraph_and_heading(dest, word_file, sections):
    rendition, lines = ingested(dest, word_file)
    paragraphs = dict((t, p) for t, _, p in sections)["What's a Task Queue?"]
    start, end = line_of(lines, paragraphs[0]), line_of(lines, paragraphs[1])
    locator = locate(documents_dir_for(dest), rendition, lines, start, end)
    body = docx.Document(str(word_file)).paragraphs
    assert body[locator["paragraph"] - 1].text == paragraphs[0]
    assert body[locator["paragraph_end"] - 1].text == paragraphs[1]
    assert locator["heading"] == "What's a Task Queue?"
    assert (
        describe(locator, "celery.docx")
        == f"celery.docx, ¶ {locator['paragraph']}–{locator['paragraph_end']}"
    )


def test_word_table_rows_are_cited_by_table_and_row_under_their_heading(dest, word_file):
    """The README's table sits after the bullet list: its rows name table 1,
    their row as python-docx counts it, and the paragraph before the table."""
    rendition, lines = ingested(dest, word_file)
    row = line_of(lines, "| License | BSD |")
    locator = locate(documents_dir_for(dest), rendition, lines, row - 1, row, "BSD")
    document = docx.Document(str(word_file))
    table = document.tables[locator["table"] - 1]
    assert [cell.text for cell in table.rows[locator["row"] - 1].cells] == ["Version", "5.7.0 | Collider"]
    assert [cell.text for cell in table.rows[locator["row_end"] - 1].cells] == ["License", "BSD"]
    assert document.paragraphs[locator["paragraph"] - 1].text == "RabbitMQ"
    assert (
        locator["heading"] == [p.text for p in document.paragraphs if p.style.name.startswith("Heading")][-1]
    )
    assert describe(locator, "celery.docx") == "celery.docx, table 1, row 2–3"


def test_a_word_table_before_any_paragraph_is_still_cited(dest, tmp_path, sections):
    title, _, paragraphs = next(section for section in sections if len(section[2]) > 1)
    document = docx.Document()
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Section", "First paragraph"
    table.cell(1, 0).text, table.cell(1, 1).text = title, paragraphs[0]
    document.add_paragraph(paragraphs[1])
    path = tmp_path / "table-first.docx"
    document.save(path)
    rendition, lines = ingested(dest, path)
    row = line_of(lines, paragraphs[0][:40])
    locator = locate(documents_dir_for(dest), rendition, lines, row, row)
    assert locator == {"kind": "docx", "paragraph": None, "heading": "", "table": 1, "row": 2}
    after = line_of(lines, paragraphs[1][:40])
    assert locate(documents_dir_for(dest), rendition, lines, after, after)["paragraph"] == 1


def test_slide_cell_and_sheet_citations(dest, tmp_path, slides_file, workbook_file, notebook_file, sections):
    rendition, lines = ingested(dest, slides_file)
    title = sections[2][0]
    start = line_of(lines, f"## Slide 3: {title}")
    assert locate(documents_dir_for(dest), rendition, lines, start, start + 2) == {"kind": "pptx", "slide": 3}

    other = dest.parent / "sheets"
    rendition, lines = ingested(other, workbook_file)
    row = line_of(lines, "What's a Task Queue?")
    locator = locate(documents_dir_for(other), rendition, lines, row, row + 1)
    number = int(lines[row - 1].split("|")[1])
    assert locator == {"kind": "xlsx", "sheet": "Sections", "cells": f"A{number}:D{number + 1}"}
    assert describe(locator, "celery.xlsx") == f"celery.xlsx, Sections A{number}:D{number + 1}"

    third = dest.parent / "notebook"
    rendition, lines = ingested(third, notebook_file)
    code = line_of(lines, "app = Celery('tasks')")
    assert locate(documents_dir_for(third), rendition, lines, code, code) == {"kind": "ipynb", "cell": 2}


@pytest.mark.parametrize("lines", [(0, 1), (5, 4)])
def test_impossible_line_ranges_have_no_locator(dest, crc_pdf, lines):
    rendition, text = ingested(dest, crc_pdf)
    assert locate(documents_dir_for(dest), rendition, text, *lines) is None
