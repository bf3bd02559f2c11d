"""Assembling assistant content blocks from ``stream_event`` deltas and ``assistant`` lines.

Claude Code sends each block twice when partial messages are on: as deltas
(``content_block_delta``) and as one ``assistant`` line per block, which arrives
*before* that block's ``content_block_stop`` (docs/CLAUDE_CODE.md, Stream events; pitfall 9).
Text is accumulated per (message id, index), the assistant line replaces it without
re-sending text, retries leave orphan ``message_start``/``message_stop`` pairs whose
partial text is abandoned, and a non-streaming fallback ``assistant`` line with no
deltas at all still yields its text. Pure Python, no Django imports.
"""

from __future__ import annotations

import json
from typing import Any

from core.stream.blockstate import BlockState, MessageState, parent_of, scan_text
from core.stream.events import (
    EXPANDABLE,
    PRIMARY,
    TEXT_PAYLOAD_CHARS,
    StreamEvent,
    as_dict,
    as_str,
    clip,
    compact,
)
from core.stream.markers import MarkerStripper
from core.stream.transcript import Transcript


class BlockAssembler:
    """Turns ``stream_event`` and ``assistant`` lines into text, thinking and tool events."""

    def __init__(self, transcript: Transcript) -> None:
        self.t = transcript
        self._messages: dict[str, MessageState] = {}
        self._current: dict[str | None, str] = {}
        self._synthetic_ids = 0
        # The block the last stream_event added a text delta to (None after any other line).
        self.streamed: BlockState | None = None

    # -- stream_event ---------------------------------------------------------------

    def stream_event(self, data: dict[str, Any]) -> None:
        event = data.get("event")
        if type(event) is not dict:
            return
        kind = event.get("type")
        parent = data.get("parent_tool_use_id") or None
        if parent is not None and type(parent) is not str:
            parent = None
        if kind == "content_block_delta":
            # The hot path: most lines of a partial-messages run are deltas.
            message_id = self._current.get(parent)  # pragma: no mutate: speed only: the same message
            # pragma: no mutate start (speed only: _message_for looks up the same current message)
            message = (
                self._messages[message_id] if message_id is not None else self._message_for(parent, data)
            )
            # pragma: no mutate end
            # The delta itself, inline (no call per delta).
            delta = event.get("delta")
            if type(delta) is not dict:
                return
            delta_type = delta.get("type")
            index = event.get("index")
            block = message.blocks.get(index) if type(index) is int else None  # type: ignore[arg-type]
            if delta_type == "text_delta":
                if block is None:
                    block = self._block(message, index, "text")
                text = delta.get("text")
                if block.done or block.stripper is None or not isinstance(text, str):
                    return
                block.parts.append(text)
                self.streamed = block
                stripper = block.stripper
                if "<" not in text and stripper._block is None and not stripper._pending:
                    # Plain text outside any marker (what MarkerStripper.feed
                    # returns as it is), without the call.
                    if text:
                        block.sent.append(text)
                        self._emit_delta(block, text)
                    return
                visible, markers, problems = stripper.feed(text)
                if markers or problems:
                    block.markers_sent += len(markers)
                    block.problems_sent += len(problems)
                    self.t.emit_markers(markers, problems, block.parent)
                if visible:
                    block.sent.append(visible)
                    self._emit_delta(block, visible)
            elif delta_type == "input_json_delta":
                block = block or self._block(message, index, "tool_use")
                block.parts.append(as_str(delta.get("partial_json")))
            elif delta_type == "thinking_delta":
                block = block or self._block(message, index, "thinking")
                block.parts.append(as_str(delta.get("thinking")))
            elif delta_type == "signature_delta":
                block = block or self._block(message, index, "thinking")
                block.signature = True
        elif kind == "message_start":
            previous = self._current.get(parent)
            if previous is not None:
                # A new request began: whatever the last one left unfinished was abandoned.
                # Not mutated: keep_unfinished=None is falsy like False
                self._close(self._messages[previous], keep_unfinished=False)  # pragma: no mutate
            message_id = as_str(as_dict(event.get("message")).get("id")) or self._new_id()
            message = MessageState(id=message_id, parent=parent)
            self._messages[message_id] = message
            self._current[parent] = message_id
        elif kind == "content_block_start":
            message = self._message_for(parent, data)
            content = as_dict(event.get("content_block"))
            block = self._block(message, event.get("index"), as_str(content.get("type")) or "text")
            block.tool_id = as_str(content.get("id"))
            block.tool_name = as_str(content.get("name"))
        elif kind == "content_block_stop":
            message = self._message_for(parent, data)
            index = event.get("index")
            block = message.blocks.get(index) if type(index) is int else None
            if block is not None and block.kind in ("tool_use", "server_tool_use") and not block.done:
                self._tool_from_deltas(block)
        elif kind == "message_delta":
            self._message_for(parent, data).completed = True
        elif kind == "message_stop":
            message_id = self._current.pop(parent, None)
            if message_id is not None:
                message = self._messages[message_id]
                self._close(message, keep_unfinished=message.completed)
        elif kind == "error":
            error = as_dict(event.get("error"))
            detail = clip(f"API stream error: {as_str(error.get('type')) or 'unknown'}")
            self.t.emit("other", EXPANDABLE, detail, {"type": "stream_event", "event": compact(event)})

    def continuation(self, block: BlockState, events: list[StreamEvent]):
        """After a text delta of ``block``: a function that takes the next
        line's decoded object and, when it is one more text delta of that block
        which ``stream_event`` would only add to the text shown (no marker
        begins in it) or to a marker held open (no ">" in it), does exactly
        that and returns True; anything else it leaves alone (False), for
        ``stream_event``. Most lines of a streamed answer are such deltas: they
        skip the general path's lookups. None when the block's state allows no
        such shortcut (the text just shown is not the last event)."""
        stripper = block.stripper
        if block.done or stripper is None or stripper._pending:
            return None
        parent, index, parts = block.parent, block.index, block.parts
        hold = stripper.hold if stripper._block is not None else None
        if hold is None:
            if not events:
                return None
            last = events[-1]
            payload = last.payload
            if (
                last.kind != "text_delta"
                or payload["message_id"] != block.message_id
                or payload["index"] != index
                # Not mutated: a message id names one message, whose blocks share its parent
                or payload["parent_tool_use_id"] != parent  # pragma: no mutate
            ):
                return None
        sent = block.sent

        def next_delta(data: dict[str, Any]) -> bool:
            # stream_event's own tests, in its order, for a text delta of this block.
            event = data.get("event")
            if type(event) is not dict or event.get("type") != "content_block_delta":
                return False
            # A parent that stream_event reads as None ("", a number) is left to it.
            if data.get("parent_tool_use_id") != parent:
                return False
            position = event.get("index")
            if type(position) is not int or position != index:
                return False
            delta = event.get("delta")
            if type(delta) is not dict or delta.get("type") != "text_delta":
                return False
            text = delta.get("text")
            if type(text) is not str or not text:  # pragma: no mutate: an empty delta adds nothing either way
                return False
            # What stream_event (and _emit_delta, or the stripper) would do with it.
            if hold is not None:
                if not hold(text):
                    return False
                parts.append(text)
                return True
            if "<" in text:
                return False
            parts.append(text)
            sent.append(text)
            payload["text"] += text[:TEXT_PAYLOAD_CHARS]
            return True

        return next_delta

    def _new_id(self) -> str:
        self._synthetic_ids += 1
        return f"partial-{self._synthetic_ids}"

    def _message_for(self, parent: str | None, data: dict[str, Any]) -> MessageState:
        message_id = self._current.get(parent)
        if message_id is None:
            # Deltas without a message_start (lines lost): keep them under a made-up id.
            message_id = as_str(data.get("api_message_id")) or self._new_id()
            self._messages.setdefault(message_id, MessageState(id=message_id, parent=parent))
            self._current[parent] = message_id
        return self._messages[message_id]

    def _block(self, message: MessageState, index: Any, kind: str) -> BlockState:
        if not isinstance(index, int):
            index = len(message.blocks)
        block = message.blocks.get(index)
        if block is None or block.done:
            block = BlockState(kind=kind, index=index, message_id=message.id, parent=message.parent)
            if kind == "text":
                block.stripper = MarkerStripper()
            message.put(index, block)
        return block

    def _emit_delta(self, block: BlockState, text: str) -> None:
        events = self.t.events
        if events:
            # A delta of the block the last event streamed (the usual case
            # within a batch of lines) is joined to it: the recorder stores
            # them as one row anyway, by the same rule (progress.recorder), so
            # one event and one payload serve the whole run of deltas.
            last = events[-1]
            if last.kind == "text_delta":
                payload = last.payload
                if (
                    payload["message_id"] == block.message_id
                    and payload["index"] == block.index
                    # Not mutated: a message id names one message, whose blocks share its parent
                    and payload["parent_tool_use_id"] == block.parent  # pragma: no mutate
                ):
                    payload["text"] += text[:TEXT_PAYLOAD_CHARS]
                    return
        payload = {
            "text": text,
            "message_id": block.message_id,
            "index": block.index,
            "parent_tool_use_id": block.parent,
        }
        if len(text) > TEXT_PAYLOAD_CHARS:
            payload["text"] = text[:TEXT_PAYLOAD_CHARS]
            payload["truncated"] = True
        # The streamed text itself is in the payload; the detail only labels the stream.
        t = self.t
        if block.parent is None:
            t.events.append(
                StreamEvent("text_delta", PRIMARY, "Writing the answer", t.phase, None, None, payload)
            )
        else:
            t.events.append(
                StreamEvent("text_delta", EXPANDABLE, "Sub-agent writing", t.phase, None, None, payload)
            )

    def _tool_from_deltas(self, block: BlockState) -> None:
        raw = "".join(block.parts)
        try:
            tool_input = json.loads(raw) if raw.strip() else {}
        except (ValueError, RecursionError):
            tool_input = {"partial_json": raw}
        block.done = True
        self.t.tool_start(block.tool_id, block.tool_name, tool_input, block.parent)

    def _close(self, message: MessageState, keep_unfinished: bool) -> None:
        """End a message: unfinished blocks are kept (API completed) or abandoned (retry)."""
        if message.closed:
            return
        message.closed = True  # pragma: no mutate: closing again changes nothing
        for block in message.blocks.values():
            if block.done:
                continue
            if block.kind in ("tool_use", "server_tool_use"):
                if keep_unfinished:
                    self._tool_from_deltas(block)
            elif keep_unfinished:
                self._finish_from_deltas(block)
            else:
                self._abandon(block)
            block.done = True

    def _finish_from_deltas(self, block: BlockState) -> None:
        """No assistant line came for this block (lost, or the run was killed): keep the deltas."""
        raw = "".join(block.parts)
        if block.kind == "thinking":
            block.slot = self.t.add_thinking(
                raw, block.parent, block.message_id, block.index, block.signature
            )
            return
        if block.kind != "text" or block.stripper is None:  # pragma: no mutate: text kind iff a stripper
            return
        visible, markers, problems = block.stripper.flush()
        self.t.emit_markers(markers, problems, block.parent)
        if visible:
            block.sent.append(visible)
            self._emit_delta(block, visible)
        block.slot = self.t.add_text(raw, "".join(block.sent), block.parent, block.message_id, block.index)

    def _abandon(self, block: BlockState) -> None:
        if block.kind == "text" and "".join(block.sent).strip():
            # The UI already showed this partial text; tell it to drop it.
            payload = {
                "text": "",
                "message_id": block.message_id,
                "index": block.index,
                "parent_tool_use_id": block.parent,
                "abandoned": True,
            }
            stage = PRIMARY if block.parent is None else EXPANDABLE
            self.t.emit("text", stage, "Partial text dropped after an API retry", payload)

    def close_all(self, keep_unfinished: bool) -> None:
        for message in list(self._messages.values()):
            if not message.closed:
                self._close(message, keep_unfinished=keep_unfinished or message.completed)
        self._current.clear()
        self._messages.clear()

    # -- assistant lines --------------------------------------------------------------

    def assistant(self, data: dict[str, Any]) -> None:
        message = as_dict(data.get("message"))
        message_id = as_str(message.get("id"))
        parent = parent_of(data)
        error = data.get("error")
        if isinstance(error, str) and error:
            self.t.add_error(f"The engine reported an API error: {error}.")
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list):
            return
        # Not mutated: no message is stored under the id '': None either way
        known = self._messages.get(message_id) if message_id else None  # pragma: no mutate
        if known is None:
            # Deltas whose message_start was lost sit under a made-up id; they belong to this line.
            current = self._current.get(parent)
            if current is not None and current.startswith("partial-"):
                known = self._messages[current]
        for item in content:
            block = as_dict(item)
            kind = as_str(block.get("type"))
            if kind == "text":
                self._assistant_text(known, message_id, parent, as_str(block.get("text")))
            elif kind in ("thinking", "redacted_thinking"):
                self._assistant_thinking(known, message_id, parent, block)
            elif kind in ("tool_use", "server_tool_use"):
                claimed = self._claim(known, kind)
                if claimed is not None:
                    claimed.done = True
                self.t.tool_start(as_str(block.get("id")), block.get("name"), block.get("input"), parent)
            else:
                detail = clip(f"Assistant {kind or 'content'} block")
                self.t.emit("other", EXPANDABLE, detail, {"type": kind, "block": compact(block)})

    def _claim(self, message: MessageState | None, kind: str) -> BlockState | None:
        """The first streamed block of this kind that no assistant line has claimed yet."""
        if message is None:
            return None
        # In the blocks' order, from the first one not yet known to be claimed.
        order, blocks = message.order, message.blocks
        for position in range(message.claimed_upto, len(order)):  # pragma: no mutate: speed only: same block
            block = blocks[order[position]]
            if block.claimed:
                if position == message.claimed_upto:
                    message.claimed_upto = position + 1  # pragma: no mutate: speed only: same block claimed
                continue
            if block.kind == kind or (kind == "redacted_thinking" and block.kind == "thinking"):
                block.claimed = True
                if position == message.claimed_upto:
                    message.claimed_upto = position + 1  # pragma: no mutate: speed only: same block claimed
                return block
        return None

    def _assistant_text(
        self, message: MessageState | None, message_id: str, parent: str | None, text: str
    ) -> None:
        block = self._claim(message, "text")
        if block is not None and block.done:
            if block.slot >= 0 and "".join(block.parts) != text:
                # Kept from deltas earlier; the assistant line is authoritative.
                # Not mutated: only a top-level block has a slot, so parent is None
                self.t.replace_text(block.slot, text, parent, message_id, block.index)  # pragma: no mutate
            return
        # Not mutated: speed only: the full scan gives the same text, markers and deltas
        # pragma: no mutate start
        if block is not None and block.stripper is not None and "".join(block.parts) == text:
            # pragma: no mutate end
            # The deltas were exactly this text and were scanned as they came:
            # release what the scanner still holds instead of scanning it all again.
            tail, markers, problems = block.stripper.flush()
            self.t.emit_markers(markers, problems, parent)
            if tail:
                self._emit_delta(block, tail)
            block.done = True
            block.slot = self.t.add_text(text, "".join(block.sent) + tail, parent, message_id, block.index)
            return
        visible, markers, problems = scan_text(text)
        index = block.index if block is not None else self._next_index(message, message_id)
        if block is None:
            self.t.emit_markers(markers, problems, parent)
            # Not mutated: the block for an assistant-only text is local and never stored: kind unread
            # pragma: no mutate start
            block = BlockState(kind="text", index=index, message_id=message_id, parent=parent)
            # pragma: no mutate end
        else:
            # Markers already emitted from the deltas are not repeated.
            self.t.emit_markers(markers[block.markers_sent :], problems[block.problems_sent :], parent)
        sent = "".join(block.sent)
        if visible.startswith(sent) and len(visible) > len(sent):
            self._emit_delta(block, visible[len(sent) :])
        block.done = True
        block.slot = self.t.add_text(text, visible, parent, message_id, index)

    def _assistant_thinking(
        self, message: MessageState | None, message_id: str, parent: str | None, data: dict[str, Any]
    ) -> None:
        block = self._claim(message, as_str(data.get("type")))
        if block is not None and block.done:
            return
        text = as_str(data.get("thinking"))
        if not text and block is not None:
            text = "".join(block.parts)
        signed = bool(data.get("signature") or data.get("data")) or (block is not None and block.signature)
        index = block.index if block is not None else self._next_index(message, message_id)
        if block is not None:
            block.done = True
        self.t.add_thinking(text, parent, message_id, index, signed)

    def _next_index(self, message: MessageState | None, message_id: str) -> int:
        """Index for a block that came only as an assistant line (one line per block)."""
        if message is None:
            # Not mutated: the made-up message holds only done placeholders: its id is never acted on
            # pragma: no mutate start
            message = self._messages.setdefault(
                message_id or self._new_id(), MessageState(id=message_id, parent=None)
            )
            # pragma: no mutate end
            message.closed = True  # pragma: no mutate: only done placeholders in it
        # The next free index: after lost lines a streamed block can sit at len(blocks).
        index = message.next_free
        # pragma: no mutate start (the done line placeholder's fields are never read)
        message.put(
            index, BlockState(kind="line", index=index, message_id=message.id, parent=None, claimed=True)
        )
        # pragma: no mutate end
        message.blocks[index].done = True
        return index
