"""The Page view's image of a PDF page: lossless PNG where the page is type and
lines, JPEG where most of it is a picture (a scan, a photograph on a slide),
which PNG took most of a cold page's time to encode (bench.perf.page_image)."""

from __future__ import annotations

import shutil
from pathlib import Path

from PIL import Image

from core.ingest.documents.pages import cached_page_path, page_image
from tests.core.ingest.documents.builders import make_scan


def keep(documents: Path, pdf: Path, name: str) -> str:
    (documents / "originals").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(pdf, documents / "originals" / name)
    return name


def test_a_page_of_text_is_a_png(tmp_path, crc_pdf):
    original = keep(tmp_path, crc_pdf, "crc.pdf")
    image = page_image(tmp_path, original, 3)
    assert image.path.suffix == ".png"
    assert Image.open(image.path).format == "PNG"
    assert cached_page_path(tmp_path, original, 3) == image.path


def test_a_scanned_page_is_a_jpeg_and_is_served_from_the_cache(tmp_path, mime_pdf):
    scan = make_scan(tmp_path, mime_pdf, [1, 2], dpi=100)
    documents = tmp_path / "documents"
    original = keep(documents, scan, "scan.pdf")
    assert cached_page_path(documents, original, 2) is None
    image = page_image(documents, original, 2)
    with Image.open(image.path) as picture:
        assert picture.format == "JPEG"
        assert abs(picture.width - image.width * 150 / 72) <= 1  # the page at 150 dpi
    assert image.path.suffix == ".jpg"
    assert cached_page_path(documents, original, 2) == image.path
    (documents / "originals" / original).unlink()
    assert cached_page_path(documents, original, 2) == image.path  # no PDF needed any more
