"""The SVG run timeline: well-formed, faithful to the events, and safe."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta

from core.svgtimeline import MAX_DESC_PHASES, MAX_PHASES, MAX_STEPS, render_svg

NS = "{http://www.w3.org/2000/svg}"
ALLOWED = {"svg", "g", "rect", "line", "text", "title", "desc", "circle", "path"}
T0 = datetime(2026, 11, 22, 23, 10, tzinfo=UTC)


def ev(seq, kind, at, *, phase="", detail="", payload=None, stage="primary"):
    """One event dict as ``event_dict`` makes it, ``at`` seconds into the run."""
    created = (T0 + timedelta(seconds=at)).isoformat() if isinstance(at, (int, float)) else at
    return {
        "seq": seq,
        "kind": kind,
        "stage": stage,
        "phase": phase,
        "step": 0,
        "total": 5,
        "detail": detail,
        "payload": payload or {},
        "created_at": created,
    }


def run_events():
    """A small finished run: three phases, two tool steps (one failed), a heartbeat."""
    return [
        ev(1, "run_start", 0),
        ev(2, "phase", 1, phase="planning"),
        ev(3, "phase", 3, phase="searching"),
        ev(4, "tool_start", 4, detail="Reading notes/auth.md", payload={"tool_use_id": "a"}),
        ev(5, "tool_start", 5, detail="Grep JWT", payload={"tool_use_id": "b"}),
        ev(6, "tool_end", 6, payload={"tool_use_id": "a", "is_error": False}),
        ev(7, "heartbeat", 8),
        ev(8, "tool_end", 9, payload={"tool_use_id": "b", "is_error": True}),
        ev(9, "phase", 10, phase="synthesizing"),
        ev(10, "text_delta", 11, payload={"text": "hi"}),
        ev(11, "result", 12),
        ev(12, "end", 12.5),
    ]


def parse(svg):
    """Parse the output; fail the test if it is not well-formed XML."""
    return ET.fromstring(svg)


def classes(root, name):
    """Elements whose class attribute contains ``name`` as a word, in document order."""
    return [el for el in root.iter() if name in (el.get("class") or "").split()]


def assert_safe(root):
    """Only plain drawing elements; no event-handler attributes; no external references."""
    for el in root.iter():
        assert el.tag.startswith(NS), el.tag
        assert el.tag[len(NS) :] in ALLOWED, el.tag
        for attr in el.attrib:
            assert not attr.lower().startswith("on"), attr
            assert "href" not in attr.lower(), attr


def test_parses_with_accessible_title():
    """The SVG is well-formed, labelled by its title, and summarises the run."""
    root = parse(render_svg(run_events()))
    assert root.tag == NS + "svg"
    assert root.get("role") == "img"
    title = root.find(NS + "title")
    assert title.get("id") in root.get("aria-labelledby").split()
    assert title.text == "Run timeline: 3 phases, 2 steps, 12.5 s"
    assert_safe(root)


def test_one_band_per_phase_in_order():
    """Each phase gets one band, named and classed, in the order they happened."""
    root = parse(render_svg(run_events()))
    bands = classes(root, "phase")
    assert [b.get("class") for b in bands] == [
        "phase phase-planning",
        "phase phase-searching",
        "phase phase-synthesizing",
    ]
    labels = [t.text for t in classes(root, "phase-label")]
    assert labels == ["planning", "searching", "synthesizing"]
    xs = [float(b.find(NS + "rect").get("x")) for b in bands]
    assert xs == sorted(xs)
    last = bands[-1].find(NS + "rect")
    assert float(last.get("x")) + float(last.get("width")) <= 640 - 8 + 0.2


def test_repeated_phase_events_merge_into_one_band():
    """A second event for the current phase does not start a new band."""
    events = [ev(1, "phase", 0, phase="searching"), ev(2, "phase", 2, phase="searching"), ev(3, "end", 4)]
    root = parse(render_svg(events))
    assert len(classes(root, "phase")) == 1


def test_step_bars_match_tool_pairs_and_mark_failure():
    """One bar per tool_start spanning to its tool_end; the failed one is marked."""
    root = parse(render_svg(run_events(), width=640))
    steps = classes(root, "step")
    assert [s.get("class") for s in steps] == ["step step-done", "step step-failed"]
    scale = (640 - 16) / 12.5
    assert abs(float(steps[0].get("width")) - 2 * scale) < 0.2
    assert abs(float(steps[1].get("width")) - 4 * scale) < 0.2
    assert steps[0].get("y") != steps[1].get("y"), "overlapping steps share a lane"
    assert steps[1].get("fill") != steps[0].get("fill")
    assert "Reading notes/auth.md" in classes(root, "step-mark")[0].find(NS + "title").text
    assert len(classes(root, "heartbeat")) == 1


def test_unclosed_step_runs_to_the_end():
    """A tool_start without its tool_end is drawn open until the last event."""
    events = [ev(1, "run_start", 0), ev(2, "tool_start", 2, payload={"tool_use_id": "x"}), ev(3, "end", 4)]
    root = parse(render_svg(events, width=416))
    (step,) = classes(root, "step")
    assert step.get("class") == "step step-open"
    assert abs(float(step.get("width")) - 200) < 0.2
    assert classes(root, "phase") == []
    assert root.find(NS + "title").text == "Run timeline: 0 phases, 1 steps, 4.0 s"


def test_hostile_text_is_escaped():
    """Markup in phase names and step details stays text."""
    nasty = '<script>alert(1)</script> "><svg onload=alert(1)> & \x00\x1b'
    events = [
        ev(1, "phase", 0, phase='<script>x</script>"&'),
        ev(2, "tool_start", 1, detail=nasty, payload={"tool_use_id": nasty}),
        ev(3, "tool_end", 2, payload={"tool_use_id": nasty, "is_error": True}),
        ev(4, "end", 3),
    ]
    svg = render_svg(events)
    root = parse(svg)
    assert_safe(root)
    assert "<script" not in svg
    (step,) = classes(root, "step")
    assert step.get("class") == "step step-failed"
    assert "<svg onload=alert(1)> &" in classes(root, "step-mark")[0].find(NS + "title").text
    (band,) = classes(root, "phase")
    assert band.get("class") == "phase phase--script-x--script---"


def test_too_few_timestamps_give_empty_string():
    """No events, one event, or only garbled timestamps: nothing to draw."""
    assert render_svg([]) == ""
    assert render_svg([ev(1, "run_start", 0)]) == ""
    assert render_svg([ev(1, "run_start", "yesterday"), ev(2, "end", None), ev(3, "end", 7)]) == ""


def test_garbled_timestamps_are_skipped():
    """Events with missing or garbled created_at are left out, the rest drawn."""
    events = [
        *run_events(),
        ev(20, "phase", "not a time", phase="capturing"),
        ev(21, "tool_start", None, payload={"tool_use_id": "z"}),
        ev(22, "heartbeat", 12345),
    ]
    events[-1]["created_at"] = ["wrong"]
    root = parse(render_svg(events))
    assert root.find(NS + "title").text == "Run timeline: 3 phases, 2 steps, 12.5 s"


def test_zero_length_run():
    """All events at one instant still render a valid picture."""
    events = [
        ev(1, "run_start", 0),
        ev(2, "phase", 0, phase="planning"),
        ev(3, "tool_start", 0, payload={"tool_use_id": "a"}),
        ev(4, "tool_end", 0, payload={"tool_use_id": "a"}),
        ev(5, "end", 0),
    ]
    root = parse(render_svg(events))
    assert root.find(NS + "title").text == "Run timeline: 1 phases, 1 steps, 0.0 s"
    assert len(classes(root, "phase")) == 1
    assert len(classes(root, "step")) == 1


def test_thousands_of_steps_are_capped():
    """5,000 events draw at most MAX_STEPS steps, and the title says so."""
    events = [ev(0, "run_start", 0), ev(1, "phase", 0, phase="searching")]
    for i in range(2, 5000, 2):
        tool = {"tool_use_id": f"t{i}", "is_error": i % 10 == 0}
        events.append(ev(i, "tool_start", i / 10, detail=f"step {i}", payload=tool))
        events.append(ev(i + 1, "tool_end", i / 10 + 0.05, payload=tool))
    root = parse(render_svg(events))
    assert len(classes(root, "step")) == MAX_STEPS
    title = root.find(NS + "title").text
    assert title.startswith("Run timeline: 1 phases, 2499 steps, ")
    assert f"first {MAX_STEPS} of 2499 steps drawn" in title


def test_thousands_of_phase_switches_are_capped():
    """A run that switches phase 3,000 times draws MAX_PHASES bands and lists only the
    first phase names, saying how many more there were (the page stays small)."""
    events = [ev(0, "run_start", 0)]
    events += [ev(n, "phase", n / 10, phase="searching" if n % 2 else "analyzing") for n in range(1, 3001)]
    events.append(ev(3001, "end", 301))
    svg = render_svg(events)
    root = parse(svg)
    assert len(classes(root, "phase")) == MAX_PHASES
    assert f"first {MAX_PHASES} of 3000 phases drawn" in root.find(NS + "title").text
    desc = root.find(NS + "desc").text
    assert desc.count(",") == MAX_DESC_PHASES and desc.endswith(f"and {3000 - MAX_DESC_PHASES} more.")
    assert len(svg) < 100_000


def test_short_run_axis_reads_in_distinct_milliseconds():
    """A 0.1 s run's axis says 0 ms, 20 ms, … 100 ms: no two ticks read the same."""
    root = parse(
        render_svg([ev(1, "run_start", 0), ev(2, "phase", 0.01, phase="searching"), ev(3, "end", 0.1)])
    )
    labels = [el.text for el in classes(root, "axis-label")]
    assert labels[:5] == ["0 ms", "20 ms", "40 ms", "60 ms", "80 ms"]
    assert len(set(labels)) == len(labels)


def test_long_run_axis_reads_in_seconds_with_distinct_labels():
    labels = [el.text for el in classes(parse(render_svg(run_events())), "axis-label")]
    assert labels == ["0 s", "5 s", "10 s"]
    root = parse(render_svg([ev(1, "run_start", 0), ev(2, "end", 1.3)]))
    labels = [el.text for el in classes(root, "axis-label")]
    assert labels == ["0.0 s", "0.5 s", "1.0 s"]


def test_every_step_has_a_tick_and_a_tooltip():
    """Steps too short to see as bars still show as ticks, each with its tooltip."""
    events = [ev(1, "run_start", 0)]
    for i in range(5):
        events += [
            ev(2 + 2 * i, "tool_start", 1 + i * 0.001, detail=f"Grep t{i}", payload={"tool_use_id": str(i)}),
            ev(3 + 2 * i, "tool_end", 1.0005 + i * 0.001, payload={"tool_use_id": str(i)}),
        ]
    events.append(ev(20, "end", 30))
    root = parse(render_svg(events))
    ticks = classes(root, "step-tick")
    assert len(ticks) == 5
    marks = classes(root, "step-mark")  # each tick with its bar, under one tooltip
    assert [m.find(NS + "title").text.split(" (")[0] for m in marks] == [f"Grep t{i}" for i in range(5)]


def test_phases_are_named_in_a_legend_with_their_time():
    """Every phase is named with its duration under the axis, even when its
    band is too narrow for a label; the band's tooltip gives its span."""
    events = [
        ev(1, "run_start", 0),
        ev(2, "phase", 0.001, phase="planning"),
        ev(3, "phase", 0.003, phase="searching"),
        ev(4, "phase", 0.2, phase="capturing"),
        ev(5, "end", 0.5),
    ]
    root = parse(render_svg(events))
    legend = [
        el.text
        for el in root.iter(NS + "text")
        if el.text and el.text.split()[0] in {"planning", "searching", "capturing"} and " " in el.text
    ]
    assert legend == ["planning 2 ms", "searching 197 ms", "capturing 300 ms"]
    band = classes(root, "phase-planning")[0]
    assert band.find(NS + "title").text == "planning: 2 ms (from 1 ms to 3 ms)"
    assert int(root.get("height")) > 100  # room for the legend
