"""Compare pypdfium2 and pypdf on real PDFs: extraction speed, and the text of
one two-column page (a Texinfo index) as each library orders it.

    .venv/bin/python -m bench.perf.pdf_libraries [PDF …]

Default: the PDFs shipped by Debian documentation packages on this machine
(gzipped ones are unpacked to a temporary folder). docs/DOCUMENTS.md records
the figures and the choice they led to.
"""

from __future__ import annotations

import gzip
import shutil
import sys
import tempfile
import time
from pathlib import Path

import pypdf
import pypdfium2 as pdfium

DEBIAN_PDFS = [
    "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf",
    "/usr/share/doc/libtasn1-doc/libtasn1.pdf",
    "/usr/share/doc/bzip2/manual.pdf.gz",
    "/usr/share/doc/zlib1g-dev/crc-doc.1.0.pdf.gz",
    "/usr/share/doc/nettle-dev/nettle.pdf.gz",
    "/usr/share/doc/valgrind/valgrind_manual.pdf.gz",
    "/usr/share/doc/fontconfig/fontconfig-user.pdf.gz",
]
TWO_COLUMN = ("libtasn1.pdf", 36)  # "Function and Data Index": two columns of entries


def unpacked(paths: list[str], folder: Path) -> list[Path]:
    found = []
    for name in paths:
        path = Path(name)
        if not path.exists():
            continue
        if path.suffix == ".gz":
            target = folder / path.stem
            with gzip.open(path) as source, target.open("wb") as out:
                shutil.copyfileobj(source, out)
            path = target
        found.append(path)
    return found


def pdfium_text(path: Path) -> list[str]:
    document = pdfium.PdfDocument(path)
    try:
        return [document[i].get_textpage().get_text_range() for i in range(len(document))]
    finally:
        document.close()


def pypdf_text(path: Path) -> list[str]:
    return [page.extract_text() or "" for page in pypdf.PdfReader(path).pages]


def main(argv: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        pdfs = [Path(p) for p in argv] or unpacked(DEBIAN_PDFS, Path(tmp))
        total_bytes = sum(p.stat().st_size for p in pdfs)
        print(f"{len(pdfs)} PDFs, {total_bytes / 1e6:.1f} MB")
        for name, extract in (("pypdfium2", pdfium_text), ("pypdf", pypdf_text)):
            pages = 0
            started = time.perf_counter()
            texts = {}
            for path in pdfs:
                texts[path.name] = extract(path)
                pages += len(texts[path.name])
            seconds = time.perf_counter() - started
            print(f"{name}: {pages} pages in {seconds:.2f} s, {pages / seconds:.0f} pages/s")
            doc, page = TWO_COLUMN
            if doc in texts:
                print(f"--- {name}, {doc} p. {page}, first 400 characters ---")
                print(texts[doc][page - 1][:400])


if __name__ == "__main__":
    main(sys.argv[1:])
