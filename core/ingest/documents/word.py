"""Word (.docx) → Markdown: headings, paragraphs, lists, tables.

Each line's origin is the paragraph as python-docx's ``Document.paragraphs``
counts it (from 1, headings included) and the nearest heading above; a
table's lines name their table (as ``Document.tables`` counts it, from 1) and
row (from 1, the header row included), the paragraph before the table
(``None`` when the table comes first) and the nearest heading above.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from pathlib import Path

import docx
from docx.oxml.ns import qn
from docx.table import Table
from docx.text.paragraph import Paragraph

from .model import Rendition, plain

_HEADING = re.compile(r"^Heading (\d)$")


def markdown_cell(text: str) -> str:
    """A table cell's text on one line, its pipes escaped."""
    return " ".join(plain(text).split()).replace("|", "\\|")


def markdown_table(rows: list[list[str]]) -> list[str]:
    """Rows of cell texts as Markdown table lines (the first row is the header)."""
    width = max((len(row) for row in rows), default=0)
    if not width:
        return []
    padded = [row + [""] * (width - len(row)) for row in rows]
    lines = ["| " + " | ".join(padded[0]) + " |", "|" + " --- |" * width]
    lines += ["| " + " | ".join(row) + " |" for row in padded[1:]]
    return lines


def _prefix(paragraph: Paragraph) -> str:
    style = paragraph.style.name if paragraph.style is not None else ""
    if style == "Title":
        return "# "
    heading = _HEADING.match(style)
    if heading:
        return "#" * min(int(heading.group(1)) + 1, 6) + " "  # "# " is the document's title
    if style.startswith("List Number"):
        return "1. "
    numbered = paragraph._p.pPr is not None and paragraph._p.pPr.find(qn("w:numPr")) is not None
    if style.startswith("List") or numbered:
        return "- "
    return ""


def convert_docx(path: Path, name: str) -> Rendition:
    document = docx.Document(str(path))
    rendition = Rendition(kind="docx")
    rendition.add(f"# {name}")
    heading = ""
    number = 0  # body paragraphs seen, as Document.paragraphs counts them
    tables = 0  # body tables seen, as Document.tables counts them
    for element in document.element.body.iterchildren():
        if element.tag == qn("w:p"):
            number += 1
            paragraph = Paragraph(element, document)
            text = plain(paragraph.text).strip()
            if not text:
                continue
            prefix = _prefix(paragraph)
            if prefix.startswith("#"):
                heading = " ".join(text.split())
            origin = {"paragraph": number, "heading": heading}
            if not prefix.startswith(("- ", "1. ")) or not (rendition.last_line or "").startswith(
                ("- ", "1. ")
            ):
                rendition.blank()
            for index, line in enumerate(text.splitlines()):
                rendition.add((prefix if index == 0 else "") + line.rstrip(), origin)
        elif element.tag == qn("w:tbl"):
            tables += 1
            table = Table(element, document)
            rows = [[markdown_cell(cell.text) for cell in row.cells] for row in table.rows]
            rendition.blank()
            # The header line and its "| --- |" line are row 1; each line after is the next row.
            for index, line in enumerate(markdown_table(rows)):
                row = 1 if index < 2 else index
                origin = {"paragraph": number or None, "heading": heading, "table": tables, "row": row}
                rendition.add(line, origin)
    rendition.pages = number
    return rendition
