"""Combine N sub-agent results into one report (docs/FORMATS.md, Aggregation).

Collect into status buckets, merge the finding tables, de-duplicate by
location + counter-location + type, renumber G1, G2, ... after sorting by
severity, type and location, and count. Nothing is silently discarded,
not even from a partial result: every input lands in a bucket with its raw text, every finding
is either kept or named in the ``origins`` of the finding it merged into, and
disagreements are reported as ``conflicts``.

A response with no readable RESULT line goes to the ``unparseable`` bucket
(step 1); its status is still PARTIAL (docs/FORMATS.md, Graceful
degradation) and its findings are still merged.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ._markdown import normalise_key
from .dedupe import Conflict, MergedFinding, detect_status_conflicts, merge_findings
from .findings import SEVERITY_ORDER, Finding, severity_rank
from .result import STATUSES, AgentResult, parse_result

UNPARSEABLE = "unparseable"
BUCKETS = (*STATUSES, UNPARSEABLE)


@dataclass(frozen=True, slots=True)
class BucketEntry:
    """One input as filed: its (unique) label, the parsed result (None when
    the input was None) and the raw text, kept so nothing disappears."""

    label: str
    bucket: str
    result: AgentResult | None
    raw: str
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class CoverageEntry:
    """What one sub-run covered and how far it got."""

    label: str
    scope: str | None
    result_type: str | None
    status: str
    coverage: object
    reason: str | None


@dataclass(frozen=True, slots=True)
class AggregateStats:
    """Counts for the summary. ``completed_percent`` is the share of sub-runs
    that finished (CLEAN or FINDINGS); ``findings_reported`` counts rows before
    de-duplication, ``findings_merged`` after."""

    total: int
    by_status: dict[str, int]
    by_severity: dict[str, int]
    findings_reported: int
    findings_merged: int
    duplicates_merged: int
    completed_percent: float


@dataclass(slots=True)
class AggregateReport:
    buckets: dict[str, list[BucketEntry]]
    findings: list[MergedFinding]
    conflicts: list[Conflict]
    stats: AggregateStats
    coverage: dict[str, CoverageEntry]

    @property
    def status(self) -> str:
        """FINDINGS when anything was found; otherwise ERROR when every sub-run
        failed, PARTIAL when some did not finish (or there were none), CLEAN
        when all finished clean."""
        if self.findings or self.buckets["FINDINGS"]:
            return "FINDINGS"
        total = self.stats.total
        if total and len(self.buckets["ERROR"]) == total:
            return "ERROR"
        if not total or any(self.buckets[name] for name in ("PARTIAL", "ERROR", UNPARSEABLE)):
            return "PARTIAL"
        return "CLEAN"

    @property
    def gaps(self) -> list[CoverageEntry]:
        """Sub-runs that did not finish: the report's coverage gaps (step 6)."""
        return [entry for entry in self.coverage.values() if entry.status not in ("CLEAN", "FINDINGS")]


def _unique_labels(labels: list[str]) -> list[str]:
    """Make labels unique (``a``, ``a #2``) so the coverage map keeps every input."""
    seen: dict[str, int] = {}
    unique = []
    for label in labels:
        label = label or "result"
        seen[label] = seen.get(label, 0) + 1
        unique.append(label if seen[label] == 1 else f"{label} #{seen[label]}")
    return unique


def _file(label: str, item: AgentResult | str | None) -> BucketEntry:
    if item is None:
        return BucketEntry(label, UNPARSEABLE, None, "", "No response was received.")
    if not isinstance(item, AgentResult):
        # Not mutated: parse_result turns a non-str into its text itself, and str() of a str is itself
        item = parse_result(item if isinstance(item, str) else str(item), source=label)  # pragma: no mutate
    else:
        # A copy, so the caller's result is not changed by labelling its findings.
        item = replace(
            item,
            findings=[
                finding if finding.source else replace(finding, source=label) for finding in item.findings
            ],
        )
    if not item.conformant:
        reason = item.problems[0] if item.problems else "The response has no RESULT line."
        return BucketEntry(label, UNPARSEABLE, item, item.raw, reason)
    reason = item.reason if item.status in ("PARTIAL", "ERROR") else None
    return BucketEntry(label, item.status, item, item.raw, reason)


def _coverage(entry: BucketEntry) -> CoverageEntry:
    result = entry.result
    if result is None:
        return CoverageEntry(entry.label, None, None, entry.bucket, None, entry.reason)
    return CoverageEntry(
        entry.label, result.scope, result.result_type, entry.bucket, result.coverage, entry.reason
    )


def _sort_key(finding: MergedFinding) -> tuple[int, str, str, str, str]:
    return (
        severity_rank(finding.severity),
        finding.type,
        normalise_key(finding.location),
        normalise_key(finding.counter_location or ""),
        normalise_key(finding.description),
    )


def aggregate(results: Sequence[tuple[str, AgentResult | str | None]]) -> AggregateReport:
    """Aggregate ``(label, result)`` pairs; a result may be parsed, raw text,
    or None for a sub-run that returned nothing."""
    labels = _unique_labels([str(label) for label, _ in results])
    # pragma: no mutate start (labels are made from results, so the two always have the same length)
    entries = [_file(label, item) for label, (_, item) in zip(labels, results, strict=True)]
    # pragma: no mutate end
    buckets: dict[str, list[BucketEntry]] = {name: [] for name in BUCKETS}
    for entry in entries:
        buckets[entry.bucket].append(entry)

    all_findings: list[Finding] = [
        finding for entry in entries if entry.result is not None for finding in entry.result.findings
    ]
    merged, conflicts = merge_findings(all_findings)
    merged.sort(key=_sort_key)
    merged = [replace(finding, id=f"G{number}") for number, finding in enumerate(merged, start=1)]
    conflicts.extend(
        detect_status_conflicts(
            [(entry.label, entry.result) for entry in entries if entry.result is not None]
        )
    )

    by_severity = dict.fromkeys(SEVERITY_ORDER, 0)
    for finding in merged:
        by_severity[finding.severity or "unknown"] = by_severity.get(finding.severity or "unknown", 0) + 1
    completed = len(buckets["CLEAN"]) + len(buckets["FINDINGS"])
    stats = AggregateStats(
        total=len(entries),
        by_status={name: len(bucket) for name, bucket in buckets.items()},
        by_severity=by_severity,
        findings_reported=len(all_findings),
        findings_merged=len(merged),
        duplicates_merged=len(all_findings) - len(merged),
        completed_percent=round(100 * completed / len(entries), 1) if entries else 0.0,
    )
    coverage = {entry.label: _coverage(entry) for entry in entries}
    return AggregateReport(buckets, merged, conflicts, stats, coverage)
