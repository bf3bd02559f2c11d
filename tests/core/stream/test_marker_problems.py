"""The exact problem an agent is told about for each unusable marker, and where CITATIONS ends."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.stream.markers import MarkerProblem, MarkerStripper, ProgressMarker, parse_progress
from core.stream.markerscan import salvage_citations_end


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


# -- what is shown at once and what is held back ---------------------------------------------


def per_delta(pieces: list[str]) -> tuple[list[str], list, list, MarkerStripper]:
    """The visible text of each delta as it is fed (the flush last), markers and problems."""
    stripper = MarkerStripper()
    shown, markers, problems = [], [], []
    for piece in [*pieces, None]:
        visible, more_markers, more_problems = stripper.flush() if piece is None else stripper.feed(piece)
        shown.append(visible)
        markers += more_markers
        problems += more_problems
    return shown, markers, problems, stripper


@pytest.mark.parametrize(
    "text",
    [
        "Use <b>bold",  # a tag, not a comment
        "see <!-- X",  # a comment that names something else
        "<!--\u00a0PROG",  # only blanks, tabs and line breaks may come before the keyword
        "<!-- PROGRESS\n",  # only blanks and tabs between the keyword and ":"
        "<!-- PROGRESSX",
        "<!--" + " " * 21 + "PRO",  # more than 20 blanks: never an opener
    ],
)
def test_text_that_cannot_open_a_marker_is_shown_at_once(text):
    """Text at the end of a delta is held back only while it can still become a marker opener."""
    shown, _, _, _ = per_delta([text])
    assert shown == [text, ""]


@pytest.mark.parametrize(
    "text",
    [
        "<",
        "<!-",
        "<!--",
        "<!-- PROG",
        "<!--PROG",
        "<!--" + " " * 20 + "PRO",
        "<!-- PROGRESS",
        "<!-- PROGRESS \t",
        "<!-- CIT",
    ],
)
def test_text_that_may_open_a_marker_is_held_back(text):
    """A possible opener at the end of a delta waits for the next one; at the end it is shown."""
    shown, _, _, _ = per_delta([f"Answer {text}"])
    assert shown == ["Answer ", text]


@pytest.mark.parametrize(
    "opener", ["<!--PROG", "<!-- PROGRESS ", "<!-- PROGRESS", "<!--" + " " * 20 + "PRO", "<!-"]
)
def test_marker_whose_opener_is_cut_at_the_end_of_a_delta(opener):
    """However the opener is cut, the marker is recognised once the rest arrives."""
    rest = {
        "<!--PROG": 'RESS: {"phase": "searching"} -->',
        "<!-- PROGRESS ": ': {"phase": "searching"} -->',
        "<!-- PROGRESS": ' : {"phase": "searching"} -->',
        "<!--" + " " * 20 + "PRO": 'GRESS: {"phase": "searching"} -->',
        "<!-": '- PROGRESS: {"phase": "searching"} -->',
    }[opener]
    shown, markers, problems, _ = per_delta([f"A {opener}", rest + " B"])
    assert "".join(shown) == "A  B"
    assert [m.phase for m in markers] == ["searching"]
    assert problems == []
    assert markers[0].raw == opener + rest


def test_citations_block_whose_closer_comes_in_the_next_delta():
    """The JSON body ends exactly at the end of a delta; its "-->" comes with the next one."""
    shown, markers, problems, stripper = per_delta(['Answer.<!-- CITATIONS: [{"id": "c1"}]', " --> after"])
    assert shown == ["Answer.", " after", ""]
    assert stripper.citations == ['[{"id": "c1"}]']
    assert (markers, problems) == ([], [])


def test_progress_marker_ends_at_its_first_closer():
    """A PROGRESS marker is short JSON without "-->": it ends at the first one, even inside a string."""
    shown, markers, problems, _ = per_delta(['<!-- PROGRESS: {"phase": "x", "detail": "a --> b"} --> c'])
    assert shown == [' b"} --> c', ""]
    assert markers == []
    assert [p.message for p in problems] == ["PROGRESS marker does not contain valid JSON."]


def test_citations_body_that_is_not_json_ends_at_its_first_closer():
    shown, _, problems, stripper = per_delta(['<!-- CITATIONS: X["a --> b"] --> c'])
    assert shown == [' b"] --> c', ""]
    assert stripper.citations == ['X["a']
    assert problems == []


# -- a CITATIONS block closes as soon as its closer arrives, wherever the deltas are cut -------

CITED = [
    {"id": "c1", "excerpt": 'He said "]} --> b" [x] {y}', "location": {"line_start": 5, "line_end": 6}},
    {"id": "c2", "excerpt": "a back\\slash, then ] and }", "confidence": 0.9},
]
# Excerpts quoting what could end the block early: brackets and "-->" inside strings, escaped
# quotes and backslashes (also as the last character of a string), strings with no escape at all.
MORE_CITED = [
    [{"id": "c1", "excerpt": "plain ]] --> text"}, {"id": "c2", "excerpt": "}} -->"}],
    [{"id": "c1", "excerpt": 'ends in a quote: "]]"'}, {"id": "c2", "excerpt": "ends in a backslash \\"}],
    [{"id": "c1", "excerpt": '\\"]] -->'}, {"excerpt": "[[{{ -->", "id": "c2"}],
]


def citation_text(cited: list) -> str:
    return f"Answer.<!-- CITATIONS: {json.dumps(cited)} --> after."


CIT_BODY = json.dumps(CITED)
CIT_TEXT = citation_text(CITED)


def assert_closed_live(pieces: list[str], cited: list = CITED) -> None:
    """The text after the block is shown by the feed that brings the closer, not held to the end."""
    shown, markers, problems, stripper = per_delta(pieces)
    assert "".join(shown) == "Answer. after."
    assert shown[-1] == ""  # nothing was left for the end of the text
    assert stripper.citations == [json.dumps(cited)]
    assert json.loads(stripper.citations[0]) == cited
    assert (markers, problems) == ([], [])


def test_citations_cut_once_anywhere_close_live():
    for cut in range(1, len(CIT_TEXT)):
        assert_closed_live([CIT_TEXT[:cut], CIT_TEXT[cut:]])


@pytest.mark.parametrize("cited", MORE_CITED)
def test_quoted_closers_and_escapes_cut_anywhere_close_live(cited):
    text = citation_text(cited)
    for cut in range(1, len(text)):
        assert_closed_live([text[:cut], text[cut:]], cited)
    assert_closed_live(list(text), cited)


def test_citations_cut_into_single_characters_close_live():
    assert_closed_live(list(CIT_TEXT))


@given(st.lists(st.integers(min_value=1, max_value=len(CIT_TEXT) - 1), max_size=10))
def test_citations_cut_many_times_close_live(cuts):
    bounds = [0, *sorted(set(cuts)), len(CIT_TEXT)]
    assert_closed_live([CIT_TEXT[a:b] for a, b in itertools.pairwise(bounds)])


def test_citations_body_that_is_not_json_closes_live():
    shown, _, _, stripper = per_delta(["A<!-- CITATIONS: none", " found --> B"])
    assert shown == ["A", " B", ""]
    assert stripper.citations == ["none found"]


# -- the length limits of an open marker ---------------------------------------------------

NOT_CLOSED = "PROGRESS marker is not closed within 2,000 characters; it is shown as text."


def progress_marker(length: int) -> str:
    """A PROGRESS marker of exactly ``length`` characters, closer included."""
    head, tail = '<!-- PROGRESS: {"phase": "x", "detail": "', '"} -->'
    return head + "d" * (length - len(head) - len(tail)) + tail


@pytest.mark.parametrize("size", [0, 1, 7, 100])
def test_progress_marker_of_2000_characters_closes(size):
    """Up to 2,000 characters, closer included, a PROGRESS marker is a marker, however it is cut."""
    text = progress_marker(2000) + " after"
    pieces = [text[i : i + size] for i in range(0, len(text), size)] if size else [text]
    shown, markers, problems, _ = per_delta(pieces)
    assert "".join(shown) == " after"
    assert [(m.phase, len(m.detail)) for m in markers] == [("x", 100)]
    assert problems == []


@pytest.mark.parametrize("size", [0, 7])
def test_progress_marker_longer_than_2000_characters_is_shown_as_text(size):
    """Past 2,000 characters the marker is released as text (a closer split by a delta
    boundary right at the limit is still seen, so the limit is exact only within a delta)."""
    text = progress_marker(2001) + " after"
    pieces = [text[i : i + size] for i in range(0, len(text), size)] if size else [text]
    shown, markers, problems, _ = per_delta(pieces)
    assert "".join(shown) == text
    assert markers == []
    assert problems == [MarkerProblem(NOT_CLOSED, text[:2000])]


def test_open_marker_at_the_limit_is_released_by_the_next_delta():
    """A delta ending exactly at the limit holds the marker; the next one shows it with itself."""
    unclosed = progress_marker(2003)[:2000]
    shown, markers, problems, _ = per_delta([unclosed, "ab"])
    assert shown == ["", unclosed + "ab", ""]
    assert markers == []
    assert problems == [MarkerProblem(NOT_CLOSED, unclosed)]  # what was held, cut to 2,000


def test_long_citations_block_is_not_cut_at_the_progress_limit():
    cited = [{"id": f"c{i}", "excerpt": "e" * 200 + " --> ]"} for i in range(20)]
    text = f"Answer.<!-- CITATIONS: {json.dumps(cited)} --> after."
    for pieces in ([text], [text[i : i + 300] for i in range(0, len(text), 300)]):
        shown, _, problems, stripper = per_delta(pieces)
        assert "".join(shown) == "Answer. after."
        assert [json.loads(body) for body in stripper.citations] == [cited]
        assert problems == []
