"""The finding table (docs/FORMATS.md, Finding table) and the expanded details under it.

A finding table has the columns ID, Severity, Type, Location,
Counter-location, Description, Suggestion. Agents get the details wrong in
every possible way (no alignment row, columns in another order, a column
missing or added, an unescaped pipe inside a description), so columns are
matched by header name and every row is kept, with a problem noted instead
of an exception.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ._markdown import (
    count_unescaped_pipes,
    fenced_spans,
    in_spans,
    is_alignment_row,
    normalise_key,
    split_cells,
)

# The protocol's scale is critical > major > minor (docs/FORMATS.md, Severity).
# Agents trained on other rubrics write high/medium/low/info, so those rank
# beside the protocol's words rather than falling to the bottom as unknown.
SEVERITY_ORDER = ("critical", "major", "minor")
SEVERITY_RANK = {
    "critical": 0,
    "blocker": 0,
    "major": 1,
    "high": 1,
    "medium": 2,
    "moderate": 2,
    "minor": 3,
    "low": 3,
    "cosmetic": 3,
    "info": 4,
    "informational": 4,
}
UNKNOWN_SEVERITY_RANK = 5


def severity_rank(severity: str) -> int:
    """0 for critical, rising as severity falls; unknown words rank last."""
    return SEVERITY_RANK.get(severity, UNKNOWN_SEVERITY_RANK)


FINDING_TYPES = (
    "contradiction",
    "terminology-drift",
    "broken-reference",
    "stale-content",
    "missing-coverage",
    "redundant-spec",
    "abstraction-leak",
    "fidelity-loss",
    "scope-violation",
    "regression",
)

COLUMNS = ("id", "severity", "type", "location", "counter_location", "description", "suggestion")
_HEADER_ALIASES = {
    "id": "id",
    "#": "id",
    "finding": "id",
    "severity": "severity",
    "sev": "severity",
    "type": "type",
    "kind": "type",
    "category": "type",
    "location": "location",
    "where": "location",
    "counter-location": "counter_location",
    "counterlocation": "counter_location",
    "counter location": "counter_location",
    "counter_location": "counter_location",
    "conflicts with": "counter_location",
    "description": "description",
    "issue": "description",
    "problem": "description",
    "suggestion": "suggestion",
    "recommendation": "suggestion",
    "fix": "suggestion",
}
# "--" in the Counter-location column means "no conflicting source".
_EMPTY_VALUES = {"", "-", "--", "—", "–", "n/a", "na", "none", "null"}


@dataclass(frozen=True, slots=True)
class Finding:
    """One row of a finding table. ``source`` names the sub-result it came
    from (empty until a caller such as ``aggregate`` says); ``extra`` keeps
    cells of columns the protocol does not define."""

    id: str
    severity: str
    type: str
    location: str
    counter_location: str | None
    description: str
    suggestion: str
    details: str = ""
    source: str = ""
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def severity_rank(self) -> int:
        """0 for critical, rising as severity falls; unknown words rank last."""
        return severity_rank(self.severity)


@dataclass(slots=True)
class TableParse:
    """Every table found in a response: finding rows, other tables' rows
    (such as a verification checklist) and what looked wrong."""

    findings: list[Finding] = field(default_factory=list)
    other_tables: list[list[dict[str, str]]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    end_offset: int = 0


def _canonical_header(cell: str) -> str:
    key = normalise_key(cell)
    return _HEADER_ALIASES.get(key, key.replace(" ", "_") or "column")


def _is_finding_header(headers: list[str]) -> bool:
    known = set(headers) & set(COLUMNS)
    return "severity" in known and len(known) >= 3


def _unique(headers: list[str]) -> list[str]:
    """Suffix repeated header names so a second "Description" column is kept, not overwritten."""
    seen: dict[str, int] = {}
    unique = []
    for header in headers:
        seen[header] = seen.get(header, 0) + 1
        unique.append(header if seen[header] == 1 else f"{header}_{seen[header]}")
    return unique


def _table_blocks(text: str) -> list[tuple[int, list[tuple[int, str]]]]:
    """Runs of consecutive lines that carry unescaped pipes, outside code fences,
    as ``(end_offset, [(line_offset, line), ...])``."""
    spans = fenced_spans(text)
    blocks: list[tuple[int, list[tuple[int, str]]]] = []
    current: list[tuple[int, str]] = []
    offset = 0
    for line in text.splitlines(keepends=True):
        inside_fence = in_spans(offset, spans)
        if not inside_fence and count_unescaped_pipes(line) >= 1 and line.strip():
            current.append((offset, line.rstrip("\r\n")))  # pragma: no mutate: stripped again
        elif current:
            blocks.append((offset, current))
            current = []
        offset += len(line)
    if current:
        blocks.append((offset, current))
    return blocks


def _row_to_cells(cells: list[str], headers: list[str], row_number: int, problems: list[str]) -> list[str]:
    """Fit a row to the header: pad short rows; fold surplus cells of long rows
    back into the description, where an unescaped pipe most likely split it."""
    if len(cells) < len(headers):
        problems.append(f"Finding row {row_number} has {len(cells)} cells for {len(headers)} columns.")
        return cells + [""] * (len(headers) - len(cells))
    if len(cells) > len(headers):
        surplus = len(cells) - len(headers)
        problems.append(f"Finding row {row_number} has {surplus} more cell(s) than the table has columns.")
        target = headers.index("description") if "description" in headers else len(headers) - 1
        merged = " | ".join(cells[target : target + surplus + 1])
        return [*cells[:target], merged, *cells[target + surplus + 1 :]]
    return cells


def _finding_from_row(values: dict[str, str], row_number: int, problems: list[str]) -> Finding:
    finding_id = values.get("id", "").strip().strip("*`")
    if not finding_id:
        finding_id = f"F{row_number}"
        problems.append(f"Finding row {row_number} has no ID; it was given {finding_id}.")
    severity = normalise_key(values.get("severity", ""))  # pragma: no mutate: a Severity column always
    if severity not in SEVERITY_RANK:
        # pragma: no mutate start (a finding table always has a Severity column: the default is never used)
        problems.append(f"Finding {finding_id} has an unknown severity {values.get('severity', '')!r}.")
        # pragma: no mutate end
    counter = values.get("counter_location", "").strip()
    extra = {key: value for key, value in values.items() if key not in COLUMNS}
    return Finding(
        id=finding_id,
        severity=severity,
        type=normalise_key(values.get("type", "")).replace(" ", "-"),
        location=values.get("location", "").strip(),
        counter_location=None if normalise_key(counter) in _EMPTY_VALUES else counter,
        description=values.get("description", "").strip(),
        suggestion=values.get("suggestion", "").strip(),
        extra=extra,
    )


def parse_tables(text: str) -> TableParse:
    """Find every Markdown table in ``text``; finding tables become ``Finding`` rows."""
    parsed = TableParse()
    row_number = 0
    for end_offset, lines in _table_blocks(text):
        rows_cells = [split_cells(line) for _, line in lines]
        # Prose with a stray pipe may sit right above the header, so look for
        # the finding header anywhere in the block before falling back.
        header_at = next(
            (
                index
                for index, cells in enumerate(rows_cells)
                if _is_finding_header([_canonical_header(cell) for cell in cells])
            ),
            0,
        )
        header_cells = rows_cells[header_at]
        headers = _unique([_canonical_header(cell) for cell in header_cells])
        body = [cells for cells in rows_cells[header_at + 1 :] if not is_alignment_row(cells)]
        if len(header_cells) < 2 or not body:
            continue
        if not _is_finding_header(headers):
            # pragma: no mutate start (strict=False is the default, and zip stops at the header's length)
            rows = [
                dict(zip(headers, cells + [""] * (len(headers) - len(cells)), strict=False)) for cells in body
            ]
            # pragma: no mutate end
            parsed.other_tables.append(rows)
            continue
        for cells in body:
            if not any(cells):
                continue
            row_number += 1
            fitted = _row_to_cells(cells, headers, row_number, parsed.problems)
            values = dict(zip(headers, fitted, strict=True))  # pragma: no mutate: rows fit the header
            parsed.findings.append(_finding_from_row(values, row_number, parsed.problems))
        parsed.end_offset = max(parsed.end_offset, end_offset)
    return parsed


_HEADING_RE = re.compile(r"^(#{1,6})\s")


def parse_details(text: str, finding_ids: list[str]) -> dict[str, str]:
    """Expanded discussion keyed by finding ID, from the text below the table.

    A details section starts on a line that begins (after a heading mark,
    bullet or bold) with a known ID, such as ``### F1: ...`` or ``**F2** ...``,
    and runs to the next such line or the next heading at the same or a
    higher level."""
    if not finding_ids or not text.strip():
        return {}
    by_upper = {finding_id.upper(): finding_id for finding_id in finding_ids}
    # pragma: no mutate start (the (?![\w-]) after the ids makes their order in the alternation irrelevant)
    id_pattern = "|".join(re.escape(finding_id) for finding_id in sorted(by_upper, key=len, reverse=True))
    # pragma: no mutate end
    start_re = re.compile(
        rf"^\s*+(#{{1,6}}\s++|[-*+]\s++)?[*_`\[]*+\s*+({id_pattern})(?![\w-])", re.IGNORECASE
    )
    details: dict[str, list[str]] = {}
    current: str | None = None
    current_level = 7  # pragma: no mutate: set before it is read
    for line in text.splitlines():
        start = start_re.match(line)
        heading = _HEADING_RE.match(line)
        if start:
            current = by_upper[start.group(2).upper()]
            marker = (start.group(1) or "").strip()  # pragma: no mutate: level 7 either way
            # Not mutated: headings have 1 to 6 hashes, below 7 and 8 alike
            current_level = len(marker) if marker.startswith("#") else 7  # pragma: no mutate
            details.setdefault(current, []).append(line)
            continue
        if heading and current is not None and len(heading.group(1)) <= current_level:
            current = None
            continue
        if current is not None:
            details[current].append(line)
    return {key: "\n".join(lines).strip() for key, lines in details.items()}
