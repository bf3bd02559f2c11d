"""Scanned PDF pages read by OCR (Debian's tesseract-ocr), on real pages of
Debian's shared-mime-info specification rasterised as a scanner would
(poppler's pdftoppm, then img2pdf): the rendition holds the page's words,
marked as OCR text; a citation of them is drawn over the words' OCR boxes,
which lie where pdfium's characters are on the original page; a page whose
OCR fails, times out or is over the limits is named in the notes."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from core.ingest import Limits, ingest_files
from core.ingest.documents import DocumentError, convert_document, documents_dir_for
from core.ingest.documents.locate import describe, load_map, locate
from core.ingest.documents.ocr import OCR_MARK, OcrError, needs_ocr, ocr_dpi, ocr_page
from core.ingest.documents.pdf import page_text
from core.sandbox import ensure_layout
from tests.core.ingest.documents.builders import (
    DEBIAN_PDFS,
    debian_pdf,
    joined,
    make_scan,
    with_garbage_layer,
)

pytestmark = pytest.mark.slow  # tesseract reads each page for a few seconds

MIME_PAGES = [2, 3]  # prose, a list and headings; the scan's pages 1 and 2
SENTENCE = "There are two important requirements for the way the MIME database is stored"


@pytest.fixture(scope="session")
def mime_original() -> Path:
    path = Path(DEBIAN_PDFS["shared-mime-info"])
    if not path.exists():
        pytest.fail(f"{path} is missing: `make test` installs Debian's shared-mime-info.")
    return path


@pytest.fixture(scope="session")
def mime_scan(tmp_path_factory, mime_original) -> Path:
    return make_scan(tmp_path_factory.mktemp("scan"), mime_original, MIME_PAGES)


@pytest.fixture(scope="session")
def scanned(tmp_path_factory, mime_scan):
    """The scan ingested once: its folder, rendition path, lines and the progress reported."""
    dest = ensure_layout(tmp_path_factory.mktemp("ocr") / "sandbox") / str(uuid.uuid4())
    messages: list[str] = []
    with mime_scan.open("rb") as handle:
        result = ingest_files(
            dest, [("scan.pdf", handle)], progress=lambda done, total, message: messages.append(message)
        )
    (rendition,) = result.files
    lines = (dest / rendition).read_text(encoding="utf-8").split("\n")
    return dest, rendition, lines, messages, result


def original_text(path: Path, number: int) -> tuple[str, list]:
    """Page ``number``'s text layer and the tight box of each of its characters."""
    document = pdfium.PdfDocument(str(path))
    textpage = document[number - 1].get_textpage()
    text = page_text(textpage)
    return text, [textpage.get_charbox(index) for index in range(len(text))]


def union(boxes) -> list[float]:
    return [
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    ]


def overlap(a, b) -> float:
    """Intersection over union of two ``[left, bottom, right, top]`` boxes."""
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    if width <= 0 or height <= 0:
        return 0.0
    inter = width * height
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def page_section(lines: list[str], number: int) -> list[str]:
    start = lines.index(f"## Page {number}")
    end = lines.index(f"## Page {number + 1}") if f"## Page {number + 1}" in lines else len(lines)
    return lines[start:end]


def test_the_rule_tells_a_scan_and_a_garbage_layer_from_a_text_layer(mime_original):
    text, _boxes = original_text(mime_original, 2)
    assert not needs_ocr(text)
    assert needs_ocr("") and needs_ocr("  12 \n")  # no text layer, or a page number only
    assert needs_ocr("ÿ" * 400)  # every glyph came out as the same code
    assert needs_ocr("\ufffd\x01\x02" * 100 + text[:100])  # mostly unmapped glyphs
    assert not needs_ocr("Ein Absatz über Größen, Maße und Übergänge in einer Spezifikation.")


def test_a_scanned_pdf_is_read_by_ocr_and_marked_as_ocr_text(scanned, mime_original):
    _dest, _rendition, lines, messages, result = scanned
    for number, original in zip((1, 2), MIME_PAGES, strict=True):
        section = page_section(lines, number)
        assert section[:3] == [f"## Page {number}", "", OCR_MARK]
        read = set(re.findall(r"[A-Za-z]{4,}", " ".join(section)))
        words = re.findall(r"[A-Za-z]{4,}", original_text(mime_original, original)[0])
        assert len(words) > 100
        assert sum(word in read for word in words) >= 0.95 * len(words)  # searchable: its words are there
    assert SENTENCE in " ".join(lines)
    assert "OCR page 1 of 2 of scan.pdf" in messages and "OCR page 2 of 2 of scan.pdf" in messages
    assert "scan.pdf: pages 1, 2 were read by OCR (check the page image when citing them)." in result.notes


def test_the_ocr_word_boxes_lie_where_pdfiums_characters_are_on_the_original(scanned, mime_original):
    """Each OCR word (five letters or more) that occurs once on the original
    page: its box (PDF points) and the union of pdfium's boxes of the word's
    characters overlap (intersection over union)."""
    dest, rendition, lines, _messages, _result = scanned
    data = load_map(documents_dir_for(dest), rendition)
    text, boxes = original_text(mime_original, MIME_PAGES[0])
    compared = []
    for line, origin in zip(lines, data["lines"], strict=False):
        if not origin or origin["page"] != 1 or "words" not in origin:
            continue
        for column, length, *box in origin["words"]:
            word = line[column : column + length]
            found = [m.start() for m in re.finditer(rf"(?<![A-Za-z]){re.escape(word)}(?![A-Za-z])", text)]
            if len(word) >= 5 and word.isalpha() and len(found) == 1:
                compared.append(overlap(box, union(boxes[found[0] : found[0] + length])))
    assert len(compared) > 40
    assert min(compared) > 0.7  # measured: 0.83 at worst, 0.91 on average
    assert sum(compared) / len(compared) > 0.85


def test_a_citation_of_ocr_text_is_drawn_over_the_quoted_words(scanned, mime_original):
    dest, rendition, lines, _messages, _result = scanned
    data = load_map(documents_dir_for(dest), rendition)
    at = next(number for number, line in enumerate(lines, start=1) if SENTENCE[:40] in line)
    origin = data["lines"][at - 1]
    line = lines[at - 1]

    whole = locate(documents_dir_for(dest), rendition, lines, at, at, line)
    assert (whole["kind"], whole["page"], whole["page_end"], whole["ocr"]) == ("pdf", 1, 1, True)
    (region,) = whole["regions"]
    assert region["page"] == 1
    assert region["rects"] == [union([word[2:] for word in origin["words"]])]
    assert describe(whole, "scan.pdf") == "scan.pdf, p. 1 (OCR text: check the page image)"

    # From mid-line: the rectangle covers "two important requirements" and not "There are".
    quote = "two important requirements"
    part = locate(documents_dir_for(dest), rendition, lines, at, at, quote)
    start = line.index(quote)
    quoted = [word for word in origin["words"] if start <= word[0] < start + len(quote)]
    assert [line[w[0] : w[0] + w[1]] for w in quoted] == ["two", "important", "requirements"]
    (rect,) = part["regions"][0]["rects"]
    assert rect == union([word[2:] for word in quoted])
    there = origin["words"][0][2:]
    assert line.startswith("There") and there[2] <= rect[0]
    # … and lies on those words on the original page, as pdfium places them.
    text, boxes = original_text(mime_original, MIME_PAGES[0])
    first = text.index(quote)
    assert overlap(rect, union(boxes[first : first + len(quote)])) > 0.6


def test_a_garbage_text_layer_is_replaced_by_the_pages_ocr_text(tmp_path, mime_original):
    scan = make_scan(tmp_path, mime_original, [MIME_PAGES[0]])
    garbled = with_garbage_layer(scan, tmp_path / "garbled.pdf")
    document = pdfium.PdfDocument(str(garbled))
    layer = page_text(document[0].get_textpage())
    document.close()
    assert layer.count("ÿ") == 600  # what pdfium reads from it
    rendition = convert_document(garbled, "garbled.pdf", "pdf", limits=Limits())
    assert OCR_MARK in rendition.lines and "ÿ" not in rendition.text
    assert SENTENCE in " ".join(rendition.lines)


@pytest.fixture(scope="session")
def mixed(tmp_path_factory, mime_original, mime_scan) -> Path:
    """Page 1 of the specification as it is (a text layer), then the two scanned pages."""
    folder = tmp_path_factory.mktemp("mixed")
    return joined(folder / "mixed.pdf", (mime_original, [1]), (mime_scan, [1, 2]))


def test_a_page_whose_ocr_times_out_is_named_and_the_document_is_still_read(mixed):
    rendition = convert_document(mixed, "mixed.pdf", "pdf", limits=Limits(ocr_page_timeout=0.001))
    assert rendition.notes == ["mixed.pdf: pages 2, 3 could not be OCR'd (OCR took longer than 0.001 s)."]
    assert "Shared MIME-info Database" in rendition.text  # page 1's text layer
    section = page_section(rendition.lines, 2)
    assert "(No text on this page: its OCR did not run, the item's note says why.)" in section


def test_the_documents_ocr_time_limit_leaves_the_later_pages_unread(mixed):
    rendition = convert_document(mixed, "mixed.pdf", "pdf", limits=Limits(ocr_timeout=0.001))
    assert rendition.notes == [
        "mixed.pdf: page 2 could not be OCR'd (OCR took longer than 0.001 s).",
        "mixed.pdf: page 3 was not OCR'd: the document's OCR time limit (0.001 s) was reached.",
    ]


def test_ocr_page_limit_and_a_missing_ocr_program_are_named(mixed, tmp_path):
    rendition = convert_document(mixed, "mixed.pdf", "pdf", limits=Limits(ocr_max_pages=0))
    assert rendition.notes == ["mixed.pdf: pages 2, 3 were not OCR'd: the limit is 0 OCR pages per document."]
    missing = tmp_path / "no-tesseract"
    rendition = convert_document(mixed, "mixed.pdf", "pdf", limits=Limits(ocr_command=str(missing)))
    assert rendition.notes == [
        f"mixed.pdf: pages 2, 3 could not be OCR'd (the OCR program ({missing}) is not installed)."
    ]


def test_a_scan_with_no_page_read_is_refused_with_the_reason(mime_scan):
    with pytest.raises(
        DocumentError, match=r"scan\.pdf has no readable text on any page\. .*the limit is 0 OCR"
    ):
        convert_document(mime_scan, "scan.pdf", "pdf", limits=Limits(ocr_max_pages=0))


def test_pdfs_with_a_text_layer_are_not_ocrd(tmp_path):
    """The Debian PDFs' pages all keep their text layer: none is taken as a scan."""
    crc = debian_pdf("zlib1g-dev", tmp_path)
    rendition = convert_document(crc, "crc.pdf", "pdf", limits=Limits(ocr_command=str(tmp_path / "none")))
    assert OCR_MARK not in rendition.lines and rendition.notes == []


def test_a_page_too_large_to_ocr_is_refused_before_it_is_rendered(tmp_path):
    """A 200 × 200 inch page would be 3.6 gigapixels at 300 dpi: not rendered."""
    document = pdfium.PdfDocument.new()
    page = document.new_page(200 * 72, 200 * 72)
    with pytest.raises(OcrError, match=r"the page is too large to OCR \(200 × 200 inches\)"):
        ocr_page(page, timeout=60)
    poster = document.new_page(40 * 72, 30 * 72)  # 1,200 square inches: 108 megapixels at 300 dpi
    assert ocr_dpi(poster) == 182  # 39.7 megapixels
    assert ocr_dpi(document.new_page(612, 792)) == 300
    assert ocr_page(poster, timeout=60) == []  # read, blank: no words
