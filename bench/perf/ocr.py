"""OCR of a 20-page real scan: seconds per page through the app's conversion
(pdfium renders each page at 300 dpi, tesseract reads it with word boxes,
the rendition and locator map are built), against tesseract alone on the
same pages' images in the same run (the baseline: what OCR costs before any
of our work), and the character error rate of the rendition against the
pages' real text layer.

    .venv/bin/python -m bench.perf.ocr [--pages 20] [PDF]

Default: the first 20 pages of Debian's libtasn1-doc manual, rasterised at
200 dpi greyscale by poppler's pdftoppm and bound by img2pdf as a scanner
would (`make documents` installs all three). Prints each page as the app's
progress reports it, then the figures docs/BENCHMARKS.md records.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import tempfile
import time
from pathlib import Path

import pypdfium2 as pdfium

from bench.quality.ocr_engines import distance, squash
from core.ingest import Limits
from core.ingest.documents import convert_document
from core.ingest.documents.ocr import OCR_DPI, OCR_MARK

MANUAL = "/usr/share/doc/libtasn1-doc/libtasn1.pdf"


def scan(pdf: str, pages: int, folder: Path) -> tuple[Path, list[Path]]:
    subprocess.run(
        ["pdftoppm", "-r", "200", "-gray", "-png", "-f", "1", "-l", str(pages), pdf, folder / "p"], check=True
    )
    images = sorted(folder.glob("p-*.png"))
    out = folder / "scan.pdf"
    subprocess.run(["img2pdf", *map(str, images), "-o", str(out)], check=True)
    return out, images


def bare_tesseract(scanned: Path, pages: int, folder: Path) -> float:
    """tesseract alone on the very images the app gives it (each page of the
    scan rendered by pdfium at the app's OCR resolution, before timing)."""
    document = pdfium.PdfDocument(str(scanned))
    images = []
    for index in range(pages):
        image = folder / f"b-{index + 1:03}.png"
        document[index].render(scale=OCR_DPI / 72, grayscale=True).to_pil().save(image)
        images.append(image)
    document.close()
    started = time.perf_counter()
    for image in images:
        subprocess.run(
            ["tesseract", str(image), "stdout", "-l", "eng", "--dpi", str(OCR_DPI), "--psm", "3", "tsv"],
            capture_output=True,
            check=True,
            env={**os.environ, "OMP_THREAD_LIMIT": "1"},
        )
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("pdf", nargs="?", default=MANUAL)
    parser.add_argument("--pages", type=int, default=20)
    args = parser.parse_args()
    document = pdfium.PdfDocument(args.pdf)
    pages = min(args.pages, len(document))
    truth = [squash(document[i].get_textpage().get_text_range()) for i in range(pages)]
    document.close()
    with tempfile.TemporaryDirectory() as folder:
        scanned, _images = scan(args.pdf, pages, Path(folder))
        marks = []

        def progress(done: int, total: int, message: str) -> None:
            if message.startswith("OCR page"):
                marks.append(time.perf_counter())
                print(f"{message} ({marks[-1] - started:.1f} s)", flush=True)

        limits = Limits(ocr_max_pages=pages, ocr_timeout=pages * 120.0)
        started = time.perf_counter()
        rendition = convert_document(scanned, "scan.pdf", "pdf", limits=limits, progress=progress)
        app = time.perf_counter() - started
        bare = bare_tesseract(scanned, pages, Path(folder))
    read = rendition.lines.count(OCR_MARK)
    sections = re.split(r"^## Page \d+$", rendition.text, flags=re.MULTILINE)[1:]
    errors = chars = 0
    worst = []
    for number, (text, section) in enumerate(zip(truth, sections, strict=True), start=1):
        got = squash(section.replace(OCR_MARK, ""))
        wrong = distance(text, got)
        errors += wrong
        chars += len(text)
        worst.append((wrong / max(len(text), 1), number))
    print("worst pages (CER, page):", ", ".join(f"p. {n} {rate:.1%}" for rate, n in sorted(worst)[-3:]))
    print(f"pages OCR'd: {read} of {pages}; notes: {rendition.notes}")
    print(f"app (render + tesseract + rendition): {app:.1f} s, {app / pages:.2f} s/page")
    print(f"tesseract alone on the same pages:    {bare:.1f} s, {bare / pages:.2f} s/page")
    print(f"ratio app / tesseract alone: {app / bare:.2f}")
    print(f"character error rate against the text layer: {errors / max(chars, 1):.2%} over {chars} chars")


if __name__ == "__main__":
    main()
