"""The release a passage of release notes belongs to, for "which version …?".

Release notes say a change once, under the heading of the release that made it:
less's NEWS has "Add the --file-size option." lines below ``Major changes between
"less" versions 590 and 598``; a changelog's entries sit below ``5.7.0 (2024-01-01)``
or ``apt (2.9.5) unstable; urgency=medium``. The note answers "In which version was
--file-size added?" only with that heading, which the chunk read for the note rarely
holds, so the lead of a version question is shown with the heading above it in its
file, read back from the index (as a definition-list entry's term is shown).

Pure Python: no Django imports.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace

from .claims import Claim
from .index import index_path, reading

# "Which version …?", "In what release …?": the question asks which release did something.
ASKS_VERSION = re.compile(r"\b(?:which|what)\s+(?:[\w-]+\s+){0,2}?(?:version|release)s?\b", re.I)
# …about a change a release made ("Which Python versions does it require?" asks no release).
_CHANGE = re.compile(
    r"\b(?:add|remov|introduc|chang|deprecat|drop|fix|releas|appear|renam|replac)\w*|\b(?:since|first|new)\b",
    re.I,
)
# A version as a release heading writes it: "versions 581 and 590", "release 3", "v2.1",
# "5.7.0", "(2.9.5)".
_VERSION = re.compile(r"\b(?:versions?|releases?)\s+\"?v?\d|\bv?\d+\.\d+(?:\.\d+)*\b|\(\d[^)\s]*\)", re.I)
# A line that is a list item or prose, not a heading.
_NOT_HEADING = re.compile(r"^\s*(?:[*+•-]\s|\d+[.)]\s)|[.,;:]\s*$")
_UNDERLINE = re.compile(r"^\s*(?:=+|-+|~+|\^+|\*+)\s*$")
MAX_HEADING = 120
# How far back a heading is looked for: chunks of the file before the passage's.
CHUNKS_BACK = 6


def _heading(lines: list[str], row: int) -> bool:
    """Whether ``lines[row]`` is a release heading: a short line naming a version,
    set apart (a blank line or the file's start before it, a blank line or an
    underline after it), neither a list item nor a sentence."""
    line = lines[row].strip().lstrip("#").strip()
    if not line or len(line) > MAX_HEADING or _NOT_HEADING.search(lines[row]) or not _VERSION.search(line):
        return False
    before = row == 0 or not lines[row - 1].strip() or _UNDERLINE.match(lines[row - 1])
    after = row + 1 >= len(lines) or not lines[row + 1].strip() or _UNDERLINE.match(lines[row + 1])
    return bool(before and after)


def release_heading(text: str, first_line: int, line: int) -> str:
    """The nearest release heading above line ``line`` (1-based) in ``text``,
    whose first line is line ``first_line`` of its file; "" when there is none."""
    lines = text.split("\n")
    for row in range(min(line - first_line, len(lines)) - 1, -1, -1):
        if _heading(lines, row):
            return " ".join(lines[row].strip().lstrip("#").split())
    return ""


def with_release(
    root: str | os.PathLike[str], question: str, claims: list[Claim], state: str | os.PathLike[str] | None
) -> list[Claim]:
    """``claims`` with the lead shown with its release's heading, when the question
    asks which version or release made a change and the lead is no entry shown with its term."""
    if not claims or claims[0].term or not ASKS_VERSION.search(question) or not _CHANGE.search(question):
        return claims
    lead = claims[0]
    path = index_path(root, state)
    if not path.exists():
        return claims
    with reading(path) as conn:
        rows = conn.execute(
            """
            SELECT c.line_start, substr(t.text, c.prefix + 1) FROM chunks c JOIN files f ON f.id = c.file_id
              JOIN chunks_fts t ON t.rowid = c.id
            WHERE f.path = ? AND c.line_start <= ? ORDER BY c.line_start DESC LIMIT ?
            """,
            (lead.path, lead.line_start, CHUNKS_BACK),
        ).fetchall()
    for line_start, text in rows:
        heading = release_heading(text, line_start, lead.line_start)
        if heading:
            return [replace(lead, term=heading), *claims[1:]]
    return claims
