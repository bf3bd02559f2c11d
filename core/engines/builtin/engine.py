"""``BuiltinEngine``: the offline engine, run in-process on a worker thread.

The blocking ``run_builtin`` generator runs in its own thread and hands each
line to the event loop through an ``asyncio.Queue``, so a slow index build
never blocks the ASGI loop. Cancel is forwarded to the thread as a
``threading.Event``; the generator then ends with an error result promptly.

Pure Python: no Django imports.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import AsyncIterator
from pathlib import Path

from ..base import Availability, OutputLine, RunOutcome
from .stream import run_builtin

_DONE = object()


class BuiltinEngine:
    """``state_dir`` is the session's private state folder, where the index
    lives (the app passes ``ResearchSession.state_path``); without one, the
    index goes to ``default_state_dir(sandbox)``, beside the sandbox."""

    name = "builtin"
    label = "Built-in (offline)"

    def __init__(self, *, state_dir: str | os.PathLike[str] | None = None) -> None:
        self.state_dir = state_dir

    def availability(self) -> Availability:
        # SQLite with FTS5 ships with every CPython build we support.
        return Availability(True)

    async def stream(
        self,
        question: str,
        sandbox: Path,
        *,
        cancel: asyncio.Event,
        outcome: RunOutcome,
    ) -> AsyncIterator[OutputLine]:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue()
        stop = threading.Event()

        def put(item: object) -> None:
            # The loop may be gone if the consumer was torn down first.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(queue.put_nowait, item)

        def work() -> None:
            try:
                for line in run_builtin(sandbox, question, cancel=stop, state=self.state_dir):
                    put(line)
            except BaseException as exc:
                put(exc)
            finally:
                put(_DONE)

        async def forward_cancel() -> None:
            await cancel.wait()
            stop.set()

        thread = threading.Thread(target=work, name=f"builtin-engine:{sandbox.name}", daemon=True)
        watcher = asyncio.create_task(forward_cancel())
        thread.start()
        outcome.returncode = None
        try:
            while True:
                item = await queue.get()
                if item is _DONE:
                    break
                if isinstance(item, BaseException):
                    outcome.stderr_tail.append(f"{type(item).__name__}: {item}")
                    outcome.returncode = 1
                    continue
                yield OutputLine("stdout", item)
        finally:
            if outcome.returncode is None:
                outcome.returncode = 0
            watcher.cancel()
            stop.set()  # also when the consumer stops iterating early
            if cancel.is_set():
                outcome.killed_by = "cancel"
            await asyncio.to_thread(thread.join, 5)
