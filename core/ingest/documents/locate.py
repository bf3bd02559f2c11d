"""A citation's locator: where its verified lines came from in the original
document, in the shape the API gives (issue #30):

- PDF ``{"kind": "pdf", "page": P, "page_end": P2, "ocr": bool, "regions":
  [{"page": P, "rects": [[left, bottom, right, top], …]}]}``: rectangles in
  PDF points from pdfium's character boxes of the quoted characters, one per
  visual line; on a scanned page (``"ocr": true``) from the OCR's boxes of
  the quoted words, one per line;
- ``{"kind": "docx", "paragraph": N, "heading": "…"}`` (a table's lines add
  ``"table": T, "row": R`` and ``paragraph`` is the one before the table,
  ``null`` when the table comes first; an .odt is cited alike, ``"kind":
  "odt"``), ``{"kind": "pptx", "slide": N}``,
  ``{"kind": "ipynb", "cell": N}``, ``{"kind": "xlsx", "sheet": "…",
  "cells": "A23:F23"}``, ``{"kind": "epub", "chapter": "…"}``,
  ``{"kind": "html", "heading": "…"}`` (the nearest heading above the cited
  lines); a citation that spans several names the last too
  (``paragraph_end``, ``row_end``, ``slide_end``, ``cell_end``, ``chapter_end``).

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
    kind = data["kind"]
    if kind == "pdf":
        origins = data["lines"][line_start - 1 : line_end]
        if not any(origins):
            return None
        cited = lines[line_start - 1 : line_end]
        return _pdf(Path(documents_dir), data, origins, cited, excerpt)
    return map_locator(data, line_start, line_end)


def map_locator(data: dict, line_start: int, line_end: int) -> dict | None:
    """The locator of lines ``line_start``–``line_end`` from the map alone:
    complete for every kind but PDF, whose locator gets only its pages here
    (its rectangles need the PDF: see ``locate``)."""
    known = [origin for origin in data["lines"][max(line_start, 1) - 1 : line_end] if origin]
    if not known:
        return None
    kind = data["kind"]
    first, last = known[0], known[-1]
    if kind == "pdf":
        return {"kind": "pdf", "page": first["page"], "page_end": last["page"]}
    if kind in ("docx", "odt"):
        locator = {"kind": kind, "paragraph": first["paragraph"], "heading": first["heading"]}
        if "table" in first:
            locator.update(table=first["table"], row=first["row"])
            if last.get("table") == first["table"] and last["row"] != first["row"]:
                locator["row_end"] = last["row"]
        if last["paragraph"] != first["paragraph"] and last["paragraph"] is not None:
            locator["paragraph_end"] = last["paragraph"]
        return locator
    if kind == "pptx":
        return _with_end({"kind": "pptx", "slide": first["slide"]}, "slide", last)
    if kind == "ipynb":
        return _with_end({"kind": "ipynb", "cell": first["cell"]}, "cell", last)
    if kind == "epub":
        locator = {"kind": "epub", "chapter": first["chapter"]}
        if last["number"] != first["number"]:
            locator["chapter_end"] = last["chapter"]
        return locator
    if kind == "html":
        return {"kind": "html", "heading": first["heading"]}
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
    where = place(locator)
    label = f"{original}, {where}" if where else original
    if locator and locator.get("kind") == "pdf" and locator.get("ocr"):
        return f"{label} ({OCR_WARNING})"
    return label


def place(locator: dict | None) -> str:
    """Where in its original a locator points, in words: "p. 7", "slide 3",
    "Sheet1 A23:F23", "¶ 12", "table 1, row 2", "“Chapter 1”" … ("" when
    there is nothing to say)."""
    if not locator:
        return ""
    kind = locator.get("kind")
    if kind == "pdf":
        first, last = locator["page"], locator.get("page_end", locator["page"])
        return f"p. {first}" if first == last else f"pp. {first}–{last}"
    if kind == "xlsx":
        return locator["sheet"] + (f" {locator['cells']}" if locator.get("cells") else "")
    if kind == "epub":
        end = locator.get("chapter_end")
        return f"“{locator['chapter']}”" + (f" to “{end}”" if end else "")
    if kind == "html":
        return f"“{locator['heading']}”" if locator.get("heading") else ""
    if kind in ("docx", "odt") and "table" in locator:
        end = locator.get("row_end")
        return f"table {locator['table']}, row {locator['row']}" + (f"–{end}" if end else "")
    for key, word in (("slide", "slide"), ("cell", "cell"), ("paragraph", "¶")):
        if locator.get(key) is not None:
            end = locator.get(f"{key}_end")
            return f"{word} {locator[key]}" + (f"–{end}" if end else "")
    return ""


def line_labels(data: dict, first: int, last: int) -> dict[int, str]:
    """Labels for the text viewer: line number → where that line came from
    ("slide 4", "Sections A23:D23", "cell 3", "¶ 12 · Heading", "“Chapter”",
    "p. 7"), given on the first line of ``first``–``last`` and wherever it
    changes; lines the conversion added (blank lines) get none."""
    labels: dict[int, str] = {}
    shown = None
    for number in range(max(first, 1), last + 1):
        locator = map_locator(data, number, number)
        if locator is None:
            continue
        label = place(locator)
        heading = locator.get("heading") if locator["kind"] in ("docx", "odt") else None
        if heading:
            label = f"{label} · {heading}" if label else heading
        if label and label != shown:
            labels[number] = shown = label
    return labels
