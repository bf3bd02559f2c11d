"""Form 4: web sources (docs/FORMATS.md, Web sources; Evidence bullets).

- ``## Source N: Title`` followed by a ```yaml block with url, type, date,
  version, authority (or the older ``**URL**: …`` prose lines);
- Evidence/Date/Type/Excerpt bullet citations. An Evidence bullet that points
  at ``path/file.ext:45-52`` instead of a URL becomes a file citation, and its
  Excerpt bullet gives that citation something to verify.
"""

from __future__ import annotations

import bisect
import re
import textwrap
from collections.abc import Iterable

from core.citations.parsing.model import AUTHORITIES, URL_RE, WEB_TYPES, Found, FoundBy, ParsedCitation
from core.citations.parsing.text_forms import FILE_LINE_RE, find_file_lines

_SOURCE_HEADING_RE = re.compile(r"^(#{1,6})\s*Source\s+(\d+)\s*:\s*(.*?)\s*$", re.IGNORECASE | re.MULTILINE)
_HEADING_RE = re.compile(r"^(#{1,6})\s", re.MULTILINE)
_FENCE_LINE_RE = re.compile(r"^[ \t]*(`{3,}|~{3,})", re.MULTILINE)
_FENCE_RE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)\s*$")
_PROSE_FIELD_RE = re.compile(
    r"^\s*[-*]?\s*\*\*(URL|Type|Date|Version|Authority)\*\*\s*:\s*(.+?)\s*$", re.I | re.M
)
_BULLET_RE = re.compile(
    r"^(\s*)[-*+]\s*\*\*(Evidence|Date|Type|Excerpt|Version|Authority)(?:\s*\([^)]*\))?\s*:?\s*\*\*\s*:?\s*(.*)$",
    re.IGNORECASE,
)


def flat_yaml(block: str) -> dict[str, str]:
    """Read ``key: value  # comment`` lines; the source blocks are flat, and
    reading them as text keeps ``date: 2025-12`` a string."""
    out: dict[str, str] = {}
    for line in block.split("\n"):
        match = re.match(r"^\s*([A-Za-z_][\w-]*)\s*:\s*(.*)$", line)
        if not match:
            continue
        # Not mutated: only the part before the first comment is read, however many splits are made
        value = re.split(r"\s+#", match.group(2), maxsplit=1)[0].strip().strip("\"'")  # pragma: no mutate
        if value:
            out[match.group(1).lower()] = value
    return out


def _fenced_after(lines: list[str], index: int) -> tuple[str | None, int]:
    """The fenced block starting at or just after ``lines[index]``."""
    probe = index
    while probe < len(lines) and not lines[probe].strip():
        probe += 1
    if probe >= len(lines) or not (opening := _FENCE_RE.match(lines[probe])):
        return None, index
    indent, marker = opening.group(1), opening.group(2)
    body = []
    for end in range(probe + 1, len(lines)):
        if lines[end].strip() == marker:
            return textwrap.dedent("\n".join(line.removeprefix(indent) for line in body)), end
        body.append(lines[end])
    return textwrap.dedent("\n".join(body)), len(lines) - 1  # pragma: no mutate: both end the caller's loop


def _web_fields(fields: dict[str, str], problems: list[str], label: str) -> dict[str, object]:
    out: dict[str, object] = {}
    web_type = fields.get("type")
    if web_type:
        web_type = web_type.split()[0].strip(",")
        if web_type not in WEB_TYPES:
            problems.append(f"{label} has an unknown type {web_type!r}; it was kept as given.")
        out["web_type"] = web_type
    authority = fields.get("authority") or ""
    # Not mutated: 'XXXX' holds no 'authority:' as '' does not, and the pattern is matched with re.I
    match = re.search(r"authority:\s*(\w+)", fields.get("type", ""), re.I)  # pragma: no mutate
    authority = (match.group(1) if match and not authority else authority).lower()
    if authority in AUTHORITIES:
        out["authority"] = authority
    elif authority:
        problems.append(f"{label} has an unknown authority {authority!r}; it was left empty.")
    if fields.get("date"):
        out["date"] = fields["date"].split(" (")[0].strip()
    if fields.get("version"):
        out["version"] = fields["version"]
    return out


def _fence_starts_and_ends(text: str) -> list[int]:
    """Offsets where closed code fences open and close, in pairs: an offset falls inside a fence
    when an odd number of them lie at or before it. A fence closes on a run of at least as many of
    its own character; one left open is not counted."""
    offsets: list[int] = []
    opening: re.Match[str] | None = None
    for match in _FENCE_LINE_RE.finditer(text):
        if opening is None:
            opening = match
            # Not mutated: a fence is a run of one character, so [1] is [0]
            # pragma: no mutate start
        elif match.group(1)[0] == opening.group(1)[0] and len(match.group(1)) >= len(opening.group(1)):
            # pragma: no mutate end
            offsets += [opening.start(), match.end()]
            opening = None
    return offsets


def find_source_sections(text: str, problems: list[str]) -> list[Found]:
    found = []
    fences = _fence_starts_and_ends(text)
    for heading in _SOURCE_HEADING_RE.finditer(text):
        level = len(heading.group(1))
        stop = len(text)  # pragma: no mutate: text[start:None] is text[start:len(text)]
        for nxt in _HEADING_RE.finditer(text, heading.end()):
            # A "# comment" line inside the metadata block is YAML, not a heading.
            if len(nxt.group(1)) <= level and bisect.bisect_right(fences, nxt.start()) % 2 == 0:
                stop = nxt.start()
                break
        section = text[heading.end() : stop]
        lines = section.split("\n")
        fields: dict[str, str] = {}  # pragma: no mutate: only tested for truth before it is set
        for index, line in enumerate(lines):
            fence = _FENCE_RE.match(line)
            if fence and fence.group(3).lower() in ("yaml", "yml"):
                block, _ = _fenced_after(lines, index)
                fields = flat_yaml(block or "")  # pragma: no mutate: 'XXXX' holds no 'key: value' line either
                break
        if not fields:
            fields = {m.group(1).lower(): m.group(2).strip("<>[]") for m in _PROSE_FIELD_RE.finditer(section)}
        label = f"Source {heading.group(2)}"
        url_match = URL_RE.search(fields.get("url", ""))  # pragma: no mutate: 'XXXX' holds no URL either
        if not url_match:
            problems.append(
                f"{label} ('{heading.group(3)}') gives no URL, so it was not recorded as a citation."
            )
            continue
        title = heading.group(3).strip().strip("[]") or None
        found.append(
            Found(
                heading.start(),
                ParsedCitation(  # pragma: no mutate: prose citations are renumbered: first cid unread
                    cid="",  # pragma: no mutate: prose citations are renumbered: first cid unread
                    found_by=FoundBy.WEB_SOURCE,
                    source_type="url",
                    url=url_match.group(0).rstrip(".,;)"),
                    title=title,
                    **_web_fields(fields, problems, label),
                ),
            )
        )
    return found


def find_evidence_bullets(text: str, content_ids: Iterable[str], problems: list[str]) -> list[Found]:
    """Group each Evidence bullet with the Date/Type/Excerpt bullets after it."""
    found: list[Found] = []
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    group: list[Found] = []
    fields: dict[str, str] = {}
    excerpt: str | None = None  # pragma: no mutate: only tested for truth before it is set

    def flush() -> None:
        extra = _web_fields(fields, problems, "An Evidence citation")
        for item in group:
            if item.citation.source_type == "url":
                for key, value in extra.items():
                    setattr(item.citation, key, value)
            if excerpt and len(group) == 1:
                item.citation.excerpt = excerpt
        found.extend(group)

    index = 0
    while index < len(lines):
        line = lines[index]
        bullet = _BULLET_RE.match(line)
        if _HEADING_RE.match(line):
            flush()
            group, fields, excerpt = [], {}, None
        elif bullet:
            name, value = bullet.group(2).lower(), bullet.group(3).strip()
            if name == "evidence":
                flush()
                group, fields, excerpt = (
                    _evidence_targets(value, offsets[index] + bullet.start(3), content_ids, problems),
                    {},
                    None,
                )
            elif name == "excerpt" and group:
                if value:
                    excerpt = value.strip("`\"' ")
                else:
                    block, end = _fenced_after(lines, index + 1)
                    if block is not None:
                        excerpt, index = block, end
            elif group:
                fields[name] = value.strip("` ")
        index += 1
    flush()
    return found


def _evidence_targets(
    value: str, offset: int, content_ids: Iterable[str], problems: list[str]
) -> list[Found]:
    targets = []
    for match in URL_RE.finditer(value):
        # pragma: no mutate start (prose citations are renumbered: their first cid is never read)
        targets.append(
            Found(
                offset + match.start(),
                ParsedCitation(
                    cid="", found_by=FoundBy.WEB_SOURCE, source_type="url", url=match.group(0).rstrip(".,;:)")
                ),
            )
        )
        # pragma: no mutate end
    # Not mutated: find_file_lines finds the same file:line at its true place, which sorts first: the same
    # citations
    masked = URL_RE.sub(lambda m: " " * len(m.group(0)), value)  # pragma: no mutate
    if FILE_LINE_RE.search(masked):
        for item in find_file_lines(masked, content_ids, problems):
            item.position += offset
            targets.append(item)
    return targets
