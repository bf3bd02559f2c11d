"""HTML fragments for the htmx page: the same partials the question page
renders, wrapped for out-of-band swaps by the ws extension."""

from __future__ import annotations

from django.template.loader import render_to_string
from django.utils.html import escape

from core import timeline
from progress.broadcast import event_dict
from progress.models import ProgressEvent
from researchmind.models import Question
from researchmind.pages import fanout_lanes, question_context

PAGE = "researchmind/question_detail.html"
# A fan-out parent's own events when a sub-run starts or ends: the lanes are
# re-rendered then (the page holds one websocket and polls nothing).
FANOUT_KINDS = frozenset({"subrun", "cancelling"})


def _item(event: dict, **extra) -> str:
    return render_to_string(f"{PAGE}#event", {"event": event, **extra})


def render_events_html(question_id: int, events: list[dict]) -> str:
    parts: list[str] = []
    primary: list[str] = []
    details: list[str] = []
    live_text: list[str] = []
    reset_live = False
    closed: list[str] = []
    phase_event = None
    ended = False
    starts = {}
    for event in events:
        kind = event["kind"]
        where = timeline.placement(event)
        if (
            kind == "text"
            and event["payload"].get("abandoned")
            and not event["payload"].get("parent_tool_use_id")
        ):
            live_text.clear()
            reset_live = True
        if kind == "text_delta":
            if not event["payload"].get("parent_tool_use_id"):
                live_text.append(event["payload"].get("text", ""))
            continue
        item = timeline.decorate(event)
        if kind == "tool_start":
            starts[event["payload"].get("tool_use_id")] = item
        if kind == "tool_end":
            tool_id = event["payload"].get("tool_use_id")
            start = starts.get(tool_id) or _start_from_db(question_id, tool_id)
            if start is not None:
                done = dict(start, state="failed" if event["payload"].get("is_error") else "done")
                if tool_id in starts:
                    starts[tool_id] = done  # not sent yet: send it closed
                else:
                    closed.append(_item(done, oob=True))
        if where == "primary" and kind != "tool_start":
            primary.append(_item(item))
        elif where == "details":
            details.append(_item(item))
        if kind == "tool_start":
            primary.append(("tool", event["payload"].get("tool_use_id")))
        if kind == "phase":
            phase_event = event
        if kind == "end":
            ended = True
    primary_html = "".join(
        _item(starts[entry[1]]) if isinstance(entry, tuple) else entry for entry in primary
    )
    if reset_live:
        parts.append(f'<span hx-swap-oob="innerHTML:#live-answer">{escape("".join(live_text))}</span>')
    elif live_text:
        parts.append(f'<span hx-swap-oob="beforeend:#live-answer">{escape("".join(live_text))}</span>')
    if primary_html:
        parts.append(f'<div hx-swap-oob="beforeend:#timeline">{primary_html}</div>')
    parts.extend(closed)
    if details:
        parts.append(f'<div hx-swap-oob="beforeend:#details-log">{"".join(details)}</div>')
    if phase_event is not None and not ended:
        parts.append(render_to_string(f"{PAGE}#phase", {"phase_event": phase_event, "oob": True}))
    cancelling = [event for event in events if event["kind"] == "cancelling"]
    if cancelling and not ended:
        parts.append(_status(question_id, cancelling[-1]))
    if ended:
        parts.append(_final_regions(question_id))
    elif any(event["kind"] in FANOUT_KINDS for event in events):
        parts.append(_fanout_lanes(question_id))
    parts.append(f'<span id="last-seq" data-seq="{int(events[-1]["seq"])}" hidden hx-swap-oob="true"></span>')
    return "".join(parts)


def _start_from_db(question_id: int, tool_id) -> dict | None:
    row = (
        ProgressEvent.objects.filter(question_id=question_id, kind="tool_start", payload__tool_use_id=tool_id)
        .order_by("seq")
        .first()
    )
    return timeline.decorate(event_dict(row)) if row is not None else None


def _final_regions(question_id: int) -> str:
    question = Question.objects.for_page().select_related("session").get(pk=question_id)
    context = question_context(question) | {"oob": True}
    regions = ("status", "phase", "answer", "run-summary")  # the folded run's "N steps · …" line too
    parts = [render_to_string(f"{PAGE}#{name}", context) for name in regions]
    if context["sub_runs"]:
        parts.append(render_to_string("researchmind/_fanout_lanes.html", context))
        if question.protocol.get("aggregate"):
            parts.append(render_to_string("researchmind/_fanout_report.html", context))
    return "".join(parts)


def _status(question_id: int, cancel_event: dict) -> str:
    """The status line while a cancel is under way: what was asked, and when it is forced."""
    question = Question.objects.select_related("session").get(pk=question_id)
    context = {"question": question, "session": question.session, "cancel_event": cancel_event, "oob": True}
    return render_to_string(f"{PAGE}#status", context)


def _fanout_lanes(question_id: int) -> str:
    question = Question.objects.select_related("session").get(pk=question_id)
    context = {
        "question": question,
        "session": question.session,
        "lanes": fanout_lanes(question),
        "oob": True,
    }
    return render_to_string("researchmind/_fanout_lanes.html", context)
