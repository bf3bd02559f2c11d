from __future__ import annotations

from core.stream.markers import (
    MAX_PROGRESS_CHARS,
    MarkerStripper,
    ProgressMarker,
    parse_progress,
    strip_markers,
)

MARKER = '<!-- PROGRESS: {"phase": "searching", "step": 2, "total": 5, "detail": "Scanning 47 files"} -->'
CITATIONS = '<!-- CITATIONS: [{"id": "c1", "source_file": "a/b.md", "excerpt": "x --> y"}] -->'
TEXT = f"Intro {MARKER}\nBody <!-- note --> a < b {CITATIONS}\nEnd"
VISIBLE = "Intro \nBody <!-- note --> a < b \nEnd"


def run(pieces: list[str]) -> tuple[str, list, list, MarkerStripper]:
    stripper = MarkerStripper()
    visible, markers, problems = [], [], []
    for piece in pieces:
        v, m, p = stripper.feed(piece)
        visible.append(v)
        markers += m
        problems += p
    v, m, p = stripper.flush()
    return "".join(visible) + v, markers + m, problems + p, stripper


def test_plain_text_passes_through_unchanged():
    """Text without "<" is returned as is, immediately, with nothing held back."""
    stripper = MarkerStripper()
    assert stripper.feed("Hello world.") == ("Hello world.", [], [])
    assert stripper.flush() == ("", [], [])


def test_progress_marker_is_parsed_and_removed():
    """A complete marker becomes a ProgressMarker and disappears from the visible text."""
    visible, markers, problems, _ = run([f"Before {MARKER} after"])
    assert visible == "Before  after"
    assert problems == []
    assert markers == [
        ProgressMarker(phase="searching", step=2, total=5, detail="Scanning 47 files", raw=MARKER)
    ]


def test_marker_split_at_every_boundary():
    """Splitting the text in two at any point gives the same visible text, markers and citations."""
    for cut in range(len(TEXT) + 1):
        visible, markers, problems, stripper = run([TEXT[:cut], TEXT[cut:]])
        assert visible == VISIBLE, cut
        assert [m.phase for m in markers] == ["searching"], cut
        assert problems == [], cut
        assert stripper.citations == ['[{"id": "c1", "source_file": "a/b.md", "excerpt": "x --> y"}]'], cut


def test_marker_split_at_every_pair_of_boundaries():
    """Three pieces split at any two points still give the same result."""
    text = f"a{MARKER}b"
    for first in range(len(text) + 1):
        for second in range(first, len(text) + 1):
            visible, markers, problems, _ = run([text[:first], text[first:second], text[second:]])
            assert (visible, len(markers), problems) == ("ab", 1, []), (first, second)


def test_one_character_deltas():
    """Feeding one character at a time gives the same result as one feed."""
    visible, markers, _, stripper = run(list(TEXT))
    assert visible == VISIBLE
    assert len(markers) == 1
    assert len(stripper.citations) == 1


def test_visible_text_is_not_held_back_needlessly():
    """Text before a possible marker start is released at once; only the "<!-" prefix waits."""
    stripper = MarkerStripper()
    assert stripper.feed("Answer so far <!-")[0] == "Answer so far "
    assert stripper.feed("- plain comment -->")[0] == "<!-- plain comment -->"


def test_ordinary_html_comment_passes_through():
    """HTML comments that are not PROGRESS/CITATIONS markers stay in the visible text."""
    assert strip_markers("x <!-- TODO: fix --> y") == "x <!-- TODO: fix --> y"


def test_lone_less_than_at_end_is_released_on_flush():
    """A trailing "<" or "<!-" that never became a marker is returned by flush()."""
    stripper = MarkerStripper()
    assert stripper.feed("a <!-") == ("a ", [], [])
    assert stripper.flush() == ("<!-", [], [])


def test_citations_block_is_held_back_and_returned():
    """The CITATIONS block never reaches the visible text; its body is kept in ``citations``."""
    visible, _, problems, stripper = run(["Answer [c1].\n\n", CITATIONS[:20], CITATIONS[20:]])
    assert visible == "Answer [c1].\n\n"
    assert problems == []
    assert stripper.citations[0].startswith('[{"id": "c1"')


def test_citations_excerpt_containing_closer_does_not_end_block():
    """An excerpt holding "-->" inside a JSON string does not end the CITATIONS block early."""
    visible, _, _, stripper = run([CITATIONS + " tail"])
    assert visible == " tail"
    assert stripper.citations[0].endswith('"x --> y"}]')


def test_bad_json_marker_is_reported_with_its_text():
    """A marker whose body is not JSON is removed from the text and reported with its text."""
    bad = "<!-- PROGRESS: {phase: searching} -->"
    visible, markers, problems, _ = run([f"a{bad}b"])
    assert (visible, markers) == ("ab", [])
    assert problems[0].text == bad
    assert "valid JSON" in problems[0].message


def test_marker_without_phase_is_a_problem():
    """A marker whose JSON object has no phase is reported, not turned into a phase."""
    assert "no phase" in parse_progress('<!-- PROGRESS: {"step": 1} -->').message


def test_marker_that_is_not_an_object_is_a_problem():
    """A marker whose JSON is a list is reported."""
    assert "not an object" in parse_progress("<!-- PROGRESS: [1, 2] -->").message


def test_unterminated_marker_at_end_is_a_problem_and_not_shown():
    """A marker still open when the text ends is reported with its text and kept out of view."""
    visible, markers, problems, _ = run(['Text <!-- PROGRESS: {"phase": "plan'])
    assert visible == "Text "
    assert markers == []
    assert problems[0].text == '<!-- PROGRESS: {"phase": "plan'
    assert "not closed" in problems[0].message


def test_unclosed_progress_marker_is_shown_as_text_after_the_limit():
    """A PROGRESS marker never closed within the limit is released as text, so no answer is hidden."""
    text = '<!-- PROGRESS: {"phase": "x"} ' + "word " * (MAX_PROGRESS_CHARS // 4)
    visible, markers, problems, _ = run([text[:50], text[50:]])
    assert visible == text
    assert markers == []
    assert "not closed within" in problems[0].message


def test_unbalanced_citations_block_is_salvaged_at_flush():
    """A CITATIONS body that never balances as JSON still ends at its "-->" when the text ends."""
    block = '<!-- CITATIONS: [{"id": "c1", "excerpt": "unbalanced ] [ " -->'
    visible, _, problems, stripper = run([f"A {block} B"])
    assert visible == "A  B"
    assert problems == []
    assert stripper.citations == ['[{"id": "c1", "excerpt": "unbalanced ] [ "']


def test_step_and_total_accept_numeric_strings():
    """Step and total written as strings or whole floats become integers; junk becomes None."""
    marker = parse_progress('<!-- PROGRESS: {"phase": "Analyzing", "step": "3", "total": 5.0} -->')
    assert (marker.phase, marker.step, marker.total) == ("analyzing", 3, 5)
    marker = parse_progress('<!-- PROGRESS: {"phase": "x", "step": true, "total": "many"} -->')
    assert (marker.step, marker.total) == (None, None)


def test_detail_is_clipped_to_100_characters():
    """A long detail is cut to 100 characters."""
    marker = parse_progress('<!-- PROGRESS: {"phase": "x", "detail": "' + "d" * 300 + '"} -->')
    assert len(marker.detail) == 100


def test_whitespace_variants_of_the_opener_are_recognised():
    """``<!--PROGRESS:`` and ``<!--   PROGRESS :`` are markers too."""
    assert strip_markers('a<!--PROGRESS:{"phase":"x"}-->b') == "ab"
    assert strip_markers('a<!--   PROGRESS :{"phase":"x"}-->b') == "ab"


def test_strip_markers_removes_every_marker_and_the_citations_block():
    """The one-shot helper gives the text a user sees."""
    assert strip_markers(TEXT) == VISIBLE


def test_text_after_citations_block_is_kept():
    """Text following the CITATIONS block remains visible."""
    assert strip_markers(f"{CITATIONS}\nP.S. more") == "\nP.S. more"


def test_text_full_of_unclosed_openers_is_kept_and_finishes():
    """Megabytes of unclosed openers are processed in linear time and no character is lost."""
    for text in ("<!-- PROGRESS:" * 200_000, "<!-- CITATIONS: [" * 100_000):
        visible, _, problems, _ = run([text[:1000], text[1000:]])
        assert visible + problems[-1].text == text
    visible, _, problems, _ = run(["<!-- CITATIONS: [ -->" * 100_000])
    assert problems[-1].message.startswith("Too many unbalanced CITATIONS blocks")
    assert len(visible) > 2_000_000
