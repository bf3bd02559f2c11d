"""PDF with a text layer → Markdown, page by page, in pdfium's reading order.

Each visual line of a page is one rendition line; a word hyphenated at the
line end (pdfium marks that hyphen as U+FFFE) is joined with the next line.
Every page starts with a ``## Page N`` line that a reader, the built-in
index (as a section) and a model citing "p. N" all see. Running headers and
footers (a page's first or last line, page numbers aside, repeated on many
pages) stay on their page but as paragraphs of their own, so they never run
into the sentence that follows them. Each rendition line
keeps the indexes of the page's characters it was made from, so a citation
can be drawn on the page from pdfium's character boxes.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pypdfium2 as pdfium

from .model import DocumentError, Rendition, plain
from .ocr import OCR_MARK, OcrError, OcrLimits, has_image, needs_ocr, ocr_page

SOFT_HYPHENS = ("\ufffe", "\x02")  # pdfium's marks for a hyphen that breaks a word at a line end
_PASSWORD_ERROR = 4  # FPDF_ERR_PASSWORD
_LINE = re.compile(r"([^\r\n]*)(\r\n|\r|\n|$)")
_CONTROL_ASCII = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_DIGITS = re.compile(r"\d+")
RUNNING_MIN_PAGES = 3  # a first or last line seen on at least this many pages …
RUNNING_SHARE = 0.3  # … and on at least this share of the pages with text is a running head


def page_heading(number: int) -> str:
    return f"## Page {number}"


def open_pdf(path: Path, name: str) -> pdfium.PdfDocument:
    """Open a PDF, refusing encrypted and damaged ones with a message that says which."""
    try:
        return pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        if getattr(exc, "err_code", None) == _PASSWORD_ERROR:
            raise DocumentError(
                f"{name} is encrypted (password-protected); remove the password and add it again."
            ) from exc
        raise DocumentError(f"{name} is damaged or not a PDF: {exc}") from exc


def page_lines(text: str) -> list[tuple[str, list[list[int]]]]:
    """Split a page's text (one character per pdfium character index) into
    rendition lines, each with its runs (``[column, char, length]``: columns
    ``column …`` of the line are the page's characters ``char …``)."""
    lines: list[tuple[str, list[list[int]]]] = []
    pending: tuple[str, list[list[int]]] | None = None  # a line that ended in a soft hyphen
    for match in _LINE.finditer(text):
        start = match.start(1)
        raw = match.group(1)
        if raw.isascii() and "\x02" not in raw and not _CONTROL_ASCII.search(raw):
            line, line_runs = raw, [[0, start, len(raw)]] if raw else []
        else:
            line, line_runs = _mapped(raw, start)
        if pending is not None:
            head, head_runs = pending
            line_runs = head_runs + [[column + len(head), char, n] for column, char, n in line_runs]
            line, pending = head + line, None
        if match.group(2) and line.endswith(SOFT_HYPHENS):
            pending = (line[:-1], _cut(line_runs, len(line) - 1))
            continue
        stripped = line.rstrip()
        lines.append((stripped, _cut(line_runs, len(stripped))))
        if not match.group(2):
            break
    if pending is not None:
        lines.append(pending)
    return lines


def _mapped(raw: str, start: int) -> tuple[str, list[list[int]]]:
    """A line with non-ASCII characters: each made plain, soft hyphens inside it dropped."""
    indexes: list[int] = []
    parts: list[str] = []
    last = len(raw) - 1
    for offset, char in enumerate(raw):
        if char in SOFT_HYPHENS and offset != last:
            continue  # pdfium already joined the word; its hyphen mark goes
        text = char if char in SOFT_HYPHENS else plain(char)
        parts.append(text)
        indexes.extend([start + offset] * len(text))
    return "".join(parts), runs(indexes)


def _cut(line_runs: list[list[int]], length: int) -> list[list[int]]:
    """The runs of the first ``length`` columns."""
    kept = []
    for column, char, n in line_runs:
        if column >= length:
            break
        kept.append([column, char, min(n, length - column)])
    return kept


def runs(indexes: list[int]) -> list[list[int]]:
    """``[column, char, length]`` stretches where columns and characters both count up by one."""
    found: list[list[int]] = []
    for column, char in enumerate(indexes):
        if found:
            last = found[-1]
            if last[1] + last[2] == char and last[0] + last[2] == column:
                last[2] += 1
                continue
        found.append([column, char, 1])
    return found


def expand(line_runs: list[list[int]]) -> list[int]:
    """The inverse of ``runs``: the page's character index of each column."""
    return [char + step for _column, char, length in line_runs for step in range(length)]


def page_text(textpage: pdfium.PdfTextPage) -> str:
    """The page's text with exactly one character per pdfium character index."""
    count = textpage.count_chars()
    text = textpage.get_text_range() if count else ""
    if len(text) != count:  # characters beyond the BMP: ask one by one
        text = "".join(chr(pdfium.raw.FPDFText_GetUnicode(textpage, i) or 0xFFFD) for i in range(count))
    return text


def convert_pdf(
    path: Path,
    name: str,
    *,
    max_pages: int,
    progress: Callable[[int, int, str], None] | None = None,
    ocr: OcrLimits | None = None,
) -> Rendition:
    """The PDF at ``path`` as a Rendition; a page that fails is named in its
    notes. A scanned page (``needs_ocr``) is OCR'd within ``ocr``'s limits."""
    ocr = ocr or OcrLimits()
    document = open_pdf(path, name)
    try:
        count = len(document)
        if count > max_pages:
            raise DocumentError(f"{name} has {count:,} pages; the limit is {max_pages:,} pages per PDF.")
        rendition = Rendition(kind="pdf", pages=count, spool=True)
        rendition.add(f"# {name}")
        failed: list[int] = []
        empty: list[int] = []
        scans = _Scans(ocr)
        for number in range(1, count + 1):
            rendition.blank()
            rendition.add(page_heading(number), {"page": number})
            rendition.add("")
            try:
                page = document[number - 1]
                try:
                    textpage = page.get_textpage()
                    text = page_text(textpage)
                    if needs_ocr(text) and has_image(page):
                        if progress is not None:
                            progress(number - 1, count, f"OCR page {number} of {count} of {name}")
                        if scans.read(page, number, rendition):
                            continue
                    lines = page_lines(text)
                finally:
                    page.close()
            except pdfium.PdfiumError:
                failed.append(number)
                rendition.add("(This page could not be read.)", {"page": number})
                continue
            if not any(line.strip() for line, _ in lines):
                empty.append(number)
                said = (
                    "its OCR did not run, the item's note says why"
                    if number in scans.unread
                    else "it is blank"
                )
                rendition.add(f"(No text on this page: {said}.)", {"page": number})
                continue
            for line, line_runs in lines:
                rendition.add(line, {"page": number, "runs": line_runs} if line_runs else {"page": number})
            if progress is not None:
                progress(number, count, f"Read page {number} of {count} of {name}")
        if failed:
            rendition.notes.append(
                f"{name}: page{'s' if len(failed) > 1 else ''} {_numbers(failed)} could not be read."
            )
        rendition.notes.extend(scans.notes(name))
        shown = [number for number in empty if number not in scans.unread]
        if shown:
            rendition.notes.append(
                f"{name}: page{'s' if len(shown) > 1 else ''} {_numbers(shown)} "
                f"{'have' if len(shown) > 1 else 'has'} no text."
            )
        if len(failed) + len(empty) + len(scans.blank) == count:
            raise DocumentError(f"{name} has no readable text on any page. " + " ".join(rendition.notes))
        set_apart_running_lines(rendition)
        return rendition
    finally:
        document.close()


def set_apart_running_lines(rendition: Rendition) -> None:
    """Put a blank line after each running header and before each running
    footer: a page's first or last text line whose words (numbers aside)
    open or close many pages. Nothing is dropped; the lines keep their origins."""
    edges: dict[int, list] = {}  # page → [first index, its key, last index, its key]
    for index, (line, origin) in enumerate(rendition.added()):
        if origin is None or "page" not in origin or not line.strip():
            continue
        if line.startswith("## Page ") or line == OCR_MARK or line.startswith("("):
            continue
        key = _DIGITS.sub("#", line.strip())
        found = edges.setdefault(origin["page"], [index, key, index, key])
        found[2:] = index, key
    paged = [edge for edge in edges.values() if edge[0] != edge[2]]
    if len(paged) < RUNNING_MIN_PAGES:
        return
    needed = max(RUNNING_MIN_PAGES, RUNNING_SHARE * len(edges))
    heads = Counter(edge[1] for edge in paged)
    feet = Counter(edge[3] for edge in paged)
    for first, head, last, foot in paged:
        if heads[head] >= needed:
            rendition.break_before(first + 1)
        if feet[foot] >= needed:
            rendition.break_before(last)


class _Scans:
    """The scanned pages of one document: OCR'd while the limits allow,
    the others remembered by the reason, for the item's note."""

    def __init__(self, limits: OcrLimits) -> None:
        self.limits = limits
        self.read_pages: list[int] = []
        self.blank: list[int] = []  # OCR'd, no words found
        self.failed: dict[str, list[int]] = {}  # reason → pages
        self.spent = 0.0

    @property
    def unread(self) -> list[int]:
        return [number for pages in self.failed.values() for number in pages]

    def read(self, page: pdfium.PdfPage, number: int, rendition: Rendition) -> bool:
        """OCR ``page`` into ``rendition``; ``False`` (nothing added) when it
        was not OCR'd, so its text layer, if any, is used as it is."""
        limits = self.limits
        if len(self.read_pages) >= limits.max_pages:
            reason = f"were not OCR'd: the limit is {limits.max_pages} OCR pages per document"
        elif self.spent >= limits.timeout:
            reason = f"were not OCR'd: the document's OCR time limit ({limits.timeout:g} s) was reached"
        else:
            started = time.monotonic()
            timeout = min(limits.page_timeout, max(limits.timeout - self.spent, 0.001))
            try:
                lines = ocr_page(page, timeout=timeout, command=limits.command)
                reason = ""
            except OcrError as exc:
                lines, reason = [], f"could not be OCR'd ({exc})"
            self.spent += time.monotonic() - started
            if not reason:
                if lines:
                    self.read_pages.append(number)
                rendition.add(OCR_MARK, {"page": number, "ocr": True})
                paragraph = None
                for line in lines:
                    if paragraph is not None and line.paragraph != paragraph:
                        rendition.add("")
                    paragraph = line.paragraph
                    rendition.add(line.text, {"page": number, "ocr": True, "words": line.origin_words()})
                if not lines:
                    self.blank.append(number)
                    rendition.add("(OCR found no words on this page.)", {"page": number, "ocr": True})
                return True
        self.failed.setdefault(reason, []).append(number)
        return False

    def notes(self, name: str) -> list[str]:
        found = []
        if self.read_pages:
            pages = self.read_pages
            found.append(
                f"{name}: page{'s' if len(pages) > 1 else ''} {_numbers(pages)} "
                f"{'were' if len(pages) > 1 else 'was'} read by OCR "
                f"(check the page image when citing {'them' if len(pages) > 1 else 'it'})."
            )
        if self.blank:
            pages = self.blank
            found.append(
                f"{name}: OCR found no words on page{'s' if len(pages) > 1 else ''} {_numbers(pages)}."
            )
        for reason, pages in self.failed.items():
            said = reason if len(pages) > 1 else reason.replace("were not", "was not")
            found.append(f"{name}: page{'s' if len(pages) > 1 else ''} {_numbers(pages)} {said}.")
        return found


def _numbers(pages: list[int]) -> str:
    shown = ", ".join(str(p) for p in pages[:10])
    return shown + (f" and {len(pages) - 10} more" if len(pages) > 10 else "")
