"""The one small interface every engine implements.

An engine runs one question in a sandbox folder and yields what it prints,
line by line, in Claude Code's ``stream-json`` dialect. Lines are raw text:
parsing belongs to ``progress.streamjson`` so one parser serves every engine.

Pure Python: no Django imports.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol


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
    finished), ``killed_by`` names why we stopped it (``cancel``, ``idle``,
    ``timeout``, ``line_too_long``) or is ``None``; ``stderr_tail`` keeps the
    last lines of stderr for error display."""

    returncode: int | None = None
    killed_by: str | None = None
    stderr_tail: list[str] = field(default_factory=list)


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
        the iterator then ends. ``outcome`` is filled in before it ends."""
        ...
