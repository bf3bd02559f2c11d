"""Which streamed block an ``assistant`` line claims when an earlier block's own
line never came: each line claims the first unclaimed block of its kind, once."""

from __future__ import annotations

from tests.core.stream.test_block_assembly import (
    assistant,
    block_start,
    block_stop,
    delta,
    message_delta,
    message_stop,
    run,
    start,
    text_block,
    text_delta,
)


def _two_texts_after_lost_thinking() -> list[str]:
    """Thinking at index 0 (its assistant line lost), then two text blocks each
    with its own assistant line, as Claude Code writes one line per block."""
    return [
        start("msg_A"),
        block_start(0, {"type": "thinking", "thinking": ""}),
        delta(0, type="thinking_delta", thinking="Plan the answer."),
        block_stop(0),
        block_start(1, {"type": "text", "text": ""}),
        text_delta(1, "First part."),
        assistant("msg_A", text_block("First part.")),
        block_stop(1),
        block_start(2, {"type": "text", "text": ""}),
        text_delta(2, "Second part."),
        assistant("msg_A", text_block("Second part.")),
        block_stop(2),
        message_delta(),
        message_stop(),
    ]


def test_each_text_line_claims_its_own_block_behind_an_unclaimed_one():
    """The second text line claims block 2, not block 1 again: block 1 keeps its
    text and the answer is both parts once, in order."""
    interpreter, events = run(_two_texts_after_lost_thinking())
    texts = [e.payload for e in events if e.kind == "text"]
    assert [(p["text"], p["index"]) for p in texts] == [("First part.", 1), ("Second part.", 2)]
    assert "".join(e.payload["text"] for e in events if e.kind == "text_delta") == "First part.Second part."
    assert interpreter.answer_raw == "First part.\n\nSecond part."


def test_a_late_thinking_line_claims_the_streamed_thinking_block():
    """The thinking block's own line, arriving after both text lines claimed the
    blocks behind it, still finds it: the thinking is recorded once, not twice."""
    lines = _two_texts_after_lost_thinking()
    late = assistant("msg_A", {"type": "thinking", "thinking": "Plan the answer.", "signature": "sig"})
    lines.insert(lines.index(message_delta()), late)
    interpreter, events = run(lines)
    assert interpreter.thinking_text == "Plan the answer."
    assert [e.payload["text"] for e in events if e.kind == "text"] == ["First part.", "Second part."]


def test_a_block_restarted_at_a_finished_index_is_claimed_by_its_line():
    """A message whose index 0 starts again after that block finished (no new
    message_start): the new block's line claims the new block, so its text is
    streamed once and recorded at index 0, not again as a block of its own."""
    first = [
        start("msg_A"),
        block_start(0, {"type": "text", "text": ""}),
        text_delta(0, "First try."),
        assistant("msg_A", text_block("First try.")),
        block_stop(0),
    ]
    again = [
        block_start(0, {"type": "text", "text": ""}),
        text_delta(0, "Second try."),
        assistant("msg_A", text_block("Second try.")),
        block_stop(0),
        message_delta(),
        message_stop(),
    ]
    _, events = run(first + again)
    assert [e.kind for e in events] == ["text_delta", "text", "text_delta", "text"]  # no line refused as raw
    assert "".join(e.payload["text"] for e in events if e.kind == "text_delta") == "First try.Second try."
    assert [(e.payload["text"], e.payload["index"]) for e in events if e.kind == "text"] == [
        ("First try.", 0),
        ("Second try.", 0),
    ]


def test_a_restarted_block_is_found_after_a_later_block_is_claimed():
    """Index 1 starts again while a thinking block after it waits for its line;
    the thinking line claims the thinking block, and the restarted text's line
    still claims the restarted block (it is not skipped as if claimed)."""
    lines = [
        start("msg_A"),
        block_start(0, {"type": "text", "text": ""}),
        text_delta(0, "Zero."),
        assistant("msg_A", text_block("Zero.")),
        block_stop(0),
        block_start(1, {"type": "text", "text": ""}),
        text_delta(1, "One."),
        assistant("msg_A", text_block("One.")),
        block_stop(1),
        block_start(2, {"type": "thinking", "thinking": ""}),
        delta(2, type="thinking_delta", thinking="Think again."),
        block_stop(2),
        block_start(1, {"type": "text", "text": ""}),
        text_delta(1, "One, redone."),
        assistant("msg_A", {"type": "thinking", "thinking": "Think again.", "signature": "sig"}),
        assistant("msg_A", text_block("One, redone.")),
        block_stop(1),
        message_delta(),
        message_stop(),
    ]
    interpreter, events = run(lines)
    assert "".join(e.payload["text"] for e in events if e.kind == "text_delta") == "Zero.One.One, redone."
    assert [(e.payload["text"], e.payload["index"]) for e in events if e.kind == "text"] == [
        ("Zero.", 0),
        ("One.", 1),
        ("One, redone.", 1),
    ]
    assert interpreter.thinking_text == "Think again."
