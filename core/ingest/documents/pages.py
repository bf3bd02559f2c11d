"""A PDF page as an image for the viewer's Page view, rendered by pdfium and
cached in the session's private state beside the document's original.

Pure Python: no Django imports.
"""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass
from pathlib import Path

from .model import DocumentError
from .pdf import open_pdf
from .render import original_path

PAGE_DPI = 150
POINTS_PER_INCH = 72
# A page bigger than this at PAGE_DPI (a poster, a 5 m plan) is not rendered.
MAX_PAGE_PIXELS = 40_000_000


@dataclass(frozen=True)
class PageImage:
    path: Path
    number: int
    count: int  # pages in the document
    width: float  # the page's size in PDF points, the unit of a locator's rectangles
    height: float


def cached_page_path(documents_dir: str | os.PathLike[str], original: str, number: int) -> Path:
    """Where ``page_image`` keeps page ``number`` of ``original`` as a PNG."""
    return Path(documents_dir) / "pages" / original / f"{number}-{PAGE_DPI}dpi.png"


def page_image(documents_dir: str | os.PathLike[str], original: str, number: int) -> PageImage:
    """Page ``number`` (from 1) of the document ``original`` as a PNG, rendered
    once at ``PAGE_DPI`` and then served from the cache."""
    documents_dir = Path(documents_dir)
    source = original_path(documents_dir, original)
    cached = cached_page_path(documents_dir, original, number)
    document = open_pdf(source, Path(original).name)
    try:
        count = len(document)
        if not 1 <= number <= count:
            raise DocumentError(f"{Path(original).name} has no page {number}; it has {count}.")
        page = document[number - 1]
        try:
            width, height = page.get_size()
            if not cached.is_file():
                scale = PAGE_DPI / POINTS_PER_INCH
                if width * scale * height * scale > MAX_PAGE_PIXELS:
                    raise DocumentError(f"Page {number} is too large to show as an image.")
                cached.parent.mkdir(parents=True, exist_ok=True)
                partial = cached.with_name(f".{cached.name}.{uuid.uuid4().hex[:8]}")
                bitmap = page.render(scale=scale)
                try:
                    # zlib level 1: encoding at the default level took twice as long (most of
                    # a cold page's time, bench.perf.page_image) for a file no smaller.
                    bitmap.to_pil().save(partial, format="PNG", compress_level=1)
                finally:
                    bitmap.close()
                os.replace(partial, cached)  # two viewers rendering at once both leave a whole image
        finally:
            page.close()
    finally:
        document.close()
    return PageImage(path=cached, number=number, count=count, width=width, height=height)


def rect_boxes(rects: list[list[float]], height: float, margin: float = 1.5) -> list[dict[str, float]]:
    """A locator's rectangles (PDF points, origin at the bottom left) as SVG
    boxes over the page (origin at the top left), ``margin`` points wider so
    the outline does not cross the letters."""
    boxes = []
    for left, bottom, right, top in rects:
        boxes.append(
            {
                "x": round(left - margin, 2),
                "y": round(height - top - margin, 2),
                "width": round(right - left + 2 * margin, 2),
                "height": round(top - bottom + 2 * margin, 2),
            }
        )
    return boxes
