"""PDF → rendition, on PDFs shipped by Debian documentation packages."""

from __future__ import annotations

import io

import pypdf
import pypdfium2 as pdfium
import pytest

from core.ingest import Limits
from core.ingest.documents import DocumentError, convert_document
from core.ingest.documents.pdf import expand, page_lines, page_text

LIMITS = Limits()


def line_with(rendition, words: str) -> int:
    """The index of the rendition line holding ``words``."""
    return next(number for number, line in enumerate(rendition.lines) if words in line)


def test_every_page_starts_with_a_visible_page_heading(crc_pdf):
    """A reader and a model see where each of the 29 pages begins."""
    rendition = convert_document(crc_pdf, "crc.pdf", "pdf", limits=LIMITS)
    headings = [line for line in rendition.lines if line.startswith("## Page ")]
    assert headings == [f"## Page {number}" for number in range(1, 30)]
    assert rendition.lines[0] == "# crc.pdf"
    assert rendition.pages == 29


def test_a_word_hyphenated_at_a_line_end_is_joined(crc_pdf):
    """Page 1 breaks "improv-ing" across two lines; the rendition reads "improving"
    and keeps the real hyphens of "word-by-word"."""
    rendition = convert_document(crc_pdf, "crc.pdf", "pdf", limits=LIMITS)
    assert "improving state of the art over word-by-word 32-bit and 64-bit CRCs" in rendition.text
    assert "improv-" not in rendition.text
    assert "\ufffe" not in rendition.text


def test_typographic_quotes_are_straightened(crc_pdf):
    """The paper's “tricks” reads "tricks", as the verifier folds it."""
    rendition = convert_document(crc_pdf, "crc.pdf", "pdf", limits=LIMITS)
    assert 'a collection of CRC "tricks" that we found' in rendition.text


def test_each_line_maps_to_the_page_characters_it_was_made_from(crc_pdf):
    """The locator map of a line names its page, and the characters at the
    indexes it gives are the line's own (the hyphen mark left out)."""
    rendition = convert_document(crc_pdf, "crc.pdf", "pdf", limits=LIMITS)
    number = line_with(rendition, "improving state of the art")
    origin = rendition.origins[number]
    assert origin["page"] == 1
    page = pdfium.PdfDocument(str(crc_pdf))[0]
    text = page_text(page.get_textpage())
    assert "".join(text[index] for index in expand(origin["runs"])) == rendition.lines[number]


def test_lines_of_a_later_page_map_to_that_page(crc_pdf):
    """ "2 Related work" is the section heading on page 3 of the paper."""
    rendition = convert_document(crc_pdf, "crc.pdf", "pdf", limits=LIMITS)
    number = next(n for n, line in enumerate(rendition.lines) if line == "2 Related work")
    assert rendition.origins[number]["page"] == 3
    heading = max(n for n in range(number) if rendition.lines[n].startswith("## Page "))
    assert rendition.lines[heading] == "## Page 3"


def test_a_two_column_index_page_is_read_column_by_column(tasn1_pdf):
    """libtasn1's "Function and Data Index" (p. 36) has two columns: every
    entry of the left column comes before every entry of the right one."""
    rendition = convert_document(tasn1_pdf, "libtasn1.pdf", "pdf", limits=LIMITS)
    start = rendition.lines.index("## Page 36")
    entries = [n for n in range(start, len(rendition.lines)) if rendition.lines[n].startswith("asn1_")]
    page = pdfium.PdfDocument(str(tasn1_pdf))[35]
    textpage, middle = page.get_textpage(), page.get_width() / 2
    sides = [
        "right" if textpage.get_charbox(expand(rendition.origins[n]["runs"])[0])[0] > middle else "left"
        for n in entries
    ]
    assert len(entries) > 40
    assert sides == sorted(sides)  # all "left", then all "right"
    assert 10 < sides.count("left") and 10 < sides.count("right")
    assert rendition.lines[entries[0]].startswith("asn1_array2tree")


def test_a_file_named_pdf_that_is_not_one_is_refused(tmp_path):
    fake = tmp_path / "report.pdf"
    fake.write_bytes(b"PK\x03\x04 this is a zip, not a PDF")
    with pytest.raises(DocumentError, match=r"report\.pdf is named like a PDF but is not one"):
        convert_document(fake, "report.pdf", "pdf", limits=LIMITS)


def test_a_truncated_pdf_is_refused_as_damaged(crc_pdf, tmp_path):
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(crc_pdf.read_bytes()[:3000])
    with pytest.raises(DocumentError, match=r"broken\.pdf"):
        rendition = convert_document(broken, "broken.pdf", "pdf", limits=LIMITS)
        assert not rendition  # pragma: no cover - pdfium refuses it before this


def test_an_encrypted_pdf_is_refused_with_its_reason(mime_pdf, tmp_path):
    writer = pypdf.PdfWriter(clone_from=str(mime_pdf))
    writer.encrypt(user_password="secret", algorithm="RC4-128")
    locked = tmp_path / "locked.pdf"
    with locked.open("wb") as out:
        writer.write(out)
    with pytest.raises(DocumentError, match=r"locked\.pdf is encrypted \(password-protected\)"):
        convert_document(locked, "locked.pdf", "pdf", limits=LIMITS)


def test_a_pdf_over_the_page_limit_is_refused(crc_pdf):
    with pytest.raises(DocumentError, match=r"crc\.pdf has 29 pages; the limit is 10 pages per PDF"):
        convert_document(crc_pdf, "crc.pdf", "pdf", limits=Limits(max_pdf_pages=10))


def test_a_page_without_text_is_named_in_the_notes(mime_pdf, tmp_path):
    """The specification with a blank page added as page 18: the document is
    read, and the note names the page that has no text."""
    writer = pypdf.PdfWriter(clone_from=str(mime_pdf))
    writer.add_blank_page()
    buffer = io.BytesIO()
    writer.write(buffer)
    padded = tmp_path / "padded.pdf"
    padded.write_bytes(buffer.getvalue())
    rendition = convert_document(padded, "padded.pdf", "pdf", limits=LIMITS)
    assert rendition.notes == ["padded.pdf: page 18 has no text."]
    assert "Shared MIME-info Database" in rendition.text


def test_lone_surrogates_from_pdfium_are_dropped_not_fatal():
    """LuaTeX's and OpTeX's manuals gave pdfium text with lone surrogates; writing the
    rendition failed with UnicodeEncodeError. They are dropped, the rest keeps its map."""
    ((text, runs),) = page_lines("Caf\u00e9 \ud835x end")
    assert text == "Café x end" and text.encode("utf-8")
    assert expand(runs) == [0, 1, 2, 3, 4, 6, 7, 8, 9, 10]  # the surrogate's character (5) is skipped


def test_running_headers_and_page_numbers_stand_apart_from_the_text(mime_pdf):
    """Every page of the specification starts with its title and ends with its
    number. Run into the body, the title became the first words of a sentence
    ("Shared MIME-info Database • A magic-deleteall element …"). Each stays in
    the rendition, on its page, but as a paragraph of its own."""
    rendition = convert_document(mime_pdf, "mime.pdf", "pdf", limits=LIMITS)
    lines = rendition.lines
    headers = [i for i, line in enumerate(lines) if line == "Shared MIME-info Database"]
    assert len(headers) >= 15  # one per page, none dropped
    for i in headers[1:]:
        assert lines[i - 1] == "" and lines[i + 1] == "", lines[i - 1 : i + 2]
        assert rendition.origins[i]["page"] == rendition.origins[i + 2]["page"]
    body = line_with(rendition, "A magic-deleteall element")
    assert lines[body - 2 : body] == ["Shared MIME-info Database", ""]
    numbers = [i for i, line in enumerate(lines) if line.isdigit()]
    assert len(numbers) >= 15
    for i in numbers:
        assert lines[i - 1] == "", lines[i - 2 : i + 1]


def test_first_lines_that_differ_from_page_to_page_keep_their_paragraph(crc_pdf):
    """The CRC paper has no running header: page 3 starts mid-sentence and its
    first line stays joined to the next one."""
    rendition = convert_document(crc_pdf, "crc.pdf", "pdf", limits=LIMITS)
    first = line_with(rendition, "complex formula is used:")
    assert rendition.lines[first - 2 : first + 2] == ["## Page 3", "", "complex formula is used:", "CRCu"]
