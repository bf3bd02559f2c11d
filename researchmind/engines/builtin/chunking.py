"""Turn a file's bytes into searchable chunks with exact line ranges.

Lines are counted the way ``grep -n``, editors and Claude's Read tool count
them: split on ``\\n`` only, 1-based. A chunk's ``text`` is the exact slice of
the decoded file (``\\r`` kept), so an excerpt taken from it is a verbatim
substring of the cited lines.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import accumulate

BINARY_SNIFF_BYTES = 8192
MIN_CHUNK_LINES = 20
MAX_CHUNK_LINES = 40
# A chunk of a few huge lines (minified JSON, logs) would make one FTS row
# dominate BM25 length normalisation; close the chunk early once it is big.
MAX_CHUNK_CHARS = 8000

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


def _heading_of(line: str) -> str | None:
    match = _HEADING.match(line.rstrip("\r"))
    return match.group(2).strip() if match else None


def chunk_lines(text: str) -> list[Chunk]:
    """Split ``text`` into chunks of about 20–40 lines.

    A Markdown heading (outside code fences) starts a new chunk once the
    current one has content, so a chunk rarely straddles two sections; past
    20 lines a blank line ends the chunk (a paragraph boundary); 40 lines or
    ~8,000 characters always end it. Each chunk remembers the heading it sits
    under.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final newline does not start another line
    # lengths[i]: characters before line i, newlines aside (summed in C, not per line in Python)
    lengths = list(accumulate(map(len, lines), initial=0))
    chunks: list[Chunk] = []
    heading: str | None = None
    chunk_heading: str | None = None
    start = 0  # index of the first line of the open chunk
    in_fence = False

    def close(end: int) -> None:
        # end is exclusive; drop chunks that hold only blank lines
        body = "\n".join(lines[start:end])
        if body.strip():
            chunks.append(Chunk(start + 1, end, chunk_heading, body))

    for i, line in enumerate(lines):
        first = line[:1]
        if first and first in "`~ #":  # the rare lines that can be fences or headings
            if first == "#":
                new_heading = None if in_fence else _heading_of(line)
                if new_heading is not None:
                    if i > start:
                        close(i)
                        start = i
                    heading = chunk_heading = new_heading
                    continue
            elif _FENCE.match(line):
                in_fence = not in_fence
        size = i - start
        if size >= MIN_CHUNK_LINES and not in_fence and not line.strip():
            # a paragraph boundary: the blank line itself belongs to no chunk
            close(i)
            start = i + 1
            chunk_heading = heading
        elif size >= MAX_CHUNK_LINES or lengths[i] - lengths[start] + size >= MAX_CHUNK_CHARS:
            close(i)
            start = i
            chunk_heading = heading
    if start < len(lines):
        close(len(lines))
    return chunks
