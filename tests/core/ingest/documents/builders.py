"""Office files and a notebook made from a real text, Celery's README (its
package metadata), with the libraries that read them, and scanned PDFs made
by rasterising real pages of Debian's documentation PDFs: shared by the
documents tests here and the app's and API's tests."""

from __future__ import annotations

import ctypes
import gzip
import importlib.metadata
import json
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import docx
import openpyxl
import pptx
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
import pytest
from docutils.core import publish_string


def readme_sections() -> list[tuple[str, int, list[str]]]:
    """Celery's README (reStructuredText) as ``(title, level, paragraphs)``:
    the sections and their prose paragraphs, markup directives left out."""
    text = importlib.metadata.metadata("celery").get_payload()
    lines = text.splitlines()
    sections: list[tuple[str, int, list[str]]] = []
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph and sections:
            joined = " ".join(part.strip() for part in paragraph)
            if not joined.startswith((":", "..", "|", "*", "-", "$", ">>>")) and len(joined) > 40:
                sections[-1][2].append(re.sub(r"`([^`<]+?)\s*<[^>]+>`_", r"\1", joined).replace("``", ""))
        paragraph.clear()

    for number, line in enumerate(lines):
        underline = lines[number + 1] if number + 1 < len(lines) else ""
        if line.strip() and re.fullmatch(r"(=+|-+)", underline) and len(underline) >= len(line.strip()):
            flush()
            sections.append((line.strip(), 1 if underline[0] == "=" else 2, []))
        elif re.fullmatch(r"(=+|-+)", line) or not line.strip() or line.startswith((" ", "\t")):
            flush()
        else:
            paragraph.append(line)
    flush()
    return [section for section in sections if section[2]]


def make_word(folder: Path, sections) -> Path:
    document = docx.Document()
    document.add_heading("Celery", level=0)
    for title, level, paragraphs in sections:
        document.add_heading(title, level=level)
        for text in paragraphs:
            document.add_paragraph(text)
    document.add_paragraph("Redis", style="List Bullet")
    document.add_paragraph("RabbitMQ", style="List Bullet")
    table = document.add_table(rows=3, cols=2)
    for row, (key, value) in enumerate(
        [("Field", "Value"), ("Version", "5.7.0 | Collider"), ("License", "BSD")]
    ):
        table.cell(row, 0).text, table.cell(row, 1).text = key, value
    path = folder / "celery.docx"
    document.save(path)
    return path


def make_slides(folder: Path, sections) -> Path:
    presentation = pptx.Presentation()
    for title, _, paragraphs in sections[:6]:
        slide = presentation.slides.add_slide(presentation.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text_frame.text = paragraphs[0]
        slide.notes_slide.notes_text_frame.text = f"Say: {title}"
    path = folder / "celery.pptx"
    presentation.save(path)
    return path


def make_workbook(folder: Path, sections) -> Path:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Sections"
    sheet.append(["Title", "Level", "Paragraphs", "First paragraph"])
    for title, level, paragraphs in sections:
        sheet.append([title, level, len(paragraphs), paragraphs[0]])
    empty = workbook.create_sheet("Empty")
    del empty
    path = folder / "celery.xlsx"
    workbook.save(path)
    return path


def make_notebook(folder: Path, sections) -> Path:
    title, _, paragraphs = sections[6]
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": [f"# {title}\n", "\n", paragraphs[0]]},
        {
            "cell_type": "code",
            "metadata": {},
            "execution_count": 1,
            "source": ["from celery import Celery\n", "app = Celery('tasks')"],
            "outputs": [
                {"output_type": "stream", "name": "stdout", "text": ["started\n"]},
                {
                    "output_type": "display_data",
                    "data": {"image/png": "iVBORw0KGgo=", "text/plain": ["<Figure>"]},
                },
                {
                    "output_type": "display_data",
                    "data": {"application/vnd.jupyter.widget-view+json": {"model_id": "x"}},
                },
            ],
        },
        {"cell_type": "raw", "metadata": {}, "source": paragraphs[1]},
    ]
    notebook = {
        "cells": cells,
        "metadata": {"language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = folder / "tasks.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    return path


def make_scan(folder: Path, pdf: Path, pages: list[int], *, dpi: int = 200) -> Path:
    """Pages (from 1) of a real PDF as a scanner gives them: rasterised to
    greyscale images by poppler's pdftoppm and bound into an image-only PDF
    by img2pdf (Debian's packages; `make test` installs them)."""
    for program in ("pdftoppm", "img2pdf"):
        if shutil.which(program) is None:
            raise RuntimeError(
                f"{program} is missing: `make test` installs Debian's poppler-utils and img2pdf."
            )
    images = []
    for number in pages:
        stem = folder / f"{pdf.stem}-scan-{number}"
        rasterise = ["pdftoppm", "-r", str(dpi), "-gray", "-png", "-singlefile"]
        subprocess.run([*rasterise, "-f", str(number), "-l", str(number), str(pdf), str(stem)], check=True)
        images.append(str(stem.with_suffix(".png")))
    scan = folder / f"{pdf.stem}-scan-{'-'.join(map(str, pages))}.pdf"
    subprocess.run(["img2pdf", *images, "-o", str(scan)], check=True)
    return scan


def with_garbage_layer(scan: Path, out: Path) -> Path:
    """``scan`` with an invisible text layer of glyphs that map to no
    character, on every page: pdfium writes a code its font cannot encode as
    0xFF, which reads back as "ÿÿÿÿ…", as a broken PDF producer leaves it."""
    document = pdfium.PdfDocument(str(scan))
    try:
        for index in range(len(document)):
            page = document[index]
            layer = pdfium_c.FPDFPageObj_NewTextObj(document.raw, b"Helvetica", ctypes.c_float(10))
            encoded = ("".join(chr(0xE000 + n % 64) for n in range(600)) + "\0").encode("utf-16-le")
            pdfium_c.FPDFText_SetText(
                layer, (ctypes.c_ushort * (len(encoded) // 2)).from_buffer_copy(encoded)
            )
            pdfium_c.FPDFTextObj_SetTextRenderMode(layer, pdfium_c.FPDF_TEXTRENDERMODE_INVISIBLE)
            pdfium_c.FPDFPageObj_Transform(layer, 1, 0, 0, 1, 72, 400)
            pdfium_c.FPDFPage_InsertObject(page.raw, layer)
            pdfium_c.FPDFPage_GenerateContent(page.raw)
        document.save(str(out))
    finally:
        document.close()
    return out


def joined(out: Path, *parts: tuple[Path, list[int]]) -> Path:
    """One PDF of the given pages (from 1) of each part, in order."""
    document = pdfium.PdfDocument.new()
    try:
        for path, pages in parts:
            source = pdfium.PdfDocument(str(path))
            try:
                document.import_pages(source, [number - 1 for number in pages])
            finally:
                source.close()
        document.save(str(out))
    finally:
        document.close()
    return out


# libffi's manual as Texinfo writes it to HTML (Debian's libffi-dev; the
# Makefile's `documents` target installs it): real HTML nobody here wrote.
LIBFFI_HTML = Path("/usr/share/doc/libffi8/html")
# The book's chapters in reading order (not the manifest's, which is alphabetical below).
LIBFFI_CHAPTERS = ["Introduction", "Using-libffi", "The-Basics", "Simple-Example", "Types"]


def libffi_page(name: str) -> Path:
    path = LIBFFI_HTML / f"{name}.html"
    if not path.exists():
        raise FileNotFoundError(
            f"{path} is missing: `make test` installs Debian's libffi-dev for these tests."
        )
    return path


def make_epub(folder: Path, *, toc: str = "nav", name: str = "libffi.epub") -> Path:
    """An EPUB of libffi's manual pages: ``toc`` "nav" (EPUB 3) or "ncx" (EPUB 2).
    The table of contents titles each chapter "Chapter N: <page title>"."""
    titles = {
        chapter: f"Chapter {n}: {chapter.replace('-', ' ')}" for n, chapter in enumerate(LIBFFI_CHAPTERS, 1)
    }
    manifest = [
        f'<item id="{chapter}" href="text/{chapter}.xhtml" media-type="application/xhtml+xml"/>'
        for chapter in sorted(LIBFFI_CHAPTERS)
    ]
    spine = [f'<itemref idref="{chapter}"/>' for chapter in LIBFFI_CHAPTERS]
    if toc == "nav":
        manifest.append(
            '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>'
        )
        spine_open = "<spine>"
    else:
        manifest.append('<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>')
        spine_open = '<spine toc="ncx">'
    opf = (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">'
        '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">libffi</dc:identifier>'
        "<dc:title>libffi: the portable foreign function interface library</dc:title></metadata>"
        f"<manifest>{''.join(manifest)}</manifest>{spine_open}{''.join(spine)}</spine></package>"
    )
    nav = (
        '<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml" '
        'xmlns:epub="http://www.idpf.org/2007/ops"><head><title>Contents</title></head><body>'
        '<nav epub:type="toc"><ol>'
        + "".join(f'<li><a href="text/{c}.xhtml">{titles[c]}</a></li>' for c in LIBFFI_CHAPTERS)
        + "</ol></nav></body></html>"
    )
    ncx = (
        '<?xml version="1.0" encoding="utf-8"?>\n<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" '
        'version="2005-1"><navMap>'
        + "".join(
            f'<navPoint id="p{n}"><navLabel><text>{titles[c]}</text></navLabel>'
            f'<content src="text/{c}.xhtml#top"/></navPoint>'
            for n, c in enumerate(LIBFFI_CHAPTERS, 1)
        )
        + "</navMap></ncx>"
    )
    path = folder / name
    with zipfile.ZipFile(path, "w") as book:
        book.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        book.writestr(
            "META-INF/container.xml",
            '<?xml version="1.0"?><container version="1.0" '
            'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
            '<rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
            "</rootfiles></container>",
        )
        book.writestr("OEBPS/content.opf", opf, compress_type=zipfile.ZIP_DEFLATED)
        book.writestr("OEBPS/nav.xhtml" if toc == "nav" else "OEBPS/toc.ncx", nav if toc == "nav" else ncx)
        for chapter in LIBFFI_CHAPTERS:
            book.write(
                libffi_page(chapter), f"OEBPS/text/{chapter}.xhtml", compress_type=zipfile.ZIP_DEFLATED
            )
    return path


# Debian package → the PDF it ships (the Makefile's `documents` target installs them).
DEBIAN_PDFS = {
    "libtasn1-doc": "/usr/share/doc/libtasn1-doc/libtasn1.pdf",  # a manual; its indexes have two columns
    "zlib1g-dev": "/usr/share/doc/zlib1g-dev/crc-doc.1.0.pdf.gz",  # a paper, hyphenated and with ligatures
    "shared-mime-info": "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf",  # a specification
}


def debian_pdf(package: str, folder: Path) -> Path:
    """The package's PDF, unpacked into ``folder`` when Debian ships it gzipped."""
    path = Path(DEBIAN_PDFS[package])
    if not path.exists():
        pytest.fail(f"{path} is missing: `make test` installs Debian's {package} for the documents tests.")
    if path.suffix != ".gz":
        return path
    target = folder / path.stem
    with gzip.open(path) as source, target.open("wb") as out:
        shutil.copyfileobj(source, out)
    return target


def make_odt(folder: Path, name: str = "celery.odt") -> Path:
    """Celery's README (reStructuredText) written as OpenDocument text by
    Docutils' own ODF writer: headings, paragraphs, bullet lists and a table."""
    source = importlib.metadata.metadata("celery").get_payload()
    data = publish_string(source, writer="odf_odt", settings_overrides={"report_level": 5, "halt_level": 5})
    path = folder / name
    path.write_bytes(data)
    return path
