"""PDF ingest throughput against pypdfium2's bare text extraction of the
same files (issue #30's target: ≥ 0.5×, our work on top at most doubling it),
and the Page view's page images at 150 dpi: p95 cold (targets ≤ 250 ms) and
cached (≤ 20 ms).

    .venv/bin/python -m bench.perf.documents [--rounds 3] [PDF …]

Default: the PDFs of Debian documentation packages on this machine (see
-m bench.perf.pdf_libraries). Each round times bare extraction (every
page's text) and the full conversion (rendition and locator map, serialised
as stored); the best round of each is compared.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import pypdfium2 as pdfium

from bench.perf.pdf_libraries import DEBIAN_PDFS, unpacked
from core.ingest import Limits
from core.ingest.documents import convert_document
from core.ingest.documents.pages import page_image
from core.ingest.documents.render import original_path


def bare(paths: list[Path]) -> int:
    pages = 0
    for path in paths:
        document = pdfium.PdfDocument(str(path))
        for index in range(len(document)):
            page = document[index]
            page.get_textpage().get_text_range()
            page.close()
            pages += 1
        document.close()
    return pages


def converted(paths: list[Path]) -> int:
    pages = 0
    for path in paths:
        rendition = convert_document(path, path.name, "pdf", limits=Limits(max_pdf_pages=10_000))
        rendition.text.encode("utf-8")
        json.dumps(
            rendition.locator_map(original=path.name, rendition=f"{path.name}.md"), separators=(",", ":")
        )
        pages += rendition.pages
    return pages


def best(work, paths: list[Path], rounds: int) -> tuple[float, int]:
    times, pages = [], 0
    for _ in range(rounds):
        started = time.perf_counter()
        pages = work(paths)
        times.append(time.perf_counter() - started)
    return min(times), pages


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def page_images(paths: list[Path], folder: Path, limit: int) -> tuple[list[float], list[float]]:
    """Seconds per page image, cold (rendered) and cached, for up to ``limit`` pages per PDF."""
    cold, cached = [], []
    for path in paths:
        documents = folder / path.stem
        original = original_path(documents, path.name)
        original.parent.mkdir(parents=True)
        original.write_bytes(path.read_bytes())
        count = len(pdfium.PdfDocument(str(path)))
        for number in range(1, min(count, limit) + 1):
            for times in (cold, cached):
                started = time.perf_counter()
                page_image(documents, path.name, number)
                times.append(time.perf_counter() - started)
    return cold, cached


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--image-pages", type=int, default=20, help="page images per PDF")
    parser.add_argument("pdfs", nargs="*")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        paths = [Path(p) for p in args.pdfs] or unpacked(DEBIAN_PDFS, Path(tmp))
        megabytes = sum(p.stat().st_size for p in paths) / 1e6
        bare_seconds, pages = best(bare, paths, args.rounds)
        ours, _ = best(converted, paths, args.rounds)
        print(f"{len(paths)} PDFs, {pages} pages, {megabytes:.1f} MB")
        print(f"bare pdfium text: {bare_seconds:.2f} s ({pages / bare_seconds:.0f} pages/s)")
        print(f"rendition + map:  {ours:.2f} s ({pages / ours:.0f} pages/s)")
        print(f"throughput ratio: {bare_seconds / ours:.2f}x of bare extraction (target >= 0.5x)")
        cold, cached = page_images(paths, Path(tmp) / "images", args.image_pages)
        print(
            f"page images at 150 dpi ({len(cold)} pages): p95 cold {1000 * p95(cold):.0f} ms, "
            f"cached {1000 * p95(cached):.1f} ms (targets 250 ms and 20 ms)"
        )


if __name__ == "__main__":
    main()
