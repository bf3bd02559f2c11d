"""PDF with a text layer → Markdown, page by page, in pdfium's reading order.

Each visual line of a page is one rendition line; a word hyphenated at the
line end (pdfium marks that hyphen as U+FFFE) is joined with the next line.
Every page starts with a ``## Page N`` line that a reader, the built-in
index (as a section) and a model citing "p. N" all see. Each rendition line
keeps the indexes of the page's characters it was made from, so a citation
can be drawn on the page from pdfium's character boxes.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pypdfium2 as pdfium

from .model import DocumentError, Rendition, plain

SOFT_HYPHENS = ("\ufffe", "\x02")  # pdfium's marks for a hyphen that breaks a word at a line end
_PASSWORD_ERROR = 4  # FPDF_ERR_PASSWORD
_LINE = re.compile(r"([^\r\n]*)(\r\n|\r|\n|$)")
_CONTROL_ASCII = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


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
    path: Path, name: str, *, max_pages: int, progress: Callable[[int, int, str], None] | None = None
) -> Rendition:
    """The PDF at ``path`` as a Rendition; a page that fails is named in its notes."""
    document = open_pdf(path, name)
    try:
        count = len(document)
        if count > max_pages:
            raise DocumentError(f"{name} has {count:,} pages; the limit is {max_pages:,} pages per PDF.")
        rendition = Rendition(kind="pdf", pages=count)
        rendition.add(f"# {name}")
        failed: list[int] = []
        empty: list[int] = []
        for number in range(1, count + 1):
            rendition.blank()
            rendition.add(page_heading(number), {"page": number})
            rendition.add("")
            try:
                page = document[number - 1]
                try:
                    textpage = page.get_textpage()
                    lines = page_lines(page_text(textpage))
                finally:
                    page.close()
            except pdfium.PdfiumError:
                failed.append(number)
                rendition.add("(This page could not be read.)", {"page": number})
                continue
            if not any(line.strip() for line, _ in lines):
                empty.append(number)
                rendition.add("(No text on this page: it may be a scanned image.)", {"page": number})
                continue
            for line, line_runs in lines:
                rendition.add(line, {"page": number, "runs": line_runs} if line_runs else {"page": number})
            if progress is not None:
                progress(number, count, f"Read page {number} of {count} of {name}")
        if failed:
            rendition.notes.append(
                f"{name}: page{'s' if len(failed) > 1 else ''} {_numbers(failed)} could not be read."
            )
        if empty:
            rendition.notes.append(
                f"{name}: page{'s' if len(empty) > 1 else ''} {_numbers(empty)} "
                f"{'have' if len(empty) > 1 else 'has'} no text layer (scanned pages are not read yet)."
            )
        if len(empty) + len(failed) == count:
            raise DocumentError(f"{name} has no text layer on any page (scanned PDFs are not read yet).")
        return rendition
    finally:
        document.close()


def _numbers(pages: list[int]) -> str:
    shown = ", ".join(str(p) for p in pages[:10])
    return shown + (f" and {len(pages) - 10} more" if len(pages) > 10 else "")
