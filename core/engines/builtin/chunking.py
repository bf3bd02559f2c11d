"""Turn a file's bytes into searchable chunks with exact line ranges.

Lines are counted the way ``grep -n``, editors and Claude's Read tool count
them: split on ``\\n`` only, 1-based. A chunk's ``text`` is the exact slice of
the decoded file (``\\r`` kept), so an excerpt taken from it is a verbatim
substring of the cited lines.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from typing import NamedTuple

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
# A manual page's section heading as ``man`` renders it: a line of capital
# letters at the margin (``EXIT CODES``), a subsection's three columns in (``   ACTIONS``).
_MANUAL_HEADING = re.compile(r"( {0,3})([A-Z][A-Z0-9 /&-]{2,}[A-Z0-9])[ \t]*\r?$", re.M)
_SPECIAL = re.compile(r"\n(?:#| {0,3}(?:```|~~~)| {0,3}[A-Z][A-Z0-9 /&-]{2,}[A-Z0-9][ \t]*(?=\r?\n))")
_SPECIAL_FENCE = re.compile(r"\n {0,3}(?:```|~~~)")


class Chunk(NamedTuple):
    """Lines ``line_start``–``line_end`` (1-based, inclusive) under ``heading``.
    A tuple: tens of thousands are made per indexing run, and a frozen
    dataclass costs over twice as much to build."""

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

    Neither the lines nor their offsets are listed in Python (on real text that
    alone cost a third of indexing's own work): the few lines that can change
    state (fences, headings) are found with ``str.find`` over the whole text,
    and each chunk's end with two or three anchored regular expressions that
    step over whole lines in C from the chunk's first line.
    """
    if not text:
        return []
    # Every line ends with "\n" in ``t`` (a chunk's text never takes that last one).
    t = text if text.endswith("\n") else f"{text}\n"
    n = t.count("\n")
    chunks: list[Chunk] = []
    heading = chunk_heading = document = None
    start = at = 0  # the open chunk's first line; the first line not yet looked at
    so = ao = 0  # their offsets
    in_fence = False
    manual = None  # the manual page's section a subsection heading is in
    for line, off in _special_lines(t, headings):
        title = None
        caps = _MANUAL_HEADING.match(t, off) if line < n and t[off] != "#" else None
        if caps is not None:
            if in_fence:
                continue
            if caps.group(1):
                title = f"{manual}{SECTION_SEPARATOR}{caps.group(2)}" if manual else caps.group(2)
            else:
                title = manual = caps.group(2)
        elif line < n and t[off] == "#":
            if in_fence:
                continue  # a "#" line inside a fence is an ordinary line
            title = t[off : t.find("\n", off)]
            if not _HEADING.match(title.rstrip("\r")):
                continue
            title, document = section_of(title, document)
        # close every chunk that ends before this line
        while True:
            # Usually one match says it (``_CHUNK``); near a fence, after a
            # heading or past 8,000 characters, ``_chunk_end`` works it out.
            m = _CHUNK.match(t, so, off) if at == start and not in_fence else None
            if m is not None and (eo := m.end(2)) - so < MAX_CHUNK_CHARS:
                next_so = m.end()
                if next_so > eo:  # a blank line ends it, and belongs to no chunk
                    end = start + MIN_CHUNK_LINES + t.count("\n", m.end(1), eo)
                    next_start = end + 1
                elif eo == off:
                    break  # it runs into this line
                else:
                    end = next_start = start + MAX_CHUNK_LINES
            elif m is None and at == start and not in_fence and off - so < MAX_CHUNK_CHARS:
                break  # under 20 lines before this one
            else:
                end, eo, blank = _chunk_end(t, n, start, so, at, ao, in_fence)
                if end >= line:
                    break
                next_start, next_so = (end + 1, t.find("\n", eo) + 1) if blank else (end, eo)
            body = t[so : eo - 1]
            if body and not body.isspace():
                chunks.append(Chunk(start + 1, end, chunk_heading, body))
            start = at = next_start
            so = ao = next_so
            chunk_heading = heading
        if line == n:
            break
        if title is not None:
            if line > start:
                body = t[so : off - 1]
                if body and not body.isspace():
                    chunks.append(Chunk(start + 1, line, chunk_heading, body))
                start, so = line, off
            heading = chunk_heading = title
        else:
            in_fence = not in_fence
            if line - start >= MAX_CHUNK_LINES or off - so >= MAX_CHUNK_CHARS:
                body = t[so : off - 1]
                if body and not body.isspace():
                    chunks.append(Chunk(start + 1, line, chunk_heading, body))
                start, so = line, off
                chunk_heading = heading
        at, ao = line + 1, t.find("\n", off) + 1
    if start < n:
        body = t[so:-1]
        if body and not body.isspace():
            chunks.append(Chunk(start + 1, n, chunk_heading, body))
    return chunks


# _SKIP[k] steps over k whole lines; _TEXT[k] over at most k lines that are not
# blank (``str.strip`` and ``\s`` agree on what is white space).
_SKIP = [re.compile(rf"(?:[^\n]*+\n){{{k}}}") for k in range(MAX_CHUNK_LINES + 1)]
_TEXT = [re.compile(rf"(?:[^\S\n]*+\S[^\n]*+\n){{0,{k}}}") for k in range(MAX_CHUNK_LINES + 1)]
_BLANK = re.compile(r"[^\S\n]*+\n")
# A whole chunk opened on a fresh line: 20 lines (group 1), then up to 20
# that are not blank (group 2: only those are counted), then the blank line
# that ends it if there is one.
_CHUNK = re.compile(
    rf"((?:[^\n]*+\n){{{MIN_CHUNK_LINES}}})((?:[^\S\n]*+\S[^\n]*+\n){{0,{MAX_CHUNK_LINES - MIN_CHUNK_LINES}}})"
    r"(?:[^\S\n]*+\n)?"
)


def _chunk_end(
    t: str, n: int, start: int, so: int, at: int, ao: int, in_fence: bool
) -> tuple[int, int, bool]:
    """Where the chunk opened at line ``start`` (offset ``so``) ends, lines
    from ``at`` (offset ``ao``) on not yet looked at: the end line (``n`` for
    the end of the text), its offset, and whether it is a blank line (which
    then belongs to no chunk). Outside a fence the first blank line from the
    21st line on ends it; the 41st line, or the first line starting 8,000
    characters after the chunk's start, ends it anyway."""
    last = start + MAX_CHUNK_LINES
    blank = False
    if in_fence:
        end, eo = (last, _SKIP[last - at].match(t, ao).end()) if last < n else (n, len(t))
    else:
        first = max(at, start + MIN_CHUNK_LINES)
        if first >= n:
            end, eo = n, len(t)
        else:
            fo = _SKIP[first - at].match(t, ao).end()
            most = min(last, n) - first  # lines that may be looked at before the 41st
            eo = _TEXT[most].match(t, fo).end()
            end = first + t.count("\n", fo, eo)
            if end < first + most:
                blank = True
            elif end < n:  # the 41st line
                blank = _BLANK.match(t, eo) is not None
    if eo - so >= MAX_CHUNK_CHARS:
        co = t.find("\n", so + MAX_CHUNK_CHARS - 1) + 1
        if co < eo:
            return start + t.count("\n", so, co), co, False
    return end, eo, blank


def _special_lines(t: str, headings: bool) -> list[tuple[int, int]]:
    """The lines that may be a heading (they start with "#", or are a manual
    page's line of capitals) or a fence (up to three spaces, then ``````` or
    ``~~~``), as (line, offset), in order and
    followed by the end (line count, text length): one regular expression
    over the whole text, anchored on its line breaks."""
    offsets = [0] if (headings and (t.startswith("#") or _MANUAL_HEADING.match(t))) or _FENCE.match(t) else []
    offsets += [m.start() + 1 for m in (_SPECIAL if headings else _SPECIAL_FENCE).finditer(t)]
    found = []
    line = previous = 0
    for off in offsets:
        line += t.count("\n", previous, off)
        previous = off
        found.append((line, off))
    found.append((line + t.count("\n", previous), len(t)))
    return found
