"""Parse one sub-agent response written in the Structured Agent Result Protocol
(docs/FORMATS.md): the RESULT summary line, the metadata block and the detail
section with its finding table.

Graceful degradation is the rule (docs/FORMATS.md, Graceful degradation): a response without a
RESULT line, or with one we cannot read, becomes ``PARTIAL`` with a problem
noted, and its text is kept in ``raw``. ``parse_result`` never raises on any
text.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from ._markdown import strip_markup
from .findings import Finding, parse_details, parse_tables
from .summary_line import FANOUT_RESULT_TYPES, RESULT_TYPES, STATUSES, find_summary_line, parse_summary_line

__all__ = ["FANOUT_RESULT_TYPES", "RESULT_TYPES", "STATUSES", "AgentResult", "ResultMetadata", "parse_result"]

METADATA_KEYS = ("protocol", "agent", "assigned", "scope", "coverage", "confidence")
_METADATA_LINE_RE = re.compile(
    # Linear time: possessive runs of spaces; the value's trailing spaces are stripped by the caller.
    r"^\s*+(?:[-+]\s++)?[*_]*+\s*+(protocol|agent|assigned|scope|coverage|confidence)\s*+[*_]*+\s*+:\s*+[*_]*+"
    r"\s*+(.*)$",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class ResultMetadata:
    """The metadata block (docs/FORMATS.md, Metadata block); ``None`` when absent."""

    protocol: str | None = None
    agent: str | None = None
    assigned: str | None = None
    scope: str | None = None
    coverage: str | None = None
    confidence: str | None = None


@dataclass(slots=True)
class AgentResult:
    """One parsed sub-agent response.

    ``status`` is what the orchestrator acts on; ``declared_status`` is what
    the RESULT line said (``None`` without one). ``conformant`` is False when
    the RESULT line was missing or unreadable. ``metrics`` holds the summary
    line's ``Key: value`` pairs with snake_case keys, ints where numeric,
    ``(passed, total)`` for Criteria/Tests and a number for a ``Coverage``
    percentage. ``tables`` keeps the rows of tables that are not finding
    tables, such as the verification checklist."""

    status: str
    result_type: str | None
    metrics: dict[str, object]
    metadata: ResultMetadata
    findings: list[Finding]
    details: dict[str, str]
    raw: str
    summary_line: str | None = None
    declared_status: str | None = None
    conformant: bool = False
    tables: list[list[dict[str, str]]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def coverage(self) -> object:
        """Coverage from the summary line, else from the metadata block."""
        return self.metrics.get("coverage", self.metadata.coverage)

    @property
    def reason(self) -> str | None:
        reason = self.metrics.get("reason")
        return reason if isinstance(reason, str) else None

    @property
    def confidence(self) -> str | None:
        """The metadata Confidence on the answer scale (HIGH, MEDIUM, LOW), or None."""
        confidence = (self.metadata.confidence or "").upper()
        return confidence if confidence in ("HIGH", "MEDIUM", "LOW") else None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data for storage; ``raw`` is left out because the
        caller already holds the text it parsed."""
        return {
            "status": self.status,
            "result_type": self.result_type,
            "declared_status": self.declared_status,
            "conformant": self.conformant,
            "summary_line": self.summary_line,
            "metrics": {
                key: list(value) if isinstance(value, tuple) else value for key, value in self.metrics.items()
            },
            "metadata": asdict(self.metadata),
            "findings": [asdict(finding) for finding in self.findings],
            "details": dict(self.details),
            "tables": self.tables,
            "problems": list(self.problems),
        }

    @property
    def scope(self) -> str | None:
        """What the sub-run covered: the pair, doc, task or screen of the summary
        line, else the metadata Scope."""
        for key in ("pair", "doc", "task", "screen"):
            value = self.metrics.get(key)
            if isinstance(value, str) and value:
                return value
        return self.metadata.scope


def _parse_metadata(lines: list[str], problems: list[str]) -> tuple[ResultMetadata, int]:
    """Read the metadata block at the top of ``lines``; return it and the index
    of the first detail line. Key lines are read until the first other line
    once one was seen; a response with no key line in its first ten non-blank
    lines has no metadata block."""
    values: dict[str, str] = {}
    non_blank = 0
    end = 0  # pragma: no mutate: overwritten on every key line before it is read
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or stripped == "---":
            end = index + 1  # pragma: no mutate: one line earlier holds no table or details
            continue
        match = _METADATA_LINE_RE.match(line)
        if match:
            # pragma: no mutate start (strip_markup strips the value's ends again)
            values.setdefault(match.group(1).lower(), strip_markup(match.group(2).rstrip()))
            # pragma: no mutate end
            end = index + 1
            continue
        if values or non_blank >= 10:
            break
        non_blank += 1
    if not values:
        return ResultMetadata(), 0
    confidence = values.get("confidence")
    if confidence is not None and confidence.lower() in ("high", "medium", "low"):
        values["confidence"] = confidence.lower()
    elif confidence is not None:
        problems.append(f"The metadata Confidence {confidence!r} is not high, medium or low.")
    missing = [key for key in METADATA_KEYS if key not in values]
    if missing:
        problems.append(f"The metadata block lacks {', '.join(key.capitalize() for key in missing)}.")
    # Lines skipped above a late metadata block may hold a table: then the
    # detail section is the whole body, so nothing above is lost.
    return ResultMetadata(**values), 0 if non_blank else end


def parse_result(text: str, *, source: str = "") -> AgentResult:
    """Parse one sub-agent response. ``source`` labels its findings (which
    sub-run they came from). Never raises; see ``AgentResult.problems``."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    result = AgentResult(  # pragma: no mutate: details is replaced before the result is returned
        status="PARTIAL",
        result_type=None,
        metrics={},
        metadata=ResultMetadata(),
        findings=[],
        details={},
        raw=text,
    )
    if not text.strip():
        result.problems.append("The response is empty; it is treated as PARTIAL.")
        return result
    match = find_summary_line(text)
    if match is None:
        result.problems.append("The response has no RESULT line; it is treated as PARTIAL.")
        body = text
    else:
        line = parse_summary_line(match)
        if text[: match.start()].strip():
            result.problems.append("The RESULT line is not the first line of the response.")
        result.summary_line, result.declared_status = line.text, line.declared_status
        result.result_type, result.metrics = line.result_type, line.metrics
        result.problems.extend(line.problems)
        if line.status is not None:
            result.status, result.conformant = line.status, True
        body = text[match.end() :]
    lines = body.splitlines()
    result.metadata, detail_start = _parse_metadata(lines, result.problems)
    if match is not None and not any(getattr(result.metadata, key) for key in METADATA_KEYS):
        result.problems.append("The response has no metadata block.")
    detail = "\n".join(lines[detail_start:])
    tables = parse_tables(detail)
    result.problems.extend(tables.problems)
    result.tables = tables.other_tables
    details = parse_details(detail[tables.end_offset :], [finding.id for finding in tables.findings])
    result.details = details
    result.findings = [
        replace(finding, details=details.get(finding.id, ""), source=source) for finding in tables.findings
    ]
    _check_findings(result)
    return result


def _check_findings(result: AgentResult) -> None:
    if result.status == "CLEAN" and result.findings:
        result.problems.append(f"The response says CLEAN but lists {len(result.findings)} finding(s).")
    declared = result.metrics.get("findings")
    if isinstance(declared, int) and result.findings and declared != len(result.findings):
        result.problems.append(
            f"The RESULT line counts {declared} finding(s) but the table has {len(result.findings)}."
        )
    if result.status == "FINDINGS" and result.result_type == "consistency" and not result.findings:
        result.problems.append("The consistency response says FINDINGS but has no finding table.")
