"""The exact problem an agent is told about for each unusable marker, and where CITATIONS ends."""

from __future__ import annotations

import json

import pytest

from progress.stream.markers import MarkerProblem, ProgressMarker, parse_progress
from progress.stream.markerscan import salvage_citations_end


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("<!-- PROGRESS: {phase: searching} -->", "PROGRESS marker does not contain valid JSON."),
        ("<!-- PROGRESS: " + "[" * 100_000 + " -->", "PROGRESS marker does not contain valid JSON."),
        ("<!-- PROGRESS: [1, 2] -->", "PROGRESS marker JSON is not an object."),
        ('<!-- PROGRESS: "searching" -->', "PROGRESS marker JSON is not an object."),
        ('<!-- PROGRESS: {"step": 1} -->', "PROGRESS marker has no phase."),
        ('<!-- PROGRESS: {"phase": "  "} -->', "PROGRESS marker has no phase."),
        ('<!-- PROGRESS: {"phase": 3} -->', "PROGRESS marker has no phase."),
    ],
)
def test_unusable_marker_is_reported_with_its_text(raw, message):
    """The problem names what is wrong and keeps exactly what the agent wrote."""
    assert parse_progress(raw) == MarkerProblem(message, raw)


def test_marker_written_without_blanks_parses():
    raw = '<!--PROGRESS:{"phase":"searching","step":2}-->'
    assert parse_progress(raw) == ProgressMarker("searching", 2, None, "", raw)


def test_marker_fields_are_normalised():
    """Phase trimmed, lower-cased and cut to 40; detail on one line and cut to 100; no detail is ""."""
    raw = '<!-- PROGRESS: {"phase": " ' + "P" * 50 + ' ", "detail": "a\\n  b"} -->'
    marker = parse_progress(raw)
    assert marker.phase == "p" * 40
    assert marker.detail == "a b"
    assert parse_progress('<!-- PROGRESS: {"phase": "x", "detail": 5} -->').detail == ""
    assert parse_progress('<!-- PROGRESS: {"phase": "x"} -->').detail == ""
    assert (
        parse_progress('<!-- PROGRESS: {"phase": "x", "detail": "' + "d" * 101 + '"} -->').detail == "d" * 100
    )


def citations_with_closers(n_before: int) -> tuple[str, int]:
    """An unbalanced CITATIONS body with ``n_before`` "-->" inside an excerpt before the real end.

    Returns the held text and where the real end is (just past its "-->")."""
    excerpt = " --> ".join(f"part {i}" for i in range(n_before + 1))
    body = json.dumps([{"id": "c1", "excerpt": excerpt}])
    held = f"<!-- CITATIONS: {body} -->"
    return held, len(held)


def test_salvage_finds_the_end_after_closers_inside_an_excerpt():
    """Up to 20 "-->" are tried in turn: the first after which the body parses is the end."""
    held, end = citations_with_closers(19)  # the real end is the 20th "-->"
    assert salvage_citations_end(held) == end
    held, _ = citations_with_closers(20)  # the 21st: past the bound, the first "-->" is taken
    first = held.find("-->") + 3
    assert salvage_citations_end(held) == first


def test_salvage_without_any_closer():
    assert salvage_citations_end('<!-- CITATIONS: [{"id": "c1"') == -1
