"""Fields a mutation run showed no test held: a phase event carries its marker's step and total,
and a compacted payload cleans NUL characters and lone surrogates in the strings of its dicts
and lists."""

from __future__ import annotations

import json

from core.stream import StreamInterpreter
from core.stream.events import compact


def test_phase_event_carries_the_markers_step_and_total():
    """``"step": 2, "total": 5`` in a PROGRESS marker are the phase event's step and total."""
    marker = '<!-- PROGRESS: {"phase": "Searching", "step": 2, "total": 5, "detail": "docs"} -->'
    line = {
        "type": "assistant",
        "message": {"id": "m1", "content": [{"type": "text", "text": marker + "A."}]},
    }
    events = StreamInterpreter().feed(json.dumps(line))
    assert [(e.kind, e.phase, e.step, e.total, e.detail) for e in events if e.kind == "phase"] == [
        ("phase", "searching", 2, 5, "docs")
    ]


def test_compact_cleans_nul_and_lone_surrogates_in_short_strings():
    """A short string holding NUL (ASCII) or a lone surrogate (not ASCII) is cleaned like a long
    one: the character is replaced, the rest kept."""
    assert compact({"a": "é\ud800", "b": "a\x00b", "c": "plain"}) == {
        "a": "é\ufffd",
        "b": "a\ufffdb",
        "c": "plain",
    }
    assert compact(["é\ud800", "a\x00b", "plain"]) == ["é\ufffd", "a\ufffdb", "plain"]
    assert compact({"list": ["a\x00b"]}) == {"list": ["a\ufffdb"]}
