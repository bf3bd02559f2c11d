"""Reads used by the consumer (kept out of it so it stays thin)."""

from __future__ import annotations

from django.db.models import Max, Q

from progress import broadcast, timeline
from progress.models import ProgressEvent

# Timeline items a page shows at first, per list; earlier ones load on demand,
# so a run of tens of thousands of events still opens at once.
TIMELINE_PAGE = 200
PARTS = ("primary", "details")
SVG_KINDS = ("run_start", "phase", "tool_start", "tool_end", "heartbeat", "end")


def question_owned_by(question_id: int, user) -> bool:
    from researchmind.models import Question

    return Question.objects.owned_by(user).filter(pk=question_id).exists()


def events_after(question_id: int, after: int, limit: int) -> list[dict]:
    rows = ProgressEvent.objects.filter(question_id=question_id, seq__gt=after).order_by("seq")[:limit]
    return [broadcast.event_dict(row) for row in rows]


def answer_message(question_id: int) -> dict:
    """The final answer with its citations, as sent to programs after ``end``."""
    from researchmind.models import Question
    from researchmind.serializers import question_payload

    question = Question.objects.select_related("session").get(pk=question_id)
    return {"type": "answer", **question_payload(question, with_citations=True)}


def _part(part: str) -> Q:
    """The events ``timeline.placement`` puts in ``part``, as a query."""
    shown = ~Q(kind__in=timeline.HIDDEN)
    if part == "primary":
        return shown & Q(stage="primary") & ~Q(kind__in=timeline.DETAIL_ONLY)
    return shown & (Q(kind__in=timeline.DETAIL_ONLY) | ~Q(stage="primary"))


def timeline_page(
    question_id: int, part: str, *, before: int | None = None, limit: int = TIMELINE_PAGE
) -> tuple[list[dict], int]:
    """The last ``limit`` items of one list (before seq ``before``), oldest
    first and decorated for the template, and how many earlier ones remain."""
    rows = ProgressEvent.objects.filter(question_id=question_id).filter(_part(part))
    if before is not None:
        rows = rows.filter(seq__lt=before)
    page = list(rows.order_by("-seq")[:limit])[::-1]
    earlier = rows.filter(seq__lt=page[0].seq).count() if page else 0
    events = [broadcast.event_dict(row) for row in page]
    if part != "primary":
        return [timeline.decorate(event) for event in events], earlier
    tool_ids = [
        (event["payload"] or {}).get("tool_use_id") for event in events if event["kind"] == "tool_start"
    ]
    closed = {}
    if tool_ids:
        ends = ProgressEvent.objects.filter(
            question_id=question_id, kind="tool_end", payload__tool_use_id__in=[t for t in tool_ids if t]
        ).values_list("payload", flat=True)
        closed = {payload.get("tool_use_id"): bool(payload.get("is_error")) for payload in ends}
    return [timeline.decorate(event, closed) for event in events], earlier


def page_state(question_id: int, *, finished: bool) -> dict:
    """What the question page needs besides the two lists, without loading
    every event: the last seq, the current phase, the streamed text so far
    (running only) and the events the finished run's SVG timeline draws."""
    events = ProgressEvent.objects.filter(question_id=question_id)
    phase = events.filter(kind="phase").order_by("-seq").first()
    state = {
        "last_seq": events.aggregate(m=Max("seq"))["m"] or 0,
        "phase_event": broadcast.event_dict(phase) if phase is not None else None,
        "live_text": "",
        "svg_events": [],
    }
    if finished:
        state["svg_events"] = [
            broadcast.event_dict(e) for e in events.filter(kind__in=SVG_KINDS).order_by("seq")
        ]
    else:
        texts = events.filter(kind__in=("text", "text_delta")).order_by("seq")
        state["live_text"] = timeline.live_text([broadcast.event_dict(e) for e in texts])
    return state
