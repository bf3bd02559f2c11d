"""Real documents for the documents tests: PDFs shipped by Debian
documentation packages (`make test` installs them), and Word, PowerPoint,
Excel files and notebooks made here from a real text, Celery's README."""

from __future__ import annotations

import gzip
import importlib.metadata
import json
import os
import re
import shutil
import uuid
from pathlib import Path

import docx
import openpyxl
import pptx
import pytest

from core.sandbox import default_state_dir, ensure_layout

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


@pytest.fixture
def crc_pdf(tmp_path: Path) -> Path:
    return debian_pdf("zlib1g-dev", tmp_path)


@pytest.fixture
def tasn1_pdf(tmp_path: Path) -> Path:
    return debian_pdf("libtasn1-doc", tmp_path)


@pytest.fixture
def mime_pdf(tmp_path: Path) -> Path:
    return debian_pdf("shared-mime-info", tmp_path)


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


@pytest.fixture
def sandbox(tmp_path: Path) -> Path:
    return ensure_layout(tmp_path / "sandbox")


@pytest.fixture
def dest(sandbox: Path) -> Path:
    return sandbox / str(uuid.uuid4())


@pytest.fixture
def leftovers(sandbox: Path):
    """Everything in the sandbox, and in the private staging and documents
    folders beside it (as ``staging:…``, ``documents:…``)."""

    def collect() -> list[str]:
        found = []
        for folder, dirs, names in os.walk(sandbox):
            found += [Path(folder, name).relative_to(sandbox).as_posix() for name in dirs + names]
        for private in ("staging", "documents"):
            root = default_state_dir(sandbox) / private
            if root.is_dir():
                found += [f"{private}:{entry.name}" for entry in root.iterdir()]
        return sorted(found)

    return collect


@pytest.fixture
def sections():
    return readme_sections()


@pytest.fixture
def word_file(tmp_path, sections):
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
    path = tmp_path / "celery.docx"
    document.save(path)
    return path


@pytest.fixture
def slides_file(tmp_path, sections):
    presentation = pptx.Presentation()
    for title, _, paragraphs in sections[:6]:
        slide = presentation.slides.add_slide(presentation.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text_frame.text = paragraphs[0]
        slide.notes_slide.notes_text_frame.text = f"Say: {title}"
    path = tmp_path / "celery.pptx"
    presentation.save(path)
    return path


@pytest.fixture
def workbook_file(tmp_path, sections):
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Sections"
    sheet.append(["Title", "Level", "Paragraphs", "First paragraph"])
    for title, level, paragraphs in sections:
        sheet.append([title, level, len(paragraphs), paragraphs[0]])
    empty = workbook.create_sheet("Empty")
    del empty
    path = tmp_path / "celery.xlsx"
    workbook.save(path)
    return path


@pytest.fixture
def notebook_file(tmp_path, sections):
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
    path = tmp_path / "tasks.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    return path
