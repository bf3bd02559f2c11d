"""OpenDocument text (.odt) → Markdown: headings, paragraphs, lists, tables,
read from the package's ``content.xml`` with lxml (entities and network
off) after the zip defences in ``convert.py``: no LibreOffice, no odfpy.

Each line's origin is like a Word document's: the paragraph (``text:p`` and
``text:h`` outside tables, list items included, counted from 1 in document
order) and the nearest heading above; a table's lines name their table and
row (from 1), the paragraph before the table and the heading above.

Pure Python: no Django imports.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from lxml import etree

from .model import DocumentError, Rendition, plain
from .word import markdown_cell, markdown_table

MIMETYPE = "application/vnd.oasis.opendocument.text"
# A cell may say it repeats across many columns; a text table is never wider than this.
MAX_REPEATED_COLUMNS = 64
_XML = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
_TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
_OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"


def _t(name: str) -> str:
    return f"{{{_TEXT}}}{name}"


P, H, LIST, ITEM, HEADER = _t("p"), _t("h"), _t("list"), _t("list-item"), _t("list-header")
TABLE, ROW, CELL = f"{{{_TABLE}}}table", f"{{{_TABLE}}}table-row", f"{{{_TABLE}}}table-cell"
# Not part of the running text: footnote bodies, comments, change-tracking records.
_SKIP = {_t("note"), f"{{{_OFFICE}}}annotation", _t("tracked-changes"), _t("sequence-decls")}


def _inline(element) -> str:
    """A paragraph's text: spaces (``text:s``), tabs and line breaks as ODF writes them."""
    parts = [element.text or ""]
    for child in element:
        if child.tag in _SKIP:
            pass
        elif child.tag == _t("s"):
            parts.append(" " * int(child.get(_t("c"), "1") or 1))
        elif child.tag == _t("tab"):
            parts.append("\t")
        elif child.tag == _t("line-break"):
            parts.append("\n")
        else:
            parts.append(_inline(child))
        parts.append(child.tail or "")
    return "".join(parts)


class _Writer:
    def __init__(self, name: str) -> None:
        self.rendition = Rendition(kind="odt")
        self.rendition.add(f"# {name}")
        self.heading = ""
        self.paragraphs = 0
        self.tables = 0

    def block(self, element, depth: int = 0) -> None:
        for child in element:
            tag = child.tag
            if tag in (P, H):
                self.paragraph(child, depth)
            elif tag == LIST:
                self.block_list(child, depth)
            elif tag == TABLE:
                self.table(child)
            elif tag not in _SKIP and isinstance(tag, str):
                self.block(child, depth)  # sections, soft page breaks, frames …

    def block_list(self, element, depth: int) -> None:
        for item in element:
            if item.tag in (ITEM, HEADER):
                self.block(item, depth + 1)

    def paragraph(self, element, depth: int) -> None:
        self.paragraphs += 1
        text = plain(_inline(element)).strip()
        if not text:
            return
        lines = [line.rstrip() for line in text.splitlines()]
        if element.tag == H:
            level = int(element.get(_t("outline-level"), "1") or 1)
            self.heading = " ".join(text.split())
            prefix, lines = "#" * min(level + 1, 6) + " ", [self.heading]
        elif depth:
            prefix = "  " * (depth - 1) + "- "
        else:
            prefix = ""
        origin = {"paragraph": self.paragraphs, "heading": self.heading}
        if not (depth and (self.rendition.last_line or "").lstrip().startswith("- ")):
            self.rendition.blank()
        for index, line in enumerate(lines):
            self.rendition.add((prefix if index == 0 else "  " * depth) + line, origin)

    def table(self, element) -> None:
        self.tables += 1
        rows = []
        for row in element.iter(ROW):
            if next(row.iterancestors(TABLE)) is not element:
                continue  # a table inside a cell: its text is in that cell
            cells = []
            for cell in row.iterchildren(CELL):
                text = " ".join(plain(_inline(p)) for p in cell.iter(P, H))
                repeated = int(cell.get(f"{{{_TABLE}}}number-columns-repeated", "1") or 1)
                cells += [markdown_cell(text)] * max(1, min(repeated, MAX_REPEATED_COLUMNS))
            rows.append(cells)
        self.rendition.blank()
        for index, line in enumerate(markdown_table(rows)):
            origin = {
                "paragraph": self.paragraphs or None,
                "heading": self.heading,
                "table": self.tables,
                "row": 1 if index < 2 else index,
            }
            self.rendition.add(line, origin)


def convert_odt(path: Path, name: str) -> Rendition:
    with zipfile.ZipFile(path) as package:
        try:
            root = etree.fromstring(package.read("content.xml"), _XML)
        except etree.XMLSyntaxError as exc:
            raise DocumentError(
                f"{name} is damaged: its content.xml is not well-formed XML ({exc})."
            ) from exc
    text = root.find(f"{{{_OFFICE}}}body/{{{_OFFICE}}}text")
    if text is None:
        raise DocumentError(f"{name} is not a text document (its content.xml has no office:text).")
    writer = _Writer(name)
    writer.block(text)
    writer.rendition.pages = writer.paragraphs
    return writer.rendition
