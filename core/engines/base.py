"""The one small interface every engine implements.

An engine runs one question in a sandbox folder and yields what it prints,
line by line, in Claude Code's ``stream-json`` dialect. Lines are raw text:
parsing belongs to ``core.stream`` so one parser serves every engine.

Pure Python: no Django imports.
"""

from __future__ import annotations

import asyncio
import contextlib
import unicodedata
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol


def model_name(value: str | None) -> str:
    """A model name as an engine may be given it: surrounding white space
    trimmed; any control, format or line-separator character inside refused
    with ``ValueError`` (``"sonnet\\n"`` is ``"sonnet"``, ``"son\\nnet"`` is an
    error), and so is a name that would read as an option. The one rule for
    the API, the forms, the settings and the engines."""
    name = (value or "").strip()
    for char in name:
        if unicodedata.category(char) in {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}:
            raise ValueError(f"A model name may not hold the control character U+{ord(char):04X}.")
    if name.startswith("-"):
        raise ValueError("A model name may not start with '-'.")
    return name


@dataclass(frozen=True, slots=True)
class OutputLine:
    """One line an engine printed. ``source`` is ``stdout`` or ``stderr``;
    ``text`` has its trailing newline removed and is decoded as UTF-8 with
    replacement. ``data`` is the line's original bytes when the engine read
    bytes (a child process, a transcript file): the raw log keeps those, so
    even invalid UTF-8 is kept as printed."""

    source: Literal["stdout", "stderr"]
    text: str
    data: bytes | None = None


@dataclass(slots=True)
class RunOutcome:
    """How the engine's run ended, filled in by the engine when its stream ends.

    ``returncode`` is the process exit code (0 for in-process engines that
    finished), ``killed_by`` names why we stopped it (``cancel``, ``idle``, ``auth``,
    ``timeout``, ``line_too_long``) or is ``None``; ``stderr_tail`` keeps the
    last lines of stderr for error display; ``signals`` names the signals sent
    to stop it, in order (``["SIGINT"]`` when asking was enough)."""

    returncode: int | None = None
    killed_by: str | None = None
    stderr_tail: list[str] = field(default_factory=list)
    signals: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Availability:
    available: bool
    reason: str = ""


class Engine(Protocol):
    name: str
    label: str

    def availability(self) -> Availability:
        """Whether this engine can run here, and if not, why (for the UI)."""
        ...

    def stream(
        self,
        question: str,
        sandbox: Path,
        *,
        cancel: asyncio.Event,
        outcome: RunOutcome,
    ) -> AsyncIterator[OutputLine]:
        """Run ``question`` with cwd ``sandbox`` and yield output lines as they
        arrive. Setting ``cancel`` stops the run (gracefully, then harder);
        the iterator then ends. ``outcome`` is filled in before it ends.

        An engine that reads its output in chunks may also offer
        ``stream_batches`` (same arguments), yielding non-empty lists of
        lines: the run then handles a chunk per turn of the event loop
        instead of a line (see ``batches_of``)."""
        ...


def batches_of(engine, question: str, sandbox: Path, *, cancel: asyncio.Event, outcome: RunOutcome):
    """The engine's output as batches of lines: its ``stream_batches`` when it
    has one, else each line of ``stream`` as a batch of one."""
    stream_batches = getattr(engine, "stream_batches", None)
    if stream_batches is not None:
        return stream_batches(question, sandbox, cancel=cancel, outcome=outcome)
    return _single(engine.stream(question, sandbox, cancel=cancel, outcome=outcome))


async def _single(lines: AsyncIterator[OutputLine]) -> AsyncIterator[list[OutputLine]]:
    async with contextlib.aclosing(lines):  # type: ignore[type-var]
        async for line in lines:
            yield [line]


async def one_by_one(batches: AsyncIterator[list[OutputLine]]) -> AsyncIterator[OutputLine]:
    """Batches of lines as single lines (``stream`` built on ``stream_batches``).
    Closing it closes the batches at once (a child process is killed then)."""
    async with contextlib.aclosing(batches):  # type: ignore[type-var]
        async for batch in batches:
            for line in batch:
                yield line
