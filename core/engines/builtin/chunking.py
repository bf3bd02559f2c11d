"""Turn a file's bytes into searchable chunks with exact line ranges.

Lines are counted the way ``grep -n``, editors and Claude's Read tool count
them: split on ``\\n`` only, 1-based. A chunk's ``text`` is the exact slice of
the decoded file (``\\r`` kept), so an excerpt taken from it is a verbatim
substring of the cited lines.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from itertools import accumulate

BINARY_SNIFF_BYTES = 8192
MIN_CHUNK_LINES = 20
MAX_CHUNK_LINES = 40
# A chunk of a few huge lines (minified JSON, logs) would make one FTS row
# dominate BM25 length normalisation; close the chunk early once it is big.
MAX_CHUNK_CHARS = 8000

# Source files, by suffix, and their code language: in them a "# …" line is a
# comment, not a Markdown heading.
LANGUAGES = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".ts": "typescript",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".rb": "ruby",
    ".c": "c",
    ".h": "c",
    ".cpp": "cpp",
    ".sh": "bash",
    ".sql": "sql",
}
_HEADING = re.compile(r" {0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r" {0,3}(```|~~~)")


@dataclass(frozen=True, slots=True)
class Chunk:
    line_start: int
    line_end: int
    heading: str | None
    text: str


def looks_binary(head: bytes) -> bool:
    """A NUL byte in the first 8 KB is what git and grep call binary."""
    return b"\x00" in head[:BINARY_SNIFF_BYTES]


def decode_text(data: bytes) -> str:
    """UTF-8 (a BOM is dropped) with a latin-1 fallback, which never fails:
    old notes and exported CSVs are often cp1252/latin-1."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


SECTION_SEPARATOR = " › "


def section_of(line: str, title: str | None) -> tuple[str | None, str | None]:
    """The section heading a "#" line starts, and the document's title after it.
    A section under a title is named with it ("Incident review: login outage ›
    Root cause"): what the document is about is also what its sections are
    about, so the title's words count for a passage under a subheading."""
    match = _HEADING.match(line.rstrip("\r"))
    if not match:
        return None, title
    heading = match.group(2).strip()
    if len(match.group(1)) == 1:
        return heading, heading
    return (f"{title}{SECTION_SEPARATOR}{heading}" if title else heading), title


def is_source(path: str) -> bool:
    """Whether ``path`` is a source file (its "#" lines are comments)."""
    dot = path.rfind(".")
    return dot > path.rfind("/") and path[dot:].lower() in LANGUAGES


def chunk_lines(text: str, *, headings: bool = True) -> list[Chunk]:
    """Split ``text`` into chunks of about 20–40 lines.

    A Markdown heading (outside code fences; never in a source file, where
    ``headings`` is False and "# …" is a comment) starts a new chunk once the
    current one has content, so a chunk rarely straddles two sections; past
    20 lines a blank line ends the chunk (a paragraph boundary); 40 lines or
    ~8,000 characters always end it. Each chunk remembers the heading it sits
    under.

    The lines are not visited one by one in Python: the few lines that can
    change state (fences, headings) are found with ``str.find`` over the whole
    text, and each chunk's end is computed from them, the line offsets
    (``bisect``) and at most 20 lines looked at for a blank one, which keeps
    indexing fast on large sandboxes.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final newline does not start another line
    n = len(lines)
    # starts[i]: offset of line i in ``text`` (summed in C, not per line in Python)
    starts = list(accumulate(map((1).__add__, map(len, lines)), initial=0))
    specials: list[tuple[int, str | None]] = []  # (line, heading); heading None: a fence
    for i in _special_lines(text, starts, headings):
        if i >= n:
            continue
        if lines[i][:1] == "#":
            if _HEADING.match(lines[i].rstrip("\r")):
                specials.append((i, lines[i]))
        else:
            specials.append((i, None))
    specials.append((n, None))  # the end
    chunks: list[Chunk] = []
    heading: str | None = None
    chunk_heading: str | None = None
    start = 0  # index of the first line of the open chunk
    in_fence = False

    def close(end: int) -> None:
        # end is exclusive; drop chunks that hold only blank lines
        body = "\n".join(lines[start:end])
        if body and not body.isspace():
            chunks.append(Chunk(start + 1, end, chunk_heading, body))

    def next_end(at: int) -> tuple[int, bool]:
        """The first line from ``at`` that ends the open chunk, and whether it
        is a blank line (which then belongs to no chunk)."""
        by_size = max(
            at, min(start + MAX_CHUNK_LINES, bisect_left(starts, starts[start] + MAX_CHUNK_CHARS, start + 1))
        )
        if not in_fence:
            # at most MAX_CHUNK_LINES - MIN_CHUNK_LINES lines are looked at
            for i in range(max(at, start + MIN_CHUNK_LINES), min(by_size + 1, n)):
                if not lines[i].strip():
                    return i, True
        return by_size, False

    at = 0  # the next line not yet looked at
    document: str | None = None  # the text's "# " title
    for line, title in specials:
        if title is not None:
            if in_fence:
                continue  # a "#" line inside a fence is an ordinary line
            title, document = section_of(title, document)
        while True:
            end, blank = next_end(at)
            if end >= line:
                break
            close(end)
            start = end + 1 if blank else end
            chunk_heading = heading
            at = end + 1
        if line == n:
            break
        if title is not None:
            if line > start:
                close(line)
                start = line
            heading = chunk_heading = title
        else:
            in_fence = not in_fence
            if line - start >= MAX_CHUNK_LINES or starts[line] - starts[start] >= MAX_CHUNK_CHARS:
                close(line)
                start = line
                chunk_heading = heading
        at = line + 1
    if start < n:
        close(n)
    return chunks


def _special_lines(text: str, starts: list[int], headings: bool = True) -> list[int]:
    """The lines that may be a heading (they start with "#") or a fence (up
    to three spaces, then ``````` or ``~~~``), sorted: found with ``str.find``."""
    offsets = {0} if headings and text.startswith("#") else set()
    at = text.find("\n#") if headings else -1
    while at >= 0:
        offsets.add(at + 1)
        at = text.find("\n#", at + 1)
    for marker in ("```", "~~~"):
        at = text.find(marker)
        while at >= 0:
            line_start = text.rfind("\n", 0, at) + 1
            if at - line_start <= 3 and text.startswith(" " * (at - line_start), line_start):
                offsets.add(line_start)
            at = text.find(marker, at + 3)
    return [bisect_right(starts, offset) - 1 for offset in sorted(offsets)]
