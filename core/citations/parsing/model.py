"""The parsed form of a citation and the helpers every citation form shares.

Pure Python (no Django): the parser is fuzzed and benchmarked on its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from enum import StrEnum


class FoundBy(StrEnum):
    """The form of the answer a citation was read from; each member is its stored
    value (a str) and carries ``label`` (its name in the model's choices and the admin)
    and ``precedence`` (two citations at one position: the lower, more specific form
    wins). The members' order is the model's choices' (changing it needs a migration)."""

    label: str
    precedence: int

    def __new__(cls, value: str, label: str, precedence: int) -> FoundBy:
        member = str.__new__(cls, value)
        member._value_ = value
        member.label = label
        member.precedence = precedence
        return member

    CITATIONS_BLOCK = "citations_block", "CITATIONS block", 0
    BACKTICK_PATH = "backtick_path", "Backtick path", 1
    SOURCES_SECTION = "sources_section", "Sources section", 4
    FILE_LINE = "file_line", "file:line", 3
    WEB_SOURCE = "web_source", "Web source", 2
    # Not a form the parser reads: a citation the app attached to an answer whose
    # model gave none that verify (core/engines/openai/attach.py); the run names
    # its ids, and citations/services.py stores them with this value.
    ATTACHED = "attached", "Attached by the app", 9
    # Not a form the parser reads either: a citation Anthropic's Messages API extracted
    # from a search result the app sent (core/engines/anthropic/); the run names its ids.
    API = "api", "Extracted by the API", 10


SOURCE_TYPES = ("file", "url", "memory", "inference")
RELEVANCES = ("direct", "supporting", "contextual")
AUTHORITIES = ("high", "medium", "low")
WEB_TYPES = ("official_docs", "github_issue", "stackoverflow", "blog", "academic_paper", "community_forum")
EXCERPT_LIMIT = 200

UUID_RE = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
SHORT_ID_RE = re.compile(r"[0-9a-fA-F]{8}")
URL_RE = re.compile(r"https?://[^\s<>()\[\]`\"']+", re.IGNORECASE)
# "45-52", "45–52", "45 to 52"; the dash family covers what agents and editors produce.
RANGE_RE = re.compile(r"(\d{1,9})(?:\s*(?:-|–|—|to)\s*L?(\d{1,9}))?", re.IGNORECASE)


@dataclass(slots=True)
class ParsedCitation:
    """One citation as the answer gave it, before any check against the sandbox."""

    cid: str
    found_by: str
    source_type: str = "file"
    source_path: str | None = None
    content_id: str | None = None
    url: str | None = None
    title: str | None = None
    line_start: int | None = None
    line_end: int | None = None
    section: str | None = None
    page: str | int | None = None
    excerpt: str | None = None
    relevance: str | None = None
    confidence: float | None = None
    authority: str | None = None
    date: str | None = None
    version: str | None = None
    web_type: str | None = None

    @property
    def excerpt_too_long(self) -> bool:
        """Excerpts over 200 characters are kept whole but flagged."""
        return bool(self.excerpt) and len(self.excerpt) > EXCERPT_LIMIT

    def merge_missing(self, other: ParsedCitation) -> None:
        """Fill the fields this citation lacks from a duplicate of it."""
        for f in fields(self):
            if f.name in ("cid", "found_by"):  # pragma: no mutate: cid and found_by are never None anyway
                continue
            if getattr(self, f.name) is None and getattr(other, f.name) is not None:
                setattr(self, f.name, getattr(other, f.name))


@dataclass(slots=True)
class ParseResult:
    """Every citation found, the problems met on the way, and the inline
    ``[cN]`` references in first-seen order."""

    citations: list[ParsedCitation] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    inline_ids: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Found:
    """A citation together with where in the answer it was first seen, so
    citations from different forms can be ordered and deduplicated."""

    position: int
    citation: ParsedCitation
    keep_id: bool = False


def resolve_content_id(segment: str, content_ids: Iterable[str]) -> tuple[str | None, str | None]:
    """Map a path's first segment to a full content UUID.

    Returns ``(content_id, problem)``. A full UUID is its own id; an 8-hex
    short id resolves only when exactly one known content id starts with it.
    """
    if UUID_RE.fullmatch(segment):
        return segment.lower(), None
    if not SHORT_ID_RE.fullmatch(segment):
        return None, None
    short = segment.lower()
    matches = sorted({cid.lower() for cid in content_ids if cid.lower().startswith(short)})
    if len(matches) == 1:
        return matches[0], None
    if len(matches) > 1:  # pragma: no mutate: one match returned above, so > 1 and >= 1 agree
        return (
            None,
            f"The short id '{segment}' matches {len(matches)} content items, so it was left unresolved.",
        )
    return None, None


def clean_path(raw: str) -> str:
    """Trim what agents wrap paths in (quotes, './', trailing punctuation)."""
    path = raw.strip().strip("\"'").strip()
    while path.startswith("./"):
        path = path[2:]
    return path.rstrip(".,;:)")


def relativize(path: str, content_ids: Iterable[str]) -> tuple[str, str | None]:
    """Agents often copy the absolute path their Read tool printed; keep the
    part from the content folder on so it can be checked inside the sandbox."""
    if not path.startswith("/"):
        return path, None
    known = {cid.lower() for cid in content_ids}
    parts = path.split("/")
    for index, part in enumerate(parts):
        if UUID_RE.fullmatch(part) or part.lower() in known:
            relative = "/".join(parts[index:])
            return relative, f"The absolute path '{path}' was read as '{relative}' inside the sandbox."
    return path, None


def file_citation(
    cid: str, found_by: str, path: str, content_ids: Iterable[str], problems: list[str], **extra: object
) -> ParsedCitation:
    """Build a file citation, resolving the content id from the path."""
    ids = list(content_ids)
    path, problem = relativize(clean_path(path), ids)
    if problem:
        problems.append(problem)
    # Not mutated: a split limit of 2, or none, gives the same first part
    content_id, problem = resolve_content_id(path.split("/", 1)[0], ids)  # pragma: no mutate
    if problem:
        problems.append(problem)
    return ParsedCitation(  # pragma: no mutate: source_type defaults to 'file'
        cid=cid, found_by=found_by, source_type="file", source_path=path, content_id=content_id, **extra
    )


def parse_range(text: str | None) -> tuple[int | None, int | None]:
    """Read '45-52', '45' or 'lines 45–52' into a (start, end) pair."""
    if not text:
        return None, None
    match = RANGE_RE.search(text)
    if not match:
        return None, None
    start = int(match.group(1))
    end = int(match.group(2)) if match.group(2) else start
    return (start, end) if start <= end else (end, start)  # pragma: no mutate: equal ends make the same pair
