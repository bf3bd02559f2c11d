"""A PDF page as an image for the viewer's Page view, rendered by pdfium and
cached in the session's private state beside the document's original.

A page of type and lines is a PNG (lossless letters). A page that is mostly
picture (a scan, a photograph on a slide) is a JPEG: PNG took most of such a
page's cold time to encode, ten times JPEG's, for a file twice the size
(``bench.perf.page_image``).

Pure Python: no Django imports.
"""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from .model import DocumentError
from .pdf import open_pdf
from .render import original_path

PAGE_DPI = 150
POINTS_PER_INCH = 72
# A page bigger than this at PAGE_DPI (a poster, a 5 m plan) is not rendered.
MAX_PAGE_PIXELS = 40_000_000
# A page whose images cover at least this share of it is encoded as a JPEG.
PICTURE_SHARE = 0.3
JPEG_QUALITY = 88
MEDIA_TYPES = {".png": "image/png", ".jpg": "image/jpeg"}


@dataclass(frozen=True)
class PageImage:
    path: Path
    number: int
    count: int  # pages in the document
    width: float  # the page's size in PDF points, the unit of a locator's rectangles
    height: float


def cached_page_path(documents_dir: str | os.PathLike[str], original: str, number: int) -> Path | None:
    """Where ``page_image`` kept page ``number`` of ``original`` (a PNG or a
    JPEG), or ``None`` before it is rendered."""
    stem = Path(documents_dir) / "pages" / original / f"{number}-{PAGE_DPI}dpi"
    for suffix in MEDIA_TYPES:
        path = stem.with_suffix(suffix)
        if path.is_file():
            return path
    return None


def media_type(path: Path) -> str:
    return MEDIA_TYPES[path.suffix]


def picture_share(page: pdfium.PdfPage, width: float, height: float) -> float:
    """The share of the page covered by its images (overlaps counted twice, capped at 1)."""
    area = 0.0
    for image in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE], max_depth=3):
        left, bottom, right, top = image.get_bounds()
        area += max(0.0, min(right, width) - max(left, 0.0)) * max(0.0, min(top, height) - max(bottom, 0.0))
    return min(1.0, area / (width * height)) if width and height else 0.0


def page_image(documents_dir: str | os.PathLike[str], original: str, number: int) -> PageImage:
    """Page ``number`` (from 1) of the document ``original`` as an image,
    rendered once at ``PAGE_DPI`` and then served from the cache."""
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
            if cached is None:
                cached = _render(page, documents_dir / "pages" / original, number, width, height)
        finally:
            page.close()
    finally:
        document.close()
    return PageImage(path=cached, number=number, count=count, width=width, height=height)


def _render(page: pdfium.PdfPage, folder: Path, number: int, width: float, height: float) -> Path:
    scale = PAGE_DPI / POINTS_PER_INCH
    if width * scale * height * scale > MAX_PAGE_PIXELS:
        raise DocumentError(f"Page {number} is too large to show as an image.")
    picture = picture_share(page, width, height) >= PICTURE_SHARE
    cached = folder / f"{number}-{PAGE_DPI}dpi{'.jpg' if picture else '.png'}"
    folder.mkdir(parents=True, exist_ok=True)
    partial = cached.with_name(f".{cached.name}.{uuid.uuid4().hex[:8]}")
    bitmap = page.render(scale=scale)
    try:
        if picture:
            bitmap.to_pil().save(partial, format="JPEG", quality=JPEG_QUALITY)
        else:
            # zlib level 1: encoding at the default level took twice as long for a file no smaller.
            bitmap.to_pil().save(partial, format="PNG", compress_level=1)
    finally:
        bitmap.close()
    os.replace(partial, cached)  # two viewers rendering at once both leave a whole image
    return cached


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
