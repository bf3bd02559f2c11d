"""Office files and a notebook made from a real text, Celery's README (its
package metadata), with the libraries that read them, and scanned PDFs made
by rasterising real pages of Debian's documentation PDFs: shared by the
documents tests here and the app's and API's tests."""

from __future__ import annotations

import ctypes
import importlib.metadata
import json
import re
import shutil
import subprocess
from pathlib import Path

import docx
import openpyxl
import pptx
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c


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
