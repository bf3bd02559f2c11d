"""A citation's locator: where its verified lines came from in the original
document, in the shape the API gives (issue #30):

- PDF ``{"kind": "pdf", "page": P, "page_end": P2, "ocr": bool, "regions":
  [{"page": P, "rects": [[left, bottom, right, top], …]}]}``: rectangles in
  PDF points from pdfium's character boxes of the quoted characters, one per
  visual line; on a scanned page (``"ocr": true``) from the OCR's boxes of
  the quoted words, one per line;
- ``{"kind": "docx", "paragraph": N, "heading": "…"}``, ``{"kind": "pptx",
  "slide": N}``, ``{"kind": "ipynb", "cell": N}``, ``{"kind": "xlsx",
  "sheet": "…", "cells": "A23:F23"}``; a citation that spans several names
  the last too (``paragraph_end``, ``slide_end``, ``cell_end``).

Pure Python: no Django imports.
"""

from __future__ import annotations

import json
from pathlib import Path

import pypdfium2 as pdfium

from core.sandbox import resolve_in_sandbox

from .model import MAP_VERSION
from .pdf import expand, open_pdf, page_text
from .quote import quote_span
from .render import original_path

# Said wherever a citation of OCR text is named: the words may be misread.
OCR_WARNING = "OCR text: check the page image"
# Two character boxes are on one visual line when their heights overlap by at least this share.
SAME_LINE_OVERLAP = 0.5


def load_map(documents_dir: str | Path, rendition: str) -> dict | None:
    """The locator map of ``rendition`` (a path inside its content folder), or ``None``."""
    try:
        # ``rendition`` may come from a URL: resolved like any sandbox path, so
        # "../" cannot reach a file outside the maps folder.
        path = resolve_in_sandbox(Path(documents_dir) / "maps", f"{rendition}.json")
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # SandboxError is a ValueError
        return None
    return data if isinstance(data, dict) and data.get("version") == MAP_VERSION else None


def locate(
    documents_dir: str | Path,
    rendition: str,
    lines: list[str],
    line_start: int,
    line_end: int,
    excerpt: str | None = None,
) -> dict | None:
    """The locator of lines ``line_start``–``line_end`` (from 1) of the
    rendition whose full text is ``lines``, narrowed to ``excerpt`` when it is
    found in them; ``None`` when the file is not a document's rendition."""
    data = load_map(documents_dir, rendition)
    if data is None or line_start < 1 or line_end < line_start:
        return None
    origins = data["lines"][line_start - 1 : line_end]
    known = [origin for origin in origins if origin]
    if not known:
        return None
    kind = data["kind"]
    if kind == "pdf":
        cited = lines[line_start - 1 : line_end]
        return _pdf(Path(documents_dir), data, origins, cited, excerpt)
    first, last = known[0], known[-1]
    if kind == "docx":
        return _with_end(
            {"kind": "docx", "paragraph": first["paragraph"], "heading": first["heading"]}, "paragraph", last
        )
    if kind == "pptx":
        return _with_end({"kind": "pptx", "slide": first["slide"]}, "slide", last)
    if kind == "ipynb":
        return _with_end({"kind": "ipynb", "cell": first["cell"]}, "cell", last)
    if kind == "xlsx":
        rows = [origin for origin in known if origin.get("sheet") == first["sheet"] and "row" in origin]
        cells = f"{rows[0]['first']}{rows[0]['row']}:{rows[-1]['last']}{rows[-1]['row']}" if rows else None
        return {"kind": "xlsx", "sheet": first["sheet"], "cells": cells}
    return None


def _with_end(locator: dict, key: str, last: dict) -> dict:
    if last[key] != locator[key]:
        locator[f"{key}_end"] = last[key]
    return locator


def _pdf(documents_dir: Path, data: dict, origins: list, cited: list[str], excerpt: str | None) -> dict:
    span = quote_span(cited, excerpt)
    (first_line, first_column), (last_line, end_column) = span or ((0, 0), (len(cited) - 1, None))
    chars: dict[int, list[int]] = {}  # page → its quoted characters' indexes, in order
    words: dict[int, list[list[float]]] = {}  # page → one rectangle per quoted OCR line
    pages = []
    ocr = False
    for number, origin in enumerate(origins):
        if not origin:
            continue
        pages.append(origin["page"])
        if not first_line <= number <= last_line:
            continue
        ocr = ocr or bool(origin.get("ocr"))
        start = first_column if number == first_line else 0
        if "words" in origin:
            stop = end_column if number == last_line and end_column is not None else None
            rect = _word_rect(origin["words"], start, stop)
            if rect:
                words.setdefault(origin["page"], []).append(rect)
            continue
        if "runs" not in origin:
            continue
        indexes = expand(origin["runs"])
        stop = end_column if number == last_line and end_column is not None else len(indexes)
        chars.setdefault(origin["page"], []).extend(indexes[start:stop])
    found: dict[int, list[list[float]]] = {}
    if chars:
        document = open_pdf(original_path(documents_dir, data["original"]), data["original"])
        try:
            for page_number, indexes in chars.items():
                page = document[page_number - 1]
                try:
                    found[page_number] = _line_rects(page.get_textpage(), indexes)
                finally:
                    page.close()
        finally:
            document.close()
    for page_number, rects in words.items():
        found.setdefault(page_number, []).extend(rects)
    regions = [{"page": page_number, "rects": found[page_number]} for page_number in sorted(found)]
    quoted_pages = [region["page"] for region in regions] or pages
    return {
        "kind": "pdf",
        "page": quoted_pages[0],
        "page_end": quoted_pages[-1],
        "ocr": ocr,
        "regions": regions,
    }


def _word_rect(line_words: list[list[float]], start: int, stop: int | None) -> list[float] | None:
    """The rectangle around the OCR words of a line (``[column, length,
    left, bottom, right, top]`` each) that columns ``start``–``stop`` touch."""
    boxes = [
        word[2:] for word in line_words if word[0] + word[1] > start and (stop is None or word[0] < stop)
    ]
    if not boxes:
        return None
    return [
        min(box[0] for box in boxes),
        min(box[1] for box in boxes),
        max(box[2] for box in boxes),
        max(box[3] for box in boxes),
    ]


def _line_rects(textpage: pdfium.PdfTextPage, indexes: list[int]) -> list[list[float]]:
    """The boxes of the characters at ``indexes`` merged into one rectangle
    per visual line (whitespace and characters without a box left out).
    pdfium's loose boxes span the font's height, so a comma or an "x" sits
    in its line's band like a capital and a line gives one even rectangle."""
    rects: list[list[float]] = []
    text = page_text(textpage)
    for index in indexes:
        if index < len(text) and text[index].isspace():
            continue
        left, bottom, right, top = textpage.get_charbox(index, loose=True)
        if right <= left or top <= bottom:
            continue
        if rects:
            current = rects[-1]
            overlap = min(top, current[3]) - max(bottom, current[1])
            if (
                overlap >= SAME_LINE_OVERLAP * min(top - bottom, current[3] - current[1])
                and left >= current[0] - 1
            ):
                current[0], current[1] = min(current[0], left), min(current[1], bottom)
                current[2], current[3] = max(current[2], right), max(current[3], top)
                continue
        rects.append([left, bottom, right, top])
    return [[round(value, 2) for value in rect] for rect in rects]


def describe(locator: dict | None, original: str) -> str:
    """How a citation of a document is named: "report.pdf, p. 7",
    "deck.pptx, slide 3", "data.xlsx, Sheet1 A23:F23" …; a citation of OCR
    text says so: "scan.pdf, p. 2 (OCR text: check the page image)"."""
    if not locator:
        return original
    kind = locator.get("kind")
    if kind == "pdf":
        first, last = locator["page"], locator.get("page_end", locator["page"])
        label = f"{original}, p. {first}" if first == last else f"{original}, pp. {first}–{last}"
        return f"{label} ({OCR_WARNING})" if locator.get("ocr") else label
    if kind == "xlsx":
        return f"{original}, {locator['sheet']}" + (f" {locator['cells']}" if locator.get("cells") else "")
    for key, word in (("slide", "slide"), ("cell", "cell"), ("paragraph", "¶")):
        if key in locator:
            end = locator.get(f"{key}_end")
            return f"{original}, {word} {locator[key]}" + (f"–{end}" if end else "")
    return original
