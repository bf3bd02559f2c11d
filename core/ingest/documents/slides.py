"""PowerPoint (.pptx) → Markdown: one section per slide with its title, text,
tables and speaker notes; every line's origin is its slide (from 1).

Pure Python: no Django imports.
"""

from __future__ import annotations

from pathlib import Path

import pptx

from .model import Rendition, plain
from .word import markdown_cell, markdown_table


def _shape_lines(shape) -> list[str]:
    if getattr(shape, "has_table", False) and shape.has_table:
        rows = [[markdown_cell(cell.text) for cell in row.cells] for row in shape.table.rows]
        return ["", *markdown_table(rows), ""]
    if getattr(shape, "shape_type", None) is not None and hasattr(shape, "shapes"):  # a group
        return [line for inner in shape.shapes for line in _shape_lines(inner)]
    if not getattr(shape, "has_text_frame", False) or not shape.has_text_frame:
        return []
    lines = []
    for paragraph in shape.text_frame.paragraphs:
        text = plain(paragraph.text).strip()
        if text:
            lines.append(("  " * paragraph.level) + "- " + text if paragraph.level else text)
    return lines


def convert_pptx(path: Path, name: str) -> Rendition:
    presentation = pptx.Presentation(str(path))
    rendition = Rendition(kind="pptx")
    rendition.add(f"# {name}")
    for number, slide in enumerate(presentation.slides, start=1):
        origin = {"slide": number}
        title_shape = slide.shapes.title
        title = " ".join(plain(title_shape.text).split()) if title_shape is not None else ""
        rendition.blank()
        rendition.add(f"## Slide {number}" + (f": {title}" if title else ""), origin)
        rendition.add("", origin)
        for shape in slide.shapes:
            if title_shape is not None and shape.shape_id == title_shape.shape_id:
                continue
            for line in _shape_lines(shape):
                for part in line.splitlines() or [""]:
                    rendition.add(part, origin)
        if slide.has_notes_slide:
            notes = (
                plain(slide.notes_slide.notes_text_frame.text).strip()
                if slide.notes_slide.notes_text_frame
                else ""
            )
            if notes:
                rendition.blank()
                rendition.add("Notes:", origin)
                for line in notes.splitlines():
                    rendition.add(line.rstrip(), origin)
        rendition.pages = number
    return rendition
