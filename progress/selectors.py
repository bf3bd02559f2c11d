"""Reads of the event log: a question's events after a seq, its timeline pages,
its run summary (kept out of the consumer and the pages so they stay thin)."""

from __future__ import annotations

from datetime import datetime

from django.db.models import Max, Q

from core import timeline
from core.svgtimeline import render_svg
from progress import broadcast
from progress.models import ProgressEvent

# Timeline items a page shows at first, per list; earlier ones load on demand,
# so a run of tens of thousands of events still opens at once.
TIMELINE_PAGE = 200
# A finished run's page leads with its answer and the run's summary; its lists
# open with their last steps only, so the page costs the same however long the run.
FINISHED_TIMELINE_PAGE = 50
PARTS = ("primary", "details")
SVG_KINDS = ("run_start", "phase", "tool_start", "tool_end", "heartbeat", "end")


def events_after(question_id: int, after: int, limit: int) -> list[dict]:
    rows = ProgressEvent.objects.filter(question_id=question_id, seq__gt=after).order_by("seq")[:limit]
    return [broadcast.event_dict(row) for row in rows]


def _part(part: str) -> Q:
    """The events ``timeline.placement`` puts in ``part``, as a query."""
    shown = ~Q(kind__in=timeline.HIDDEN)
    if part == "primary":
        return shown & Q(stage="primary") & ~Q(kind__in=timeline.DETAIL_ONLY)
    return shown & (Q(kind__in=timeline.DETAIL_ONLY) | ~Q(stage="primary"))


def timeline_page(
    question_id: int,
    part: str,
    *,
    before: int | None = None,
    limit: int = TIMELINE_PAGE,
    total: int | None = None,
) -> tuple[list[dict], int]:
    """The last ``limit`` items of one list (before seq ``before``), oldest
    first and decorated for the template, and how many earlier ones remain.
    ``total`` (a finished run's item count, from its summary) spares counting."""
    rows = ProgressEvent.objects.filter(question_id=question_id).filter(_part(part))
    if before is not None:
        rows = rows.filter(seq__lt=before)
    page = list(rows.order_by("-seq")[:limit])[::-1]
    if not page:
        earlier = 0
    elif total is not None and before is None:
        earlier = max(0, total - len(page))
    else:
        earlier = rows.filter(seq__lt=page[0].seq).count()
    events = [broadcast.event_dict(row) for row in page]
    if part != "primary":
        return [timeline.decorate(event) for event in events], earlier
    tool_ids = [
        (event["payload"] or {}).get("tool_use_id") for event in events if event["kind"] == "tool_start"
    ]
    closed = {}
    if tool_ids:
        # A step's result comes after its start: only rows from the page's first start on.
        first = min(event["seq"] for event in events if event["kind"] == "tool_start")
        ends = ProgressEvent.objects.filter(
            question_id=question_id,
            kind="tool_end",
            seq__gt=first,
            payload__tool_use_id__in=[t for t in tool_ids if t],
        ).values_list("payload", flat=True)
        closed = {payload.get("tool_use_id"): bool(payload.get("is_error")) for payload in ends}
    return [timeline.decorate(event, closed) for event in events], earlier


def files_read(question_id: int) -> list[str]:
    """The files the engine's tools opened, in order of first use."""
    rows = ProgressEvent.objects.filter(question_id=question_id, kind="tool_start").values_list(
        "payload", flat=True
    )
    paths = (
        payload["input"].get("file_path")
        for payload in rows
        if isinstance(payload, dict) and isinstance(payload.get("input"), dict)
    )
    return list(dict.fromkeys(path for path in paths if isinstance(path, str) and path))


def run_summary(question_id: int) -> dict:
    """A finished run at a glance: its timeline picture, the files it read,
    how many steps and events it took and how long. Read once, as the run
    ends; the page shows it without reading the events again."""
    events = ProgressEvent.objects.filter(question_id=question_id)
    drawn = [broadcast.event_dict(e) for e in events.filter(kind__in=SVG_KINDS).order_by("seq")]
    times = [event["created_at"] for event in drawn if event["created_at"]]
    seconds = 0.0
    if times:
        seconds = (datetime.fromisoformat(max(times)) - datetime.fromisoformat(min(times))).total_seconds()
    files = files_read(question_id)
    return {
        "items": {part: events.filter(_part(part)).count() for part in PARTS},
        "svg": render_svg(drawn),
        "files_read": files,
        "steps": sum(1 for event in drawn if event["kind"] == "tool_start"),
        "events": events.count(),
        "seconds": round(seconds, 3),
    }


def page_state(question_id: int, *, finished: bool) -> dict:
    """What the question page needs besides the two lists, without loading
    every event: the last seq, the current phase, the streamed text so far
    (running only)."""
    events = ProgressEvent.objects.filter(question_id=question_id)
    # The last seq first: the page's socket replays what comes after it, so
    # what is read here stops at it (a later event shown here too would be doubled).
    last_seq = events.aggregate(m=Max("seq"))["m"] or 0
    phase = events.filter(kind="phase", seq__lte=last_seq).order_by("-seq").first()
    state = {
        "last_seq": last_seq,
        "phase_event": broadcast.event_dict(phase) if phase is not None else None,
        "live_text": "",
    }
    if finished:
        pass  # the picture comes from the run's summary (``run_summary``)
    else:
        # The run may have ended since the question was read (the end event is
        # recorded after the question's final state is committed).
        state["ended"] = events.filter(kind="end").exists()
        texts = events.filter(kind__in=("text", "text_delta"), seq__lte=last_seq).order_by("seq")
        state["live_text"] = timeline.live_text([broadcast.event_dict(e) for e in texts])
    return state
