from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.stream.events import StreamEvent, clean_text, clip, compact, strip_ansi


def test_clip_collapses_whitespace_and_marks_cuts():
    """Details are one line of at most 100 characters, ending in "…" when cut."""
    assert clip("a\n\n  b") == "a b"
    assert clip("x" * 300) == "x" * 99 + "…"
    assert clip(None) == ""


def test_strip_ansi_removes_colour_codes_and_controls():
    """Terminal colour codes and control characters disappear; text and box drawing stay."""
    assert strip_ansi("\x1b[36m╭─ Claude\x1b[0m\x07\x00") == "╭─ Claude"


def test_compact_bounds_strings_lists_and_depth():
    """Long strings say how long they were; long lists and deep nesting are trimmed."""
    out = compact({"s": "y" * 1000, "l": list(range(80)), "deep": [[[[[["bottom"]]]]]]})
    assert out["s"].endswith("…[1,000 chars]")
    assert len(out["s"]) < 600
    assert out["l"][-1] == "… 30 more items"
    assert "bottom" not in json.dumps(out)


def test_compact_makes_values_strict_json():
    """NaN and infinities become null and NUL characters are replaced, so any JSON store accepts them."""
    out = compact({"nan": float("nan"), "inf": float("-inf"), "nul": "a\x00b", 3: True})
    assert out == {"nan": None, "inf": None, "nul": "a\ufffdb", "3": True}
    json.dumps(out, allow_nan=False)


@given(st.text(st.characters(exclude_categories=()) | st.sampled_from("\x00\ud800\udfff")))
def test_clean_text_replaces_only_nul_and_lone_surrogates(text):
    """Any text comes out as valid UTF-8 without NUL: exactly those characters become U+FFFD."""
    cleaned = clean_text(text)
    expected = "".join("\ufffd" if ch == "\x00" or 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in text)
    assert cleaned == expected
    cleaned.encode("utf-8")


@pytest.mark.parametrize("text", ["", "plain ascii", "café ╭─ \U0001f600"])
def test_clean_text_returns_storable_text_itself(text):
    """Text that is already storable is returned as it is, not copied."""
    assert clean_text(text) is text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a\x00b", "a\ufffdb"),
        ("é\x00", "é\ufffd"),
        ("lone \ud800", "lone \ufffd"),
        ("\udc80\x00", "\ufffd\ufffd"),
    ],
)
def test_clean_text_replaces_nul_and_lone_surrogates(text, expected):
    assert clean_text(text) == expected


def test_event_to_dict_has_every_field():
    """to_dict() gives the JSON message shape used by recorders and sockets."""
    event = StreamEvent("phase", "primary", "Searching", "searching", 2, 5, {"phase": "searching"})
    assert event.to_dict() == {
        "kind": "phase",
        "stage": "primary",
        "detail": "Searching",
        "phase": "searching",
        "step": 2,
        "total": 5,
        "payload": {"phase": "searching"},
    }


def test_result_detail_shows_a_cost_only_when_there_is_one():
    """Claude Code's cost is shown; an offline engine's zero cost is not."""
    from core.stream.details import result_detail

    assert (
        result_detail(False, 12_300, 4, 0.0123, [], None, "success")
        == "Completed in 12.3 s · 4 turns · $0.0123"
    )
    assert result_detail(False, 40, 1, 0.0, [], None, "success") == "Completed in 0.0 s · 1 turn"
    assert (
        result_detail(True, 40, 1, 0.5, ["Rate limited"], None, "error_during_execution")
        == "Failed: Rate limited"
    )
