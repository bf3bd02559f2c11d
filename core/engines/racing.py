"""What every run the app drives against a model API shares: a run that ends
early (``Stopped``) and one wait that cancel or the run's time limit cuts short
(``race``). The OpenAI-compatible and the Anthropic engines both use them.

Pure Python: no Django imports.
"""

from __future__ import annotations

import asyncio
import contextlib
import time


class Stopped(Exception):
    """The run ends early: ``sentence`` says why, ``subtype`` is the result's."""

    def __init__(self, sentence: str, subtype: str = "error_during_execution", killed_by: str | None = None):
        super().__init__(sentence)
        self.sentence = sentence
        self.subtype = subtype
        self.killed_by = killed_by


async def race(awaitable, *, cancel: asyncio.Event, deadline: float, timeout_sentence: str):
    """``awaitable``'s result, unless ``cancel`` is set or the monotonic ``deadline``
    passes first: then it is cancelled and ``Stopped`` says which."""
    task = asyncio.ensure_future(awaitable)
    stop = asyncio.ensure_future(cancel.wait())
    try:
        done, _ = await asyncio.wait(
            {task, stop},
            timeout=max(0.0, deadline - time.monotonic()),
            return_when=asyncio.FIRST_COMPLETED,
        )
    finally:
        stop.cancel()
    if task in done:
        return task.result()
    task.cancel()
    with contextlib.suppress(BaseException):
        await task
    if cancel.is_set():
        raise Stopped("Cancelled.", killed_by="cancel")
    raise Stopped(timeout_sentence, killed_by="timeout")
