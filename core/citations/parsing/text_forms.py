"""Forms 2 and 3 and inline references, found in the answer's prose.

- backtick paths `` `<uuid or 8-hex>/<path>` `` anywhere (docs/FORMATS.md, Backtick content paths),
  with ``:45-52``, ``#L45-L52`` or "lines 45-52" right after;
- un-backticked entries of a ``## Sources`` (or References) section;
- ``path/to/file.ext:45-52`` and ``file.ext:45`` references (docs/FORMATS.md, File and line references);
- inline ``[c1]``, ``[c1][c2]``, ``[c1, c2]``, ``[c1-c3]``.

The caller blanks the CITATIONS block out of the text first, so nothing in it
is found twice.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from core.citations.markers import INLINE_MAX_RANGE, INLINE_RE, INLINE_SEPARATOR, citation_id
from core.citations.parsing.model import URL_RE, Found, FoundBy, ParsedCitation, file_citation, parse_range

_ID = r"(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9a-fA-F]{8})"
BACKTICK_RE = re.compile(rf"`({_ID}/[^`\n]+)`")
_SUFFIX_RE = re.compile(r"(?::(\d+(?:\s*[-–]\s*\d+)?)|#L(\d+)(?:-L?(\d+))?)$")
_AFTER_RE = re.compile(r"^[\s,(]*(?:lines?|ll\.|L)\s*(\d+(?:\s*(?:-|–|—|to)\s*L?\d+)?)", re.IGNORECASE)
# The lookahead changes no match (a path starts with one of those characters): it fails a
# position before the lookbehind is tried, 3x faster over an answer's blanked CITATIONS block.
FILE_LINE_RE = re.compile(
    r"(?=[\w.\-])(?<![\w/.@:\-])((?:[\w.\-]+/)*[\w\-][\w.\-]*\.[A-Za-z][A-Za-z0-9]{0,9})"
    r":(\d{1,9})(?:\s*[-–]\s*(\d{1,9}))?((?:,\s*\d{1,9}(?:\s*[-–]\s*\d{1,9})?)*)"
)
# A bare "example.com:8080" is a host and port, not a file and a line.
_HOST_SUFFIXES = {"com", "org", "net", "io", "dev", "ai", "co", "edu", "gov", "app", "uk", "de", "local"}
SOURCES_HEADING_RE = re.compile(
    r"^(?:(#{1,6})\s*(?:\d+[.)]\s*)?|\*\*)(?:sources?|references?|source files|bibliography)\s*:?\s*(?:\*\*)?\s*:?\s*$",
    re.IGNORECASE | re.MULTILINE,
)
_HEADING_RE = re.compile(r"^#{1,6}\s", re.MULTILINE)
# Not from inside a word or path ("-" too: a UUID's tail is no path of its own); an absolute
# path is kept whole, for file_citation to cut at its content folder.
_ENTRY_PATH_RE = re.compile(
    rf"(?<![\w/.:\-])/?(?:{_ID}/[^\s`()\[\],;]+|(?:[\w.\-]+/)+[\w.\-]+\.[A-Za-z]\w{{0,9}})"
)
_LINK_RE = re.compile(r"\[([^\]\n]+)\]\((https?://[^)\s]+)\)")


def find_backtick_paths(text: str, content_ids: Iterable[str], problems: list[str]) -> list[Found]:
    found = []
    for match in BACKTICK_RE.finditer(text):
        inner = match.group(1).strip()
        start = end = None
        suffix = _SUFFIX_RE.search(inner)
        if suffix:
            inner = inner[: suffix.start()]
            if suffix.group(1):
                start, end = parse_range(suffix.group(1))  # pragma: no mutate: find_file_lines: same range
            else:
                start = int(suffix.group(2))
                end = int(suffix.group(3)) if suffix.group(3) else start
        else:
            # pragma: no mutate start (any split limit gives the same first part)
            after = _AFTER_RE.match(text[match.end() : match.end() + 60].split("\n", 1)[0])
            # pragma: no mutate end
            if after:
                start, end = parse_range(after.group(1))
        if start is not None and end is not None and end < start:  # pragma: no mutate: equal ends: no change
            start, end = end, start
        # pragma: no mutate start (prose citations are renumbered: their first cid is never read)
        found.append(
            Found(
                match.start(),
                file_citation(
                    "", FoundBy.BACKTICK_PATH, inner, content_ids, problems, line_start=start, line_end=end
                ),
            )
        )
        # pragma: no mutate end
    return found


def _line_range(match: re.Match[str]) -> tuple[int, int]:
    """'16-17,19,55' cites several places; the range spans them all so an
    excerpt from any of them is found within it."""
    numbers = [int(n) for n in re.findall(r"\d+", match.group(0)[len(match.group(1)) + 1 :])]
    return min(numbers), max(numbers)


def find_file_lines(text: str, content_ids: Iterable[str], problems: list[str]) -> list[Found]:
    found = []
    for match in FILE_LINE_RE.finditer(text):
        path = match.group(1)
        # Not mutated: the path holds a '.', so any rsplit's last part is the same
        if "/" not in path and path.rsplit(".", 1)[-1].lower() in _HOST_SUFFIXES:  # pragma: no mutate
            continue
        start, end = _line_range(match)
        # pragma: no mutate start (prose citations are renumbered: their first cid is never read)
        found.append(
            Found(
                match.start(),
                file_citation(
                    "", FoundBy.FILE_LINE, path, content_ids, problems, line_start=start, line_end=end
                ),
            )
        )
        # pragma: no mutate end
    return found


def find_sources_sections(text: str, content_ids: Iterable[str], problems: list[str]) -> list[Found]:
    """Entries of a Sources/References section that the backtick and
    file:line forms do not already catch."""
    found = []
    for heading in SOURCES_HEADING_RE.finditer(text):
        following = _HEADING_RE.search(text, heading.end())
        stop = following.start() if following else len(text)
        offset = heading.end()
        for line in text[heading.end() : stop].split("\n"):
            found.extend(_sources_line(line, offset, content_ids, problems))
            offset += len(line) + 1
    return found


def _sources_line(line: str, offset: int, content_ids: Iterable[str], problems: list[str]) -> list[Found]:
    # Backticked uuid paths and file:line references are found by their own
    # forms; blank them so they are not counted twice.
    masked = BACKTICK_RE.sub(lambda m: " " * len(m.group(0)), line)
    masked = FILE_LINE_RE.sub(lambda m: " " * len(m.group(0)), masked)
    masked = masked.replace("`", " ")
    out: list[Found] = []
    # A link's text without its code marks, blanked above: "[`setup` guide](…)" is "setup guide".
    links = {m.group(2): " ".join(m.group(1).split()) for m in _LINK_RE.finditer(masked)}
    for match in URL_RE.finditer(masked):
        url = match.group(0).rstrip(".,;:)")
        # pragma: no mutate start (prose citations are renumbered: their first cid is never read)
        out.append(
            Found(
                offset + match.start(),
                ParsedCitation(
                    cid="", found_by=FoundBy.SOURCES_SECTION, source_type="url", url=url, title=links.get(url)
                ),
            )
        )
        # pragma: no mutate end
    without_urls = URL_RE.sub(lambda m: " " * len(m.group(0)), masked)
    for match in _ENTRY_PATH_RE.finditer(without_urls):
        # The whole rest of the entry: a title is not cut at a fixed width.
        rest = without_urls[match.end() :]
        lines = _AFTER_RE.match(rest)
        start, end = parse_range(lines.group(1)) if lines else (None, None)
        title = re.split(r"\s[—–-]\s", rest, maxsplit=1)
        out.append(
            Found(
                offset + match.start(),
                file_citation(  # pragma: no mutate: prose citations are renumbered: first cid unread
                    "",  # pragma: no mutate: prose citations are renumbered: first cid unread
                    FoundBy.SOURCES_SECTION,
                    match.group(0),
                    content_ids,
                    problems,
                    line_start=start,
                    line_end=end,
                    title=title[1].strip() or None if len(title) > 1 else None,
                ),
            )
        )
    return out


def find_inline_ids(text: str, problems: list[str]) -> list[str]:
    """Inline references in first-seen order, ranges expanded."""
    seen: dict[str, None] = {}
    for match in INLINE_RE.finditer(text):
        for part in INLINE_SEPARATOR.split(match.group(1)):
            bounds = [int(n) for n in re.findall(r"\d+", part)]
            # pragma: no mutate start (at most two numbers, and with one, [-1] is [0]: the same bounds)
            low, high = (bounds[0], bounds[-1]) if len(bounds) > 1 else (bounds[0], bounds[0])
            # pragma: no mutate end
            if high < low:  # pragma: no mutate: swapping equal ends changes nothing
                low, high = high, low
            if high - low >= INLINE_MAX_RANGE:
                problems.append(f"The inline range [{part.strip()}] is too wide; only its ends were kept.")
                seen.setdefault(citation_id(low))
                seen.setdefault(citation_id(high))
                continue
            for number in range(low, high + 1):
                seen.setdefault(citation_id(number))
    return list(seen)
