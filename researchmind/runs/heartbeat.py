"""Heartbeats: while a run records nothing, a ``heartbeat`` event keeps the
page alive, so no two consecutive events are more than ``HEARTBEAT_SECONDS``
apart (docs/BENCHMARKS.md: no silent gap over 2 s), whatever the engine does.

A heartbeat is due a fixed time after the run's last event, not found by a
poll: a check every 0.5 s for 2 s of silence left gaps of 2.0–2.5 s. It is
queued ``SLACK`` before the bar, because an event is stamped when its batch is
written (``ProgressRecorder`` flushes every 50 ms, later on a busy machine).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from progress.recorder import ProgressRecorder

SLACK = 0.5  # seconds, at most a quarter of the bar


def quiet_for(bar: float) -> float:
    """How long a run may record nothing before a heartbeat is queued, for
    gaps of at most ``bar`` seconds between stamped events."""
    return bar - min(SLACK, bar / 4)


async def keep_alive(
    recorder: ProgressRecorder, *, started: float, bar: float, detail: Callable[[int], str]
) -> None:
    """Queue a heartbeat whenever ``recorder`` has queued nothing for
    ``quiet_for(bar)`` seconds, until cancelled. ``detail`` says what the run
    is doing, given the whole seconds since it started (``time.monotonic()``
    at ``started``)."""
    wait = quiet_for(bar)
    while True:
        now = time.monotonic()
        due = recorder.last_event_at + wait
        if now < due:
            await asyncio.sleep(due - now)
            continue
        elapsed = now - started
        recorder.add("heartbeat", detail=detail(int(elapsed)), payload={"elapsed_s": round(elapsed, 1)})
