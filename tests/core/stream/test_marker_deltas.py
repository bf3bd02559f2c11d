"""Markers whose JSON holds escapes and closers, cut into deltas at any point:
the stream's text arrives in arbitrary pieces, and a backslash at the end of one
piece escapes the first character of the next."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from core.stream import StreamInterpreter
from core.stream.markers import MarkerStripper, marker_body
from core.stream.markerscan import salvage_citations_end

ESCAPED = json.dumps([{"id": "c1", "source_file": "a.md", "excerpt": 'say "-->" then \\ and \\"-->'}])
BLOCK = f"<!-- CITATIONS: {ESCAPED} -->"
TEXT = f"Answer [c1].\n{BLOCK}\nAfter."


def run(pieces: list[str]) -> tuple[str, list[str], list[str]]:
    stripper = MarkerStripper()
    visible, problems = [], []
    for piece in pieces:
        v, _, p = stripper.feed(piece)
        visible.append(v)
        problems += p
    v, _, p = stripper.flush()
    return "".join(visible) + v, stripper.citations, problems + p


def test_escape_at_every_delta_boundary():
    """Cut anywhere (right after a backslash included), the block ends at its real closer: the
    escaped quote and the ``-->`` inside the excerpt do not end it."""
    for cut in range(len(TEXT) + 1):
        assert run([TEXT[:cut], TEXT[cut:]]) == ("Answer [c1].\n\nAfter.", [ESCAPED], []), cut


def test_escape_at_every_pair_of_boundaries():
    """Three pieces, cut at any two points inside the block, give the same block."""
    start = TEXT.index("<!--")
    end = start + len(BLOCK)
    for first in range(start, end + 1, 3):
        for second in range(first, end + 1, 5):
            pieces = [TEXT[:first], TEXT[first:second], TEXT[second:]]
            assert run(pieces)[1] == [ESCAPED], (first, second)


excerpts = st.text(
    st.sampled_from(['"', "\\", "-", ">", "<", "!", " ", "a", "]", "}", "{", "["]), max_size=30
)


@settings(max_examples=300, deadline=None)
@given(excerpts, st.lists(st.integers(0, 400), max_size=6))
def test_property_any_excerpt_any_cuts(excerpt, cuts):
    """For any excerpt made of quotes, backslashes, brackets and closer characters, and any
    cuts into deltas, the block's JSON comes back exactly and nothing of it is shown."""
    body = json.dumps([{"id": "c1", "source_file": "a.md", "excerpt": excerpt}])
    text = f"Before <!-- CITATIONS: {body} --> after"
    points = sorted({min(c, len(text)) for c in cuts})
    pieces = [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]
    assert run(pieces) == ("Before  after", [body], [])


@settings(max_examples=200, deadline=None)
@given(excerpts, st.integers(1, 6))
def test_property_many_small_deltas(excerpt, size):
    """A block streamed in many small deltas, most without a ">" (held and
    scanned together when one comes), ends at its real closer, as when the
    pieces are few."""
    body = json.dumps([{"id": "c1", "source_file": "a.md", "excerpt": excerpt}])
    text = f'Before <!-- CITATIONS: {body} --> after <!-- PROGRESS: {{"phase": "capturing"}} -->.'
    pieces = [text[at : at + size] for at in range(0, len(text), size)]
    visible, citations, problems = run(pieces)
    assert (visible, citations, problems) == ("Before  after .", [body], [])


def _delta(text: str) -> dict:
    return {
        "type": "stream_event",
        "event": {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
    }


def _answer_text(lines) -> str:
    interpreter = StreamInterpreter()
    start = {"type": "stream_event", "event": {"type": "content_block_start", "index": 0}}
    start["event"]["content_block"] = {"type": "text", "text": ""}
    stop = {"type": "stream_event", "event": {"type": "content_block_stop", "index": 0}}
    events = []
    for line in [json.dumps(start), *lines, json.dumps(stop)]:
        events += interpreter.feed(line)
    events += interpreter.finish()
    return "".join(e.payload.get("text", "") for e in events if e.kind == "text")


def test_stream_event_lines_off_the_fast_path_are_read():
    """stream_event lines as bytes, with a CRLF or a BOM (which skip the one-step fast path) give
    the same answer text as plain lines."""
    plain = [json.dumps(_delta("Hello ")), json.dumps(_delta("world."))]
    assert _answer_text(plain) == "Hello world."
    odd = [json.dumps(_delta("Hello ")).encode(), "\ufeff" + json.dumps(_delta("world.")) + "\r\n"]
    assert _answer_text(odd) == "Hello world."


def test_salvage_ends_at_the_first_closer_after_which_the_body_parses():
    """For an unbalanced CITATIONS block, the end is just after the first "-->" that leaves valid
    JSON before it, skipping those inside strings."""
    one = '<!-- CITATIONS: [{"e": "x --> y"}] -->'
    assert salvage_citations_end(one + " tail") == len(one)
    two = '<!-- CITATIONS: [{"e": "x --> y --> z"}] -->'
    assert salvage_citations_end(two + " tail --> more") == len(two)


def test_salvage_falls_back_to_the_first_closer():
    """When no closer leaves valid JSON, or only after more than 20 tries, the block ends at the
    first closer; with none at all, nowhere (-1)."""
    broken = '<!-- CITATIONS: [{"e": "x" --> broken --> never'
    assert salvage_citations_end(broken) == broken.index("-->") + 3
    many = '<!-- CITATIONS: ["' + "-->" * 25 + '"] -->'
    assert salvage_citations_end(many) == many.index("-->") + 3
    assert salvage_citations_end("no closer") == -1


def test_marker_body_with_and_without_closer():
    """A marker's body is the text after its colon, without the closer when there is one."""
    assert marker_body("<!-- CITATIONS: [1] -->") == "[1]"
    assert marker_body("<!-- CITATIONS:[1]") == "[1]"
    assert marker_body("<!-- PROGRESS: {} --> ") == "{} -->"


def test_long_unreadable_line_keeps_its_length_and_is_marked_cut():
    """A broken JSON line longer than 2,000 characters is shown cut, marked truncated, with its full
    length; a short one is not marked."""
    interpreter = StreamInterpreter()
    (long_raw,) = interpreter.feed("{" + "x" * 3000)
    assert long_raw.kind == "raw"
    assert long_raw.payload["length"] == 3001
    assert long_raw.payload["truncated"] is True
    (short_raw,) = interpreter.feed("{broken")
    assert short_raw.payload["length"] == 7
    assert "truncated" not in short_raw.payload


def test_long_init_text_is_marked_cut():
    """A plain-text line (a CLI banner) over 10,000 characters is kept cut and marked truncated;
    a line of only escape codes shows "…"."""
    interpreter = StreamInterpreter()
    (long_text,) = interpreter.feed("banner " * 2000)
    assert long_text.kind == "init_text"
    assert long_text.payload["truncated"] is True
    (codes,) = interpreter.feed("\x1b[36m\x1b[0m")
    assert codes.detail == "…"
    assert "truncated" not in codes.payload
