"""Compare the two offline OCR engines on real pages rasterised as a scanner
would: Debian's tesseract-ocr (CLI) and rapidocr (a PyPI wheel with its ONNX
models inside). Each page of a Debian documentation PDF is rendered to a
300 dpi greyscale image with poppler's pdftoppm, OCR'd by each engine, and
compared with the page's own text layer (pdfium): character error rate
(edit distance over the reference's length, whitespace collapsed) and
seconds per page.

    .venv/bin/python -m bench.quality.ocr_engines
    /path/to/venv-with-rapidocr/bin/python -m bench.quality.ocr_engines

rapidocr is not a dependency of the app: the engine is measured when the
interpreter running this script can import it, and skipped otherwise.
docs/DOCUMENTS.md records the figures and the choice they led to.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pypdfium2 as pdfium

# (PDF, pages from 1): a manual's prose and code, a specification's prose and tables.
PAGES = [
    ("/usr/share/doc/libtasn1-doc/libtasn1.pdf", [5, 9, 17]),
    ("/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf", [2, 4, 7]),
]
DPI = 300


def reference(path: str, number: int) -> str:
    document = pdfium.PdfDocument(path)
    try:
        return document[number - 1].get_textpage().get_text_range()
    finally:
        document.close()


def squash(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("\ufffe", "").replace("\x02", "")).strip()


def distance(a: str, b: str) -> int:
    """Levenshtein distance, two rows at a time."""
    previous = list(range(len(b) + 1))
    for i, char in enumerate(a, 1):
        current = [i]
        for j, other in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char != other)))
        previous = current
    return previous[-1]


def rasterise(path: str, number: int, folder: Path) -> Path:
    stem = folder / f"page{number}"
    subprocess.run(
        [
            "pdftoppm",
            "-r",
            str(DPI),
            "-gray",
            "-png",
            "-f",
            str(number),
            "-l",
            str(number),
            "-singlefile",
            path,
            stem,
        ],
        check=True,
    )
    return stem.with_suffix(".png")


def tesseract(image: Path) -> str:
    run = subprocess.run(
        ["tesseract", str(image), "-", "-l", "eng", "--psm", "3"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "OMP_THREAD_LIMIT": "1"},  # as the app runs it (core/ingest/documents/ocr.py)
    )
    return run.stdout


def rapidocr_engine():
    try:
        from rapidocr import RapidOCR  # an optional contender, not a dependency
    except ImportError:
        return None
    engine = RapidOCR()
    return lambda image: "\n".join(engine(str(image)).txts or ())


def main() -> None:
    engines = {"tesseract": tesseract}
    rapid = rapidocr_engine()
    if rapid is not None:
        engines["rapidocr"] = rapid
    else:
        print("rapidocr is not importable here: measuring tesseract only", file=sys.stderr)
    totals = {name: [0, 0, 0.0] for name in engines}  # errors, reference chars, seconds
    with tempfile.TemporaryDirectory() as folder:
        for path, numbers in PAGES:
            if not Path(path).exists():
                print(f"missing {path}: `make documents` installs it", file=sys.stderr)
                continue
            for number in numbers:
                truth = squash(reference(path, number))
                image = rasterise(path, number, Path(folder))
                row = [f"{Path(path).name} p. {number} ({len(truth)} chars)"]
                for name, engine in engines.items():
                    start = time.perf_counter()
                    text = squash(engine(image))
                    seconds = time.perf_counter() - start
                    errors = distance(truth, text)
                    totals[name][0] += errors
                    totals[name][1] += len(truth)
                    totals[name][2] += seconds
                    row.append(f"{name} CER {errors / max(len(truth), 1):.1%} {seconds:.2f} s")
                print(" | ".join(row), flush=True)
    pages = sum(len(numbers) for _path, numbers in PAGES)
    for name, (errors, chars, seconds) in totals.items():
        print(f"{name}: CER {errors / max(chars, 1):.2%} over {chars} chars, {seconds / pages:.2f} s/page")


if __name__ == "__main__":
    main()
