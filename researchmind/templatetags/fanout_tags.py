"""Template data for a fan-out question's lanes and report, one query each,
so the question page can include them with nothing but ``question``."""

from __future__ import annotations

from django import template
from django.db.models import OuterRef, Subquery

register = template.Library()

STEP_KINDS = ("run_start", "tool_start", "phase", "citations", "cancelling", "end", "stderr")


def _label(sub) -> str:
    return (sub.protocol or {}).get("fanout_run", {}).get("label") or f"Sub-run {sub.pk}"


@register.simple_tag
def fanout_lanes(question) -> list[dict]:
    """Each sub-run with its label, latest phase and latest step."""
    from progress.models import ProgressEvent

    events = ProgressEvent.objects.filter(question=OuterRef("pk")).order_by("-seq")
    subs = question.sub_runs.order_by("pk").annotate(
        phase_name=Subquery(events.filter(kind="phase").values("phase")[:1]),
        phase_step=Subquery(events.filter(kind="phase").values("step")[:1]),
        phase_total=Subquery(events.filter(kind="phase").values("total")[:1]),
        latest_step=Subquery(events.filter(kind__in=STEP_KINDS, stage="primary").values("detail")[:1]),
    )
    return [{"sub": sub, "label": _label(sub)} for sub in subs]


@register.simple_tag
def fanout_citations(question) -> list[dict]:
    """The sub-runs' citations (verified by the normal path), grouped by sub-run."""
    from citations.models import Citation

    groups: dict[int, dict] = {}
    rows = (
        Citation.objects.filter(question__parent=question)
        .select_related("question")
        .order_by("question_id", "position")
    )
    for citation in rows:
        group = groups.setdefault(
            citation.question_id,
            {"sub": citation.question, "label": _label(citation.question), "citations": []},
        )
        group["citations"].append(citation)
    return list(groups.values())
