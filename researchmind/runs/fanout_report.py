"""What a fan-out parent aggregates and stores: each sub-run's result text
(an ERROR result written for a sub-run that failed, so it lands in the ERROR
bucket with its reason) and the JSON-ready form of the aggregated report kept
in ``protocol["aggregate"]``."""

from __future__ import annotations

from dataclasses import asdict

from core.protocols.findings import severity_rank

_SCOPE_METRIC = {"digest": "Doc", "consistency": "Pair", "verification": "Items"}


def _one_line(text: str) -> str:
    return " ".join((text or "").split()).replace("|", "\\|")


def result_text(sub, result_type: str) -> str:
    """The text to aggregate for one sub-run. A sub-run that completed (or
    stopped part-way with text) is judged on its own answer; one that failed,
    was cancelled or never ran is reported as an ERROR result saying why."""
    if sub.status in ("complete", "partial") and (sub.answer or "").strip():
        return sub.answer
    reason = sub.error or {
        "cancelled": "The sub-run was cancelled.",
        "interrupted": "The sub-run was interrupted.",
        "queued": "The sub-run never started.",
        "running": "The sub-run did not finish.",
    }.get(sub.status, "The sub-run ended without an answer.")
    scope = ", ".join(f"{item}/" for item in sub.sub_run_spec.get("items", []))
    metric = _SCOPE_METRIC.get(result_type, "Doc")
    value = "0" if metric == "Items" else scope
    return (
        "\n".join(
            [
                f"RESULT: ERROR | Type: {result_type} | {metric}: {value} | Coverage: 0% | Reason: {_one_line(reason)}",
                "",
                "Protocol: v1",
                f"Agent: {sub.engine}",
                f"Assigned: sub-run {sub.pk}",
                f"Scope: {scope}",
                "Coverage: 0%",
                "Confidence: low",
                "",
                reason,
            ]
        )
        + "\n"
    )


def _plain(value):
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def report_dict(report, subs) -> dict:
    """The aggregated report as plain JSON data, each sub-run linked by id."""
    by_label = {}
    for sub in subs:
        by_label[sub.sub_run_label] = sub
    coverage = []
    for label, entry in report.coverage.items():
        sub = by_label.get(label)
        coverage.append(
            _plain(asdict(entry))
            | {
                "question_id": sub.pk if sub else None,
                "run_status": sub.status if sub else "",
                "confidence": sub.confidence if sub else "",
                "coverage_text": _coverage_text(entry.coverage),
                # The items it covered by title (its scope is their folders' UUIDs).
                "scope_titles": sub.sub_run_label if sub else "",
            }
        )
    findings = [
        _plain(asdict(f))
        | {
            "severity_rank": severity_rank(f.severity),
            "from": [
                {"label": s, "question_id": by_label[s].pk if s in by_label else None} for s in f.sources
            ],
        }
        for f in report.findings
    ]
    return {
        "status": report.status,
        "stats": _plain(asdict(report.stats)),
        "buckets": {name: [entry.label for entry in entries] for name, entries in report.buckets.items()},
        "coverage": coverage,
        "findings": findings,
        "conflicts": [_plain(asdict(c)) for c in report.conflicts],
        "unparseable": [
            {"label": e.label, "reason": e.reason or "", "raw": e.raw[:20_000]}
            for e in report.buckets.get("unparseable", [])
        ],
        "severities": sorted({f["severity"] for f in findings if f["severity"]}),
        "types": sorted({f["type"] for f in findings if f["type"]}),
    }


def _coverage_text(value) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"{value:g}%"
    return "" if value is None else str(value)


_STATUS_WORDS = {
    "CLEAN": "found nothing to report",
    "FINDINGS": "reported findings",
    "PARTIAL": "covered part of its scope",
    "BLOCKED": "was blocked",
    "ERROR": "failed",
    "unparseable": "answered in a form that could not be read",
}


def lead_paragraph(question_text: str, report: dict) -> str:
    """The aggregated report's first paragraph, in words: what was asked of how
    many items, what they came back with, and the worst findings."""
    stats = report.get("stats") or {}
    total = stats.get("total", 0)
    parts = []
    for name, count in (stats.get("by_status") or {}).items():
        if count:
            subject = "all" if count == total and total > 1 else str(count)
            parts.append(f"{subject} {_STATUS_WORDS.get(name, name.lower())}")
    findings = stats.get("findings_merged", 0)
    severities = ", ".join(
        f"{count} {severity}" for severity, count in (stats.get("by_severity") or {}).items() if count
    )
    found = (
        f"{findings} finding{'s' * (findings != 1)} after merging duplicates"
        + (f" ({severities})" if severities else "")
        + "."
        if findings
        else "No findings."
    )
    runs = f"{total} sub-run{'s' * (total != 1)}"
    return f"“{question_text}” was asked of {runs}: {'; '.join(parts) or 'none finished'}. {found}"
