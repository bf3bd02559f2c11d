"""The one module that owns the channel layer: group names, message types and
the only ``group_send``.

The channel layer is at-most-once, so messages are notifications carrying
plain event dicts; consumers that see a gap in ``seq`` reload from the
database, which is the source of truth."""

from __future__ import annotations

import json
import logging

from channels.layers import get_channel_layer

log = logging.getLogger(__name__)

EVENTS_MESSAGE = "progress.events"


def question_group(question_id: int) -> str:
    # Built from the integer primary key only, never from user input.
    return f"question.{int(question_id)}"


def event_dict(event) -> dict:
    """A ProgressEvent as the plain dict sent to clients."""
    return {
        "seq": event.seq,
        "kind": event.kind,
        "stage": event.stage,
        "phase": event.phase,
        "step": event.step,
        "total": event.total,
        "detail": event.detail,
        "payload": event.payload,
        "created_at": event.created_at.isoformat() if event.created_at else None,
    }


async def notify_events(question_id: int, events: list[dict]) -> None:
    """Tell every consumer of the question about newly persisted events.
    Called only after the events are committed."""
    layer = get_channel_layer()
    if layer is None or not events:
        return
    # The events travel as one JSON string: the in-memory layer deep-copies
    # messages per receiver and channels-redis serialises them, and one string
    # is far cheaper to copy than a tree of dicts.
    # Each event is serialised once here, as the exact frame JSON clients
    # receive, instead of once per connected client.
    message = {
        "type": EVENTS_MESSAGE,
        "first": events[0]["seq"],
        "last": events[-1]["seq"],
        "ended": any(event["kind"] == "end" for event in events),
        "frames": [event_frame(event) for event in events],
    }
    try:
        await layer.group_send(question_group(question_id), message)
    except Exception:  # a broken layer must not stop a run: clients resume from the DB
        log.warning("Could not broadcast events of question %s", question_id, exc_info=True)


def event_frame(event: dict) -> str:
    """The websocket text frame of one event for programs."""
    return json.dumps({"type": "event", **event}, ensure_ascii=False)


def events_from_message(message: dict) -> list[dict]:
    events = []
    for frame in message.get("frames") or []:
        event = json.loads(frame)
        event.pop("type", None)
        events.append(event)
    return events
