"""Replay a recorded stream-json transcript as if an engine were printing it.

For demos and tests. The transcript is a ``.jsonl`` file exactly as a CLI
printed it (every line is yielded, JSON or not, as stdout). With ``timing``:

* if a sidecar ``<name>.timing`` exists next to it (``run.jsonl`` →
  ``run.timing``), its line N is the delay in seconds *before* line N of the
  transcript (a float; blank or missing lines count as ``pace``);
* otherwise every line waits ``pace`` seconds (default 0.02 s: a brisk but
  visibly live stream).

``speed`` divides every delay (2.0 plays twice as fast). Without ``timing``
lines are yielded as fast as they are consumed. ``sleep`` is how a delay is
waited for (``asyncio.sleep``; a test passes one that records the delays);
a cancel ends the wait early either way.

Pure Python: no Django imports.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

from core.engines.base import Availability, OutputLine, RunOutcome, one_by_one

BATCH_BYTES = 64 * 1024  # untimed replay: lines handed on together, as from one pipe read


def timing_path(transcript: Path) -> Path:
    return transcript.with_suffix(".timing")


def read_delays(path: Path, count: int, pace: float) -> list[float]:
    """The per-line delays of a ``.timing`` sidecar, padded with ``pace``."""
    delays: list[float] = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        text = raw.strip()
        try:
            delays.append(max(0.0, float(text)) if text else pace)
        except ValueError:
            raise ValueError(f"{path}, line {number}: expected seconds as a number, got {text!r}") from None
    return (delays + [pace] * count)[:count]


class ReplayEngine:
    name = "replay"
    label = "Replay (recorded transcript)"

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        timing: bool = False,
        speed: float = 1.0,
        pace: float = 0.02,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        if speed <= 0:
            raise ValueError(f"Replay speed must be positive, got {speed}.")
        self.path = Path(path) if path is not None else None
        self.timing, self.speed, self.pace = timing, speed, pace
        self.sleep = sleep

    def availability(self) -> Availability:
        if self.path is None:
            return Availability(False, "replay needs a recorded transcript (.jsonl) to play")
        if not self.path.is_file():
            return Availability(False, f"the transcript {self.path} does not exist")
        return Availability(True)

    def lines(self) -> list[str]:
        if self.path is None:
            raise ValueError("This replay engine has no transcript path.")
        return [line.decode("utf-8", "replace") for line in self._raw_lines()]

    def _raw_lines(self) -> list[bytes]:
        assert self.path is not None
        data = self.path.read_bytes().split(b"\n")
        if data and data[-1] == b"":
            data.pop()  # the final newline ends the last line; it starts no new one
        return data

    def delays(self, count: int) -> list[float]:
        if not self.timing:
            return [0.0] * count
        assert self.path is not None
        sidecar = timing_path(self.path)
        delays = read_delays(sidecar, count, self.pace) if sidecar.is_file() else [self.pace] * count
        return [delay / self.speed for delay in delays]

    async def _pause(self, delay: float, cancel: asyncio.Event) -> None:
        """Wait ``delay`` seconds, or less if the run is cancelled meanwhile."""
        pause = asyncio.ensure_future(self.sleep(delay))
        cancelled = asyncio.ensure_future(cancel.wait())
        try:
            await asyncio.wait({pause, cancelled}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in (pause, cancelled):
                waiter.cancel()
            await asyncio.gather(pause, cancelled, return_exceptions=True)

    def stream(
        self, question: str, sandbox: Path, *, cancel: asyncio.Event, outcome: RunOutcome
    ) -> AsyncIterator[OutputLine]:
        return one_by_one(self.stream_batches(question, sandbox, cancel=cancel, outcome=outcome))

    async def stream_batches(
        self, question: str, sandbox: Path, *, cancel: asyncio.Event, outcome: RunOutcome
    ) -> AsyncIterator[list[OutputLine]]:
        """Lines are handed on together up to about 64 KB (as one pipe read
        would deliver them) and before every pause of a timed replay."""
        if self.path is None:
            raise ValueError("This replay engine has no transcript path.")
        lines = self._raw_lines()
        batch: list[OutputLine] = []
        size = 0
        for data, delay in zip(lines, self.delays(len(lines)), strict=True):
            if delay > 0:
                if batch:  # what was printed before the pause is not held back during it
                    yield batch
                    batch, size = [], 0
                await self._pause(delay, cancel)
            if cancel.is_set():
                if batch:
                    yield batch
                outcome.killed_by = "cancel"  # like a killed process: no return code
                return
            batch.append(OutputLine("stdout", data.decode("utf-8", "replace"), data))
            size += len(data)
            if size >= BATCH_BYTES:
                yield batch
                batch, size = [], 0
                await asyncio.sleep(0)  # let other tasks (the recorder, sockets, a cancel) run
        if batch:
            yield batch
        outcome.returncode = 0
