"""Finding de-duplication and conflict detection for ``aggregate``
(docs/FORMATS.md, Aggregation, step 2 and the conflicts).

Two findings are candidates for the same issue when their location,
counter-location and type match after normalising (a pair of locations in
either order counts as the same pair, since checking A against B and B
against A finds the same contradiction). The bias is conservative
(when unsure, keep both): candidates merge only when their descriptions share most of
their words; otherwise both are kept and marked ``unsure``.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ._markdown import normalise_key
from .findings import Finding
from .result import AgentResult

# Share of the shorter description's words found in the longer one above
# which two findings under one key are taken to be the same issue.
SAME_ISSUE_OVERLAP = 0.6
_STOPWORDS = frozenset(
    "the and but for not are was were has have had with from this that these those into than then its "
    "there their they which what when where who why how all any can does doc section".split()
)


@dataclass(frozen=True, slots=True)
class MergedFinding:
    """A finding of the aggregated report. ``origins`` names every original
    finding (``label:F1``) it stands for; ``unsure`` marks findings that share
    location, counter-location and type with another kept finding that seemed
    to describe a different issue."""

    id: str
    severity: str
    type: str
    location: str
    counter_location: str | None
    description: str
    suggestion: str
    details: str
    sources: tuple[str, ...]
    origins: tuple[str, ...]
    unsure: bool = False


@dataclass(frozen=True, slots=True)
class Conflict:
    """Two or more assessments that disagree, reported side by side.

    ``kind`` is ``severity`` (same issue, different severity), ``status`` (one
    sub-run says CLEAN where another flags findings) or ``self`` (a sub-run
    says CLEAN yet lists findings)."""

    kind: str
    subject: str
    assessments: tuple[str, ...]


def _rank(finding: Finding) -> int:
    return finding.severity_rank


def _origin(finding: Finding) -> str:
    return f"{finding.source}:{finding.id}" if finding.source else finding.id


def dedupe_key(finding: Finding) -> tuple[str, str, str]:
    """Normalised (location, counter-location, type), the pair in sorted order."""
    location = normalise_key(finding.location)
    counter = normalise_key(finding.counter_location or "")
    if counter:
        location, counter = sorted((location, counter))
    return location, counter, finding.type


def _words(text: str) -> set[str]:
    return {word for word in re.findall(r"[a-z0-9]+", normalise_key(text)) if len(word) > 2} - _STOPWORDS


def same_issue(first: Finding, second: Finding) -> bool:
    """Whether two findings under one key describe the same issue. With no
    description to compare there is nothing to tell them apart, so they merge."""
    first_words, second_words = _words(first.description), _words(second.description)
    if not first_words or not second_words:
        return True
    shared = len(first_words & second_words)
    return shared / min(len(first_words), len(second_words)) >= SAME_ISSUE_OVERLAP


def _detail(finding: Finding) -> int:
    return len(finding.description) + len(finding.details)


def _merge(cluster: list[Finding], unsure: bool) -> MergedFinding:
    base = max(cluster, key=_detail)
    return MergedFinding(
        id=base.id,
        severity=min(cluster, key=_rank).severity,
        type=base.type,
        location=base.location,
        counter_location=base.counter_location,
        description=base.description,
        suggestion=base.suggestion or next((f.suggestion for f in cluster if f.suggestion), ""),
        details=base.details or next((f.details for f in cluster if f.details), ""),
        sources=tuple(dict.fromkeys(f.source for f in cluster if f.source)),
        origins=tuple(_origin(f) for f in cluster),
        unsure=unsure,
    )


def _subject(finding: Finding) -> str:
    where = finding.location or "(no location)"
    if finding.counter_location:
        where = f"{where} vs {finding.counter_location}"
    return f"{where} ({finding.type or 'untyped'})"


def merge_findings(findings: Sequence[Finding]) -> tuple[list[MergedFinding], list[Conflict]]:
    """De-duplicate ``findings``; return the merged findings (in first-seen
    order, ids not yet renumbered) and the severity conflicts found."""
    groups: dict[tuple[str, str, str], list[list[Finding]]] = {}
    for finding in findings:
        clusters = groups.setdefault(dedupe_key(finding), [])
        for cluster in clusters:
            if same_issue(max(cluster, key=_detail), finding):
                cluster.append(finding)
                break
        else:
            clusters.append([finding])
    merged: list[MergedFinding] = []
    conflicts: list[Conflict] = []
    for clusters in groups.values():
        sources = {finding.source for cluster in clusters for finding in cluster}
        unsure = len(clusters) > 1 and len(sources) > 1
        for cluster in clusters:
            merged.append(_merge(cluster, unsure))
            if len({finding.severity for finding in cluster}) > 1:
                conflicts.append(
                    Conflict(
                        "severity",
                        _subject(cluster[0]),
                        tuple(f"{_origin(finding)}: {finding.severity or 'unknown'}" for finding in cluster),
                    )
                )
    return merged, conflicts


def _scope_names(result: AgentResult) -> set[str]:
    """The scope written both ways round for a doc pair, so A/B matches B/A."""
    names = {normalise_key(result.scope or "")} - {""}
    pair = result.metrics.get("pair")
    if isinstance(pair, str) and pair.count("/") == 1:
        first, second = pair.split("/")
        names.add(normalise_key(f"{second}/{first}"))
    return names


def _scope_docs(result: AgentResult) -> list[str]:
    """The documents a sub-run covered, for matching against finding locations."""
    pair = result.metrics.get("pair")
    if isinstance(pair, str) and pair.count("/") == 1:
        parts = pair.split("/")
    elif result.metadata.scope:
        parts = re.split(r",|;|\band\b", result.metadata.scope)
    else:
        doc = result.metrics.get("doc")
        parts = [doc] if isinstance(doc, str) else []
    return [name for name in (normalise_key(part) for part in parts) if name]


def _flags(clean: AgentResult, other: AgentResult) -> list[Finding]:
    docs = _scope_docs(clean)
    if not docs:
        return []
    return [
        finding
        for finding in other.findings
        if all(doc in normalise_key(f"{finding.location} {finding.counter_location or ''}") for doc in docs)
    ]


def detect_status_conflicts(results: Sequence[tuple[str, AgentResult]]) -> list[Conflict]:
    """Sub-runs that say CLEAN where another sub-run of the same type, on the
    same scope or the same documents, reports findings; and sub-runs that
    contradict themselves."""
    conflicts: list[Conflict] = []
    for label, result in results:
        if result.status == "CLEAN" and result.findings:
            ids = ", ".join(finding.id for finding in result.findings)
            conflicts.append(Conflict("self", label, (f"{label}: CLEAN", f"{label}: lists findings {ids}")))
    for label, clean in results:
        if clean.status != "CLEAN" or not clean.conformant:
            continue
        for other_label, other in results:
            if other_label == label or other.status == "CLEAN":
                continue
            if clean.result_type and other.result_type and clean.result_type != other.result_type:
                continue
            flagged = _flags(clean, other)
            same_scope = bool(_scope_names(clean) & _scope_names(other)) and other.status == "FINDINGS"
            if flagged or same_scope:
                ids = ", ".join(finding.id for finding in (flagged or other.findings)) or "no table"
                conflicts.append(
                    Conflict(
                        "status",
                        clean.scope or label,
                        (f"{label}: CLEAN", f"{other_label}: {other.status} ({ids})"),
                    )
                )
    return conflicts
