"""Render an ``AggregateReport`` as Markdown (docs/FORMATS.md, Aggregation, step 6):
summary stats, coverage map, unified finding table, expanded details,
conflicts, coverage gaps and the raw text of unparseable responses.

Agent text goes into table cells escaped and into code fences longer than
any backtick run it contains, so it cannot break the report's structure.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re

from ._markdown import escape_cell
from .aggregate import BUCKETS, UNPARSEABLE, AggregateReport

# Enough of an unparseable response to recognise it; the whole text stays in
# ``BucketEntry.raw``.
RAW_EXCERPT_CHARS = 2_000


def _coverage_text(value: object) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"{value}%"
    return "" if value is None else str(value)


def _fenced(text: str) -> str:
    # Not mutated: max(3, longest + 1) is 3 whether a text without backticks counts 0 or 1
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)  # pragma: no mutate
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(escape_cell(cell) for cell in cells) + " |"


def _summary(report: AggregateReport) -> list[str]:
    stats = report.stats
    lines = [
        "# Aggregated result",
        "",
        f"**Status**: {report.status}",
        f"**Sub-runs**: {stats.total} ({stats.completed_percent:g}% completed)",
        f"**Findings**: {stats.findings_merged} after merging {stats.findings_reported} reported "
        f"({stats.duplicates_merged} duplicate(s) merged)",
        "",
        "| Status | Count |",
        "|--------|-------|",
        *(_row([name, str(stats.by_status[name])]) for name in BUCKETS),
        "",
        "| Severity | Count |",
        "|----------|-------|",
        *(_row([name, str(count)]) for name, count in stats.by_severity.items()),
    ]
    return lines


def _coverage(report: AggregateReport) -> list[str]:
    lines = ["", "## Coverage", ""]
    if not report.coverage:
        return [*lines, "No sub-runs."]
    lines += ["| Sub-run | Type | Scope | Status | Coverage | Reason |", "|---|---|---|---|---|---|"]
    for entry in report.coverage.values():
        lines.append(
            _row(
                [
                    entry.label,
                    entry.result_type or "",
                    entry.scope or "",
                    entry.status,
                    _coverage_text(entry.coverage),
                    entry.reason or "",
                ]
            )
        )
    return lines


def _findings(report: AggregateReport) -> list[str]:
    lines = ["", "## Findings", ""]
    if not report.findings:
        return [*lines, "No findings."]
    lines += [
        "| ID | Severity | Type | Location | Counter-location | Description | Suggestion | From |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for finding in report.findings:
        origin = ", ".join(finding.origins) + (" (unsure: kept apart)" if finding.unsure else "")
        lines.append(
            _row(
                [
                    finding.id,
                    finding.severity,
                    finding.type,
                    finding.location,
                    finding.counter_location or "--",
                    finding.description,
                    finding.suggestion,
                    origin,
                ]
            )
        )
    detailed = [finding for finding in report.findings if finding.details]
    if detailed:
        lines += ["", "## Details"]
        for finding in detailed:
            lines += [
                "",
                f"### {finding.id} (from {escape_cell(', '.join(finding.origins))})",
                "",
                # Quoted, so the agent's own headings stay inside this section.
                "\n".join(f"> {line}".rstrip() for line in finding.details.splitlines()),
            ]
    return lines


def _attention(report: AggregateReport) -> list[str]:
    lines: list[str] = []
    if report.conflicts:
        lines += ["", "## Conflicts", ""]  # pragma: no mutate: lines is still empty here: = and += agree
        for conflict in report.conflicts:
            lines.append(
                f"- **{conflict.kind}** — {escape_cell(conflict.subject)}: "
                + "; ".join(escape_cell(assessment) for assessment in conflict.assessments)
            )
    if report.gaps:
        lines += ["", "## Coverage gaps", ""]
        for entry in report.gaps:
            coverage = _coverage_text(entry.coverage)
            state = f"{entry.status}, {coverage}" if coverage else entry.status
            lines.append(
                f"- {escape_cell(entry.label)} ({state}): {escape_cell(entry.reason or 'no reason given')}"
            )
    unparseable = report.buckets[UNPARSEABLE]
    if unparseable:
        lines += ["", "## Unparseable responses"]
        for entry in unparseable:
            excerpt = entry.raw[:RAW_EXCERPT_CHARS]
            more = (
                f"\n\n({len(entry.raw) - RAW_EXCERPT_CHARS} more characters)"
                if len(entry.raw) > RAW_EXCERPT_CHARS
                else ""
            )
            lines += ["", f"### {escape_cell(entry.label)}", "", _fenced(excerpt) if excerpt else "(empty)"]
            if more:
                lines.append(more.strip())
    return lines


def render_markdown(report: AggregateReport) -> str:
    """The aggregated report as Markdown."""
    return "\n".join([*_summary(report), *_coverage(report), *_findings(report), *_attention(report)]) + "\n"
