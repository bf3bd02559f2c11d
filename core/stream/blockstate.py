"""State kept per streamed message and content block while assembling them.

Pure Python, no Django imports.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.stream.markers import MarkerProblem, MarkerStripper, ProgressMarker


@dataclass(slots=True)
class BlockState:
    """One content block of one message, as far as it has streamed."""

    kind: str  # "text", "thinking", "tool_use", or another content block type
    index: int
    message_id: str
    parent: str | None
    parts: list[str] = field(default_factory=list)
    stripper: MarkerStripper | None = None
    sent: list[str] = field(default_factory=list)  # visible text already sent as text_delta
    markers_sent: int = 0
    problems_sent: int = 0
    tool_id: str = ""
    tool_name: str = ""
    signature: bool = False
    claimed: bool = False  # its assistant line has arrived
    done: bool = False  # recorded (or abandoned); later deltas are ignored
    slot: int = -1  # position in the transcript's text or thinking list


@dataclass(slots=True)
class MessageState:
    """One API response (a message id) and its blocks by index."""

    id: str
    parent: str | None
    blocks: dict[int, BlockState] = field(default_factory=dict)
    completed: bool = False  # message_delta seen: the API finished this message normally
    closed: bool = False
    # Bookkeeping that keeps a message with many blocks linear (an engine may
    # repeat a message id): ``blocks``' keys in insertion order (its iteration
    # order), how many leading ones are claimed, and the next free index.
    order: list[int] = field(default_factory=list)
    claimed_upto: int = 0
    next_free: int = 0

    def put(self, index: int, block: BlockState) -> None:
        """Store ``block`` at ``index`` (a new index, or a finished block replaced)."""
        if index in self.blocks:
            self.claimed_upto = 0  # a fresh, unclaimed block now sits where a claimed one was
        else:
            self.order.append(index)
            self.next_free = max(self.next_free, index + 1)
        self.blocks[index] = block


def parent_of(data: dict[str, Any]) -> str | None:
    """The Task/Agent tool_use id of a sub-agent line, None at top level."""
    parent = data.get("parent_tool_use_id")
    return parent if isinstance(parent, str) and parent else None


def scan_text(text: str) -> tuple[str, list[ProgressMarker], list[MarkerProblem]]:
    """Visible text, markers and problems of one complete text block."""
    stripper = MarkerStripper()
    visible, markers, problems = stripper.feed(text)
    tail, more_markers, more_problems = stripper.flush()
    return visible + tail, markers + more_markers, problems + more_problems
