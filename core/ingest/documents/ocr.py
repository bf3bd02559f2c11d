"""OCR of scanned PDF pages with Debian's tesseract-ocr, word boxes kept.

A page is scanned when its text layer is (almost) empty or mostly glyphs
that map to no readable character (``needs_ocr``). Such a page is rendered
by pdfium at ``OCR_DPI``, read by the ``tesseract`` CLI (TSV output: one
row per word with its pixel box), and each word's box is turned into PDF
user-space points ``[left, bottom, right, top]`` through pdfium's own
device-to-page transform, the space pdfium's character boxes are in. A
rendition line of OCR text keeps its words' columns and boxes, so a
citation of it is drawn over the words it quotes.

docs/DOCUMENTS.md records why tesseract (measured against rapidocr with
``bench.quality.ocr_engines``).

Pure Python: no Django imports.
"""

from __future__ import annotations

import csv
import ctypes
import io
import os
import subprocess
import tempfile
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from .model import plain

OCR_DPI = 300
# A page bigger than this at OCR_DPI (a poster, a plan) is read at a lower
# resolution that fits, down to MIN_OCR_DPI; a bigger page is not OCR'd.
MAX_OCR_PIXELS = 40_000_000
MIN_OCR_DPI = 100
TESSERACT = "tesseract"
OCR_LANGUAGE = "eng"
# A page with fewer visible characters than this in its text layer is taken as scanned.
MIN_TEXT_CHARS = 20
# … and so is one where less than this share of them is a readable character
# (letters, digits, punctuation, symbols; not U+FFFD, private-use or control
# codes, which is what glyphs without a Unicode mapping come out as).
MIN_READABLE_SHARE = 0.5
# … and so is one where a single letter makes up more than this share of them:
# a layer whose glyphs all came out as one code ("ÿÿÿÿ"; in English prose the
# commonest letter, "e", is about an eighth).
MAX_ONE_LETTER_SHARE = 0.3
_READABLE = frozenset("LNPS")
OCR_MARK = "_(OCR text: this page is a scanned image and its words were read by OCR; check the page image.)_"


class OcrError(Exception):
    """A page could not be OCR'd; the message says why, in a few words."""


@dataclass(frozen=True)
class OcrWord:
    text: str
    box: tuple[float, float, float, float]  # PDF points: left, bottom, right, top


@dataclass
class OcrLine:
    words: list[OcrWord] = field(default_factory=list)
    paragraph: tuple[int, int] = (0, 0)  # tesseract's block and paragraph

    @property
    def text(self) -> str:
        return " ".join(word.text for word in self.words)

    def origin_words(self) -> list[list[float]]:
        """``[column, length, left, bottom, right, top]`` of each word in ``text``."""
        found, column = [], 0
        for word in self.words:
            found.append([column, len(word.text), *word.box])
            column += len(word.text) + 1
        return found


def _readable(char: str) -> bool:
    return char != "\ufffd" and unicodedata.category(char)[0] in _READABLE


def needs_ocr(text: str) -> bool:
    """Whether a page whose text layer reads ``text`` is a scan to OCR."""
    visible = [char for char in text if not char.isspace() and char not in ("\ufffe", "\x02")]
    if len(visible) < MIN_TEXT_CHARS:
        return True
    readable = sum(1 for char in visible if _readable(char))
    if readable < MIN_READABLE_SHARE * len(visible):
        return True
    letters = Counter(char.casefold() for char in visible if char.isalpha())
    return bool(letters) and letters.most_common(1)[0][1] > MAX_ONE_LETTER_SHARE * len(visible)


def has_image(page: pdfium.PdfPage) -> bool:
    """Whether the page draws an image (a scan is one; a blank page has none)."""
    return any(True for _ in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE], max_depth=3))


def _to_points(page: pdfium.PdfPage, width: int, height: int):
    """A function from a pixel of the page rendered ``width``×``height`` to PDF points."""
    x, y = ctypes.c_double(), ctypes.c_double()

    def convert(px: int, py: int) -> tuple[float, float]:
        pdfium_c.FPDF_DeviceToPage(page.raw, 0, 0, width, height, 0, px, py, ctypes.byref(x), ctypes.byref(y))
        return x.value, y.value

    return convert


def parse_tsv(tsv: str, to_points) -> list[OcrLine]:
    """tesseract's TSV (``level … left top width height conf text``) as lines
    of words in its reading order, boxes converted by ``to_points``."""
    lines: dict[tuple[int, int, int, int], OcrLine] = {}
    for row in csv.DictReader(io.StringIO(tsv), delimiter="\t", quoting=csv.QUOTE_NONE):
        if row.get("level") != "5":
            continue
        text = plain((row.get("text") or "").strip())
        if not text or any(char.isspace() for char in text):
            text = "".join(text.split())
            if not text:
                continue
        left, top = int(row["left"]), int(row["top"])
        right, bottom = left + int(row["width"]), top + int(row["height"])
        x1, y1 = to_points(left, bottom)
        x2, y2 = to_points(right, top)
        box = (round(min(x1, x2), 2), round(min(y1, y2), 2), round(max(x1, x2), 2), round(max(y1, y2), 2))
        key = (int(row["page_num"]), int(row["block_num"]), int(row["par_num"]), int(row["line_num"]))
        line = lines.setdefault(key, OcrLine(paragraph=key[1:3]))
        line.words.append(OcrWord(text, box))
    return list(lines.values())


def ocr_dpi(page: pdfium.PdfPage, dpi: int = OCR_DPI) -> int:
    """The resolution ``page`` is read at: ``dpi``, or less for a page that
    would pass ``MAX_OCR_PIXELS``; ``OcrError`` below ``MIN_OCR_DPI``."""
    width, height = page.get_size()
    area = width * height / 72 / 72  # square inches
    if area * dpi * dpi <= MAX_OCR_PIXELS:
        return dpi
    fitted = int((MAX_OCR_PIXELS / area) ** 0.5)
    if fitted < MIN_OCR_DPI:
        raise OcrError(f"the page is too large to OCR ({width / 72:.0f} × {height / 72:.0f} inches)")
    return fitted


def ocr_page(
    page: pdfium.PdfPage, *, timeout: float, dpi: int = OCR_DPI, command: str = TESSERACT
) -> list[OcrLine]:
    """The words of ``page`` read by tesseract within ``timeout`` seconds
    (the process is killed when it takes longer)."""
    width_pt, height_pt = page.get_size()
    area = width_pt * height_pt / 72 / 72  # square inches
    if area * dpi * dpi > MAX_OCR_PIXELS:
        dpi = int((MAX_OCR_PIXELS / area) ** 0.5)
        if dpi < MIN_OCR_DPI:
            raise OcrError(
                f"the page is too large to OCR ({width_pt / 72:.0f} × {height_pt / 72:.0f} inches)"
            )
    bitmap = page.render(scale=dpi / 72, grayscale=True)
    try:
        image = bitmap.to_pil()
        width, height = bitmap.width, bitmap.height
        with tempfile.TemporaryDirectory(prefix="ocr-") as folder:
            png = Path(folder) / "page.png"
            image.save(png, format="PNG")
            # One thread: tesseract's OpenMP threads only contend on a shared
            # machine (4× slower measured on 2 busy cores; docs/DOCUMENTS.md).
            env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
            try:
                run = subprocess.run(
                    [command, str(png), "stdout", "-l", OCR_LANGUAGE, "--dpi", str(dpi), "--psm", "3", "tsv"],
                    capture_output=True,
                    text=True,
                    timeout=timeout,
                    env=env,
                    check=False,
                )
            except FileNotFoundError as exc:
                raise OcrError(f"the OCR program ({command}) is not installed") from exc
            except subprocess.TimeoutExpired as exc:
                raise OcrError(f"OCR took longer than {timeout:g} s") from exc
        if run.returncode != 0:
            detail = (run.stderr or "").strip().splitlines()
            raise OcrError(f"OCR failed ({detail[-1] if detail else f'exit status {run.returncode}'})")
        return parse_tsv(run.stdout, _to_points(page, width, height))
    finally:
        bitmap.close()


@dataclass(frozen=True)
class OcrLimits:
    """How much OCR one document may take (settings ``DOCUMENT_OCR_*``)."""

    page_timeout: float = 60.0  # seconds for one page
    max_pages: int = 50  # pages OCR'd per document; later scanned pages are named in the note
    timeout: float = 900.0  # seconds for all of a document's pages together
    command: str = TESSERACT
