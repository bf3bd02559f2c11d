"""Sandbox file viewer: a highlighted window of lines around a cited range.

Pure Python (no Django imports). Every path goes through the sandbox
resolver; anything outside the sandbox, in its private folder, missing or not
a regular file is the same generic "not found", so a probe learns nothing.
File content is untrusted: Pygments escapes it and each line's HTML is a
balanced fragment, so the template can place lines in any markup.

Large files are never loaded whole: lines are streamed up to the end of the
window, then the rest is only counted (newlines in 1 MB chunks) so the page
can say "line 45 of 100,000".
"""

from __future__ import annotations

import codecs
import os
import stat
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import BinaryIO

from pygments import highlight as pygments_highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_for_filename
from pygments.lexers.special import TextLexer
from pygments.util import ClassNotFound

from core.sandbox import SandboxError, is_private, resolve_in_sandbox

BINARY_SNIFF_BYTES = 8192
DEFAULT_CONTEXT = 200
DEFAULT_MAX_BYTES = 256 * 1024 * 1024  # how far into a file the viewer will read
MAX_WINDOW_LINES = 2000  # a huge cited range is shown from its start, not whole
MAX_LINE_BYTES = 10_000  # minified one-line files: show the start of the line
_CHUNK = 1 << 20

NOT_FOUND = "This file is not in the session's sandbox."
BINARY = "This file looks binary (it contains NUL bytes), so it cannot be shown as text."
TOO_DEEP = "The requested lines lie beyond the part of this very large file the viewer reads."
TOO_LARGE = "This file is too large to download from the viewer."


class ViewerError(Exception):
    """A refusal with a sentence for the reader; ``reason`` is one of
    ``not_found``, ``binary``, ``too_large`` (views map them to 404/415/413)."""

    def __init__(self, message: str, *, reason: str = "not_found") -> None:
        super().__init__(message)
        self.reason = reason


# Pygments' names for prose: shown wrapped.
PROSE_LANGUAGES = frozenset({"Text only", "Markdown", "reStructuredText", "Groff"})


@dataclass(frozen=True, slots=True)
class RenderedLine:
    number: int
    html: str  # escaped, highlighted, balanced: safe to mark as safe
    highlighted: bool = False
    truncated: bool = False


@dataclass(frozen=True, slots=True)
class FileWindow:
    path: str
    filename: str
    lines: list[RenderedLine]
    first: int
    last: int
    total_lines: int | None  # None when the file was too large to count
    has_before: bool
    has_after: bool
    language: str
    highlight_start: int | None
    highlight_end: int | None
    encoding: str
    context: int = DEFAULT_CONTEXT

    @property
    def wraps(self) -> bool:
        """Prose is shown wrapped (on a phone every long line would scroll
        sideways); code keeps its lines as written."""
        return self.language in PROSE_LANGUAGES

    @property
    def before_start(self) -> int:
        """First line of the page before this window ("show earlier lines")."""
        return max(1, self.first - (2 * self.context + 1))

    @property
    def after_end(self) -> int:
        """Last line of the page after this window ("show more lines")."""
        end = self.last + 2 * self.context + 1
        return min(end, self.total_lines) if self.total_lines else end


def _open_in_sandbox(root: str | os.PathLike[str], rel_path: str) -> tuple[BinaryIO, int]:
    """Open a regular file inside the sandbox; return it and its size."""
    try:
        path = resolve_in_sandbox(root, rel_path)
        relative = path.relative_to(os.path.realpath(root)).as_posix()
    except (SandboxError, ValueError):
        raise ViewerError(NOT_FOUND) from None
    if is_private(relative):  # the resolved path: a symlink cannot dodge it
        raise ViewerError(NOT_FOUND)
    try:
        # O_NOFOLLOW: the path was resolved already, so a symlink here means
        # it was swapped in since; O_NONBLOCK: never hang on a FIFO.
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        raise ViewerError(NOT_FOUND) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or not _fd_inside(fd, root):
        os.close(fd)
        raise ViewerError(NOT_FOUND)
    return os.fdopen(fd, "rb"), info.st_size


def _fd_inside(fd: int, root: str | os.PathLike[str]) -> bool:
    # Where the open file really is (a directory above it could have been
    # swapped between resolving and opening). Linux only; elsewhere trust
    # the resolver.
    link = f"/proc/self/fd/{fd}"
    if not os.path.exists(link):
        return True
    real_root = os.path.realpath(root)
    return os.path.commonpath([real_root, os.path.realpath(link)]) == real_root


def _sniff(fh: BinaryIO) -> bool:
    """Refuse binary files; return whether the file starts with a UTF-8 BOM."""
    head = fh.read(BINARY_SNIFF_BYTES)
    fh.seek(0)
    if b"\x00" in head:
        raise ViewerError(BINARY, reason="binary")
    return head.startswith(codecs.BOM_UTF8)


def _decode(raw: bytes, truncated: bool) -> tuple[str, bool]:
    """UTF-8 with a latin-1 fallback per line (newlines never split a UTF-8
    sequence, so lines decode independently); returns (text, used latin-1)."""
    try:
        return raw.decode("utf-8"), False
    except UnicodeDecodeError as error:
        if truncated and error.start >= len(raw) - 3:  # cut mid-character
            return raw[: error.start].decode("utf-8", "replace"), False
        return raw.decode("latin-1"), True


def _lexer(filename: str) -> Lexer:
    options = {"stripnl": False, "ensurenl": True}  # keep line numbering exact
    try:
        return get_lexer_for_filename(filename, **options)
    except ClassNotFound:
        return TextLexer(**options)


def _highlight_lines(texts: list[str], filename: str) -> tuple[list[str], str]:
    """Highlight the window as one block (multi-line strings and comments
    keep their colour) and split it back into one balanced fragment per line:
    HtmlFormatter closes and reopens its spans at every newline."""
    lexer = _lexer(filename)
    if not texts:
        return [], lexer.name
    out = pygments_highlight("\n".join(texts) + "\n", lexer, HtmlFormatter(nowrap=True))
    lines = out.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) != len(texts):  # never misnumber: fall back to plain text
        plain = TextLexer(stripnl=False, ensurenl=True)
        return [
            pygments_highlight(t + "\n", plain, HtmlFormatter(nowrap=True)).rstrip("\n") for t in texts
        ], "Text"
    return lines, lexer.name


def _read_line(fh: BinaryIO) -> tuple[bytes, bool, int] | None:
    """One line without its newline (at most MAX_LINE_BYTES of it), whether
    it was cut, and how many bytes it took in the file."""
    raw = fh.readline(MAX_LINE_BYTES + 1)
    if not raw:
        return None
    size = len(raw)
    truncated = not raw.endswith(b"\n") and size > MAX_LINE_BYTES
    while truncated:  # skip the rest of an overlong line without keeping it
        rest = fh.readline(_CHUNK)
        size += len(rest)
        if not rest or rest.endswith(b"\n"):
            break
    return raw[:MAX_LINE_BYTES].rstrip(b"\n").rstrip(b"\r"), truncated, size


def _skip_lines(fh: BinaryIO, count: int, budget: int) -> tuple[int, int]:
    """Skip ``count`` lines by counting newlines in chunks (no per-line
    Python work); return (lines skipped, bytes consumed)."""
    skipped = consumed = 0
    last_byte = b"\n"
    while skipped < count:
        chunk = fh.read(_CHUNK)
        if not chunk:
            skipped += last_byte != b"\n"  # a last line without its newline
            break
        newlines = chunk.count(b"\n")
        if skipped + newlines >= count:
            pos = -1
            for _ in range(count - skipped):
                pos = chunk.index(b"\n", pos + 1)
            fh.seek(pos + 1 - len(chunk), os.SEEK_CUR)
            consumed += pos + 1
            if consumed > budget:
                raise ViewerError(TOO_DEEP, reason="too_large")
            return count, consumed
        skipped, consumed, last_byte = skipped + newlines, consumed + len(chunk), chunk[-1:]
        if consumed > budget:
            raise ViewerError(TOO_DEEP, reason="too_large")
    return skipped, consumed


def _count_rest(fh: BinaryIO, budget: int) -> tuple[int | None, bool]:
    """Count the lines after the current position: (count or None if the
    budget ran out, whether anything follows)."""
    count, last_byte, any_data = 0, b"\n", False
    while chunk := fh.read(min(_CHUNK, max(budget, 0) + 1)):
        any_data = True
        count += chunk.count(b"\n")
        last_byte = chunk[-1:]
        budget -= len(chunk)
        if budget < 0:
            return None, True
    return count + (last_byte != b"\n"), any_data


def open_window(
    root: str | os.PathLike[str],
    rel_path: str,
    *,
    line_start: int | None = None,
    line_end: int | None = None,
    context: int = DEFAULT_CONTEXT,
    max_bytes: int = DEFAULT_MAX_BYTES,
    first_line: int | None = None,
    highlight: bool = True,
) -> FileWindow:
    """Open ``rel_path`` (relative to the sandbox ``root``) and return the
    highlighted lines around ``line_start``–``line_end``.

    ``first_line`` pages through a file ("more" links) instead of centring
    on the range; ``highlight=False`` centres without highlighting
    (only verified ranges are highlighted)."""
    context = max(0, context)
    start = end = None
    if line_start is not None:
        start, end = sorted((max(1, line_start), max(1, line_end if line_end is not None else line_start)))
    if first_line is None and start is not None and end is not None:
        first, last = max(1, start - context), end + context
    else:
        first = max(1, first_line or 1)
        last = first + 2 * context
    last = min(last, first + MAX_WINDOW_LINES - 1)
    fh, _size = _open_in_sandbox(root, rel_path)
    with fh:
        has_bom = _sniff(fh)
        number, consumed = _skip_lines(fh, first - 1, max_bytes)
        raws = []
        while number < last and (item := _read_line(fh)) is not None:
            number += 1
            consumed += item[2]
            raws.append((number, item[0], item[1]))
        rest, has_after = _count_rest(fh, max_bytes - consumed)
    total = None if rest is None else number + rest
    past_end = start is not None and number < start and first_line is None
    if number and (past_end or not raws):  # the range lies past the end: show the end
        return open_window(
            root, rel_path, context=context, max_bytes=max_bytes, first_line=max(1, number - 2 * context)
        )
    texts, latin1 = [], False
    for index, (_n, raw, truncated) in enumerate(raws):
        if index == 0 and raws[0][0] == 1 and has_bom:
            raw = raw[len(codecs.BOM_UTF8) :]
        text, fallback = _decode(raw, truncated)
        latin1 |= fallback
        # Pygments turns a lone CR into a line break; that would shift numbers.
        texts.append(text.replace("\r", ""))
    html_lines, language = _highlight_lines(texts, PurePosixPath(rel_path).name)
    if not highlight or start is None:
        start = end = None
    low, high = (start, end) if start is not None and end is not None else (0, -1)
    lines = [
        RenderedLine(n, markup, low <= n <= high, truncated)
        for (n, _raw, truncated), markup in zip(raws, html_lines, strict=True)
    ]
    return FileWindow(
        path=rel_path,
        filename=PurePosixPath(rel_path).name,
        lines=lines,
        first=lines[0].number if lines else first,
        last=lines[-1].number if lines else first - 1,
        total_lines=total,
        has_before=bool(lines) and lines[0].number > 1,
        has_after=has_after,
        language=language,
        highlight_start=start,
        highlight_end=end,
        encoding="latin-1" if latin1 else ("utf-8-sig" if has_bom else "utf-8"),
        context=context,
    )


def raw_text(
    root: str | os.PathLike[str], rel_path: str, *, max_bytes: int = DEFAULT_MAX_BYTES
) -> tuple[bytes, str]:
    """The file's bytes and name for a text/plain download (binary refused)."""
    fh, size = _open_in_sandbox(root, rel_path)
    with fh:
        _sniff(fh)
        if size > max_bytes:
            raise ViewerError(TOO_LARGE, reason="too_large")
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:  # grew since fstat
        raise ViewerError(TOO_LARGE, reason="too_large")
    return data, PurePosixPath(rel_path).name
