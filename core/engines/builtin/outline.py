"""The outline of a chunk as its indentation draws it: which line each line
hangs from, which lines are headings and which are the terms of a
definition list, with the first paragraph that defines each term.

A manual page rendered to text, a reST option list, AsciiDoc's ``term::`` and
a docstring's argument list all write an entry the same way: the term on a
line (``--parallel-max <num>``, ``-size n[cwbkMG]``, ``delivery_mode (enum):``),
its description indented below it, or beside it after a gap of spaces (an
exit-code table's ``6      Could not resolve host.``). A later paragraph of
the entry ("The default is 50.") is about what its term and first paragraph
say; a row of a nested list (``b'    for 512-byte blocks``) is about the entry
it sits in; a manual's section heading (``EXIT CODES``, ``   ACTIONS``: capital
letters only) is about everything under it, and only context: never a quote.
A Markdown table's row is read with its header row. Read once per chunk
(``reading.chunk_reading``), with the end of the chunk before it.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate

MAX_TERM_CHARS = 60
MAX_TERM_WORDS = 6
# Entries a line sits in, counted outwards: an option's suffix table inside the option.
MAX_DEPTH = 3
# A term written beside its description: ``6      Could not resolve host.``, ``-a, --all   Show all.``
_BESIDE = re.compile(r"(\S(?:\S| (?! ))*)\s{2,}(?=\S)")
# A manual's section heading: capital letters, digits and spaces only (``EXIT CODES``, ``SEE ALSO``),
# at most three columns in (a subsection's ``   ACTIONS``).
HEADING = re.compile(r" {0,3}[A-Z][A-Z0-9 /&-]{2,}[A-Z0-9][ \t]*")
# A first column ending on a word that joins it to more: its term runs on past the column.
_CONTINUES = re.compile(r"(?:\bor|\band|,)\s*$")
# A list item's first line is the item itself, not a term: "- item", "* item", "1. item".
_LIST_ITEM = re.compile(r"(?:[-*+]|\d{1,3}[.)])\s")


@dataclass(frozen=True, slots=True)
class Entry:
    """A definition-list entry: its term, its line (a row of the outline) and
    its first paragraph (the term's line to the first blank line), as offsets
    in the chunk when it starts there (``start`` < 0: it starts in the chunk
    before, whose text ``before`` then holds)."""

    term: str
    row: int
    start: int
    end: int
    before: str = ""


class Outline:
    """The rows of a chunk (the lines of the end of the chunk before it, then
    its own), each with the row it hangs from: the nearest row above it
    that is less indented."""

    def __init__(self, text: str, before: str = "") -> None:
        above = before.split("\n") if before else []
        self.first = len(above)  # the row of the chunk's first line
        own = text.split("\n")
        self.lines = lines = above + own
        self._starts: list[int] | None = None
        self._headings: dict[int, bool] = {}
        self._tabs = "\t" in text or "\t" in before
        # read for the rows a passage asks about, and the rows above them, only
        self._indents: list[int | None] = [None] * len(lines)
        self._parents: list[int | None] = [None] * len(lines)
        self._entries: dict[int, Entry | None] = {}

    def indent(self, row: int) -> int:
        """Columns of white space before ``row``'s text (-1: a blank line)."""
        found = self._indents[row]
        if found is None:
            line = self.lines[row]
            if self._tabs:
                found = _indent(line) if line.strip() else -1
            else:
                rest = line.lstrip()
                found = len(line) - len(rest) if rest else -1
            self._indents[row] = found
        return found

    def parent(self, row: int) -> int:
        """The row ``row`` hangs from: the nearest row above it that is less
        indented (-1: none). A row between a row and its parent is no less
        indented than that row, so the search steps from parent to parent."""
        found = self._parents[row]
        if found is None:
            want = self.indent(row)
            found = row - 1
            while found >= 0:
                indent = self.indent(found)
                if 0 <= indent < want:
                    break
                found = found - 1 if indent < 0 else self.parent(found)
            self._parents[row] = found
        return found

    @property
    def starts(self) -> list[int]:
        """Where each of the chunk's own lines starts (the lines before it: -1)."""
        if self._starts is None:
            own = self.lines[self.first : -1]
            self._starts = [-1] * self.first + list(accumulate([len(line) + 1 for line in own], initial=0))
        return self._starts

    def row_of(self, line: int) -> int:
        """The row of the chunk's ``line`` (0-based)."""
        return self.first + line

    def header(self, row: int) -> str:
        """The line ``row`` hangs from ("" for none)."""
        parent = self.parent(row)
        return self.lines[parent] if parent >= 0 else ""

    def heading(self, row: int) -> bool:
        found = self._headings.get(row)
        if found is None:
            found = self._headings[row] = HEADING.fullmatch(self.lines[row]) is not None
        return found

    def entry(self, row: int) -> Entry | None:
        """The entry whose term is on ``row``, or None when ``row`` is no term:
        a heading, a line of prose, a line followed by none more indented."""
        if row in self._entries:
            return self._entries[row]
        found = None
        line = self.lines[row]
        stripped = line.strip()
        indent = self.indent(row)
        following = self.indent(row + 1) if row + 1 < len(self.lines) else -1
        term = ""
        if indent >= 0 and not _LIST_ITEM.match(stripped):
            # a gap of spaces after a short first column, or a line with more indented ones below
            tabs = "\t" in line
            if (
                following > indent
                and not tabs
                and line[following - 1 : following] == " "
                and line[following:]
            ):
                # the first column as wide as the indentation below: ``-mount Don't descend …``;
                # not a term running past that column: ``-bn or --buffers=n`` is no "-bn or"
                first = line[indent:following]
                term = _term(first) if line[following] != " " and not _CONTINUES.search(first) else ""
            else:
                beside = _BESIDE.match(line, len(line) - len(line.lstrip()) if tabs else indent)
                term = _term(beside.group(1)) if beside else ""
            if not term and (following > indent or stripped.endswith("::")):
                term = _term(stripped)
        if term and not self.heading(row):
            end = row
            while end + 1 < len(self.lines) and self.indent(end + 1) >= 0:
                end += 1
            if row >= self.first:
                found = Entry(term, row, self.starts[row], self.starts[end] + len(self.lines[end]))
            else:
                last = min(end, self.first - 1)
                para = "\n".join(self.lines[row : last + 1])
                # it runs into the chunk only when no blank line ends it before
                inside = self.starts[end] + len(self.lines[end]) if end >= self.first else -1
                found = Entry(term, row, -1, inside, para)
        self._entries[row] = found
        return found

    def around(self, row: int) -> list[tuple[str, Entry | int]]:
        """What ``row`` sits in, innermost first: ("entry", Entry) for each
        definition-list entry (its own row's too), ("heading", row) for each
        heading, at most MAX_DEPTH entries."""
        found: list[tuple[str, Entry | int]] = []
        entries = 0
        at = row
        while at >= 0 and entries < MAX_DEPTH:
            if self.indent(at) >= 0:
                if self.heading(at):
                    found.append(("heading", at))
                else:
                    entry = self.entry(at)
                    if entry is not None:
                        found.append(("entry", entry))
                        entries += 1
            at = self.parent(at)
        return found

    def definition(
        self, entry: Entry, tok: Callable[[int, int], frozenset[str]], tokens_of
    ) -> frozenset[str]:
        """The words of ``entry``'s term and first paragraph."""
        if entry.start >= 0:
            return tok(entry.start, entry.end)
        words = tokens_of(entry.before)
        return words | tok(0, entry.end) if entry.end > 0 else words


def _indent(line: str) -> int:
    """Columns of white space before the text (a tab to the next multiple of 8,
    as AsciiDoc's ``term::`` entries indent their description)."""
    if "\t" in line:
        line = line.expandtabs(8)
    return len(line) - len(line.lstrip(" "))


def _term(first: str) -> str:
    """The term of an entry's first line: a manual's ``--suffix=SUFFIX``,
    AsciiDoc's ``term::``, reST's ``name (int):`` ("" for a line of prose)."""
    term = first.strip().split(": ", 1)[0].removesuffix("::").removesuffix(":").strip()
    short = len(term) <= MAX_TERM_CHARS and len(term.split()) <= MAX_TERM_WORDS
    return term if term and short and not term.endswith((".", ",", ";")) else ""


# A Markdown table's row, and the rule under its header row (``|---|:--:|``).
_TABLE_ROW = re.compile(r"[ \t]*\|")
_TABLE_RULE = re.compile(r"[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)*\|?[ \t]*$")


def table_header(text: str, pos: int) -> tuple[int, int] | None:
    """The span of the header row of the Markdown table whose body row holds
    ``pos``, or None (not in a table's body)."""
    start = text.rfind("\n", 0, pos) + 1
    if not _TABLE_ROW.match(text, start):
        return None
    rows = []  # the rows above, nearest first, while they are the table's
    at = start
    while at > 0:
        above = text.rfind("\n", 0, at - 1) + 1
        if not _TABLE_ROW.match(text, above):
            break
        rows.append((above, at - 1))
        at = above
    # the header is the row above the rule; the rule and the header are no body rows
    for n, (a, b) in enumerate(rows):
        if _TABLE_RULE.match(text[a:b]):
            return rows[n + 1] if n + 1 < len(rows) else None
    return None
