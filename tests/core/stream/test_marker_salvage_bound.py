"""How many unbalanced CITATIONS blocks the end of a text salvages: ten are each kept as a
block and removed from the text; from the eleventh on, the rest is shown as text with one
problem, and nothing is lost."""

from __future__ import annotations

from core.stream.markers import MarkerStripper


def _flushed(text: str) -> tuple[str, list[tuple[str, str]], list[str]]:
    stripper = MarkerStripper()
    visible, _, problems = stripper.feed(text)
    rest, _, more = stripper.flush()
    return visible + rest, [(p.message, p.text) for p in problems + more], stripper.citations


def _block(n: int) -> str:
    return f'<!-- CITATIONS: [{{"id": "c{n}", "excerpt": "unbalanced ] [ " -->'


def _body(n: int) -> str:
    return f'[{{"id": "c{n}", "excerpt": "unbalanced ] [ "'


def _text(count: int) -> str:
    return "A" + "".join(f"{_block(n)} T{n}" for n in range(1, count + 1)) + " Z"


def test_ten_unbalanced_blocks_are_all_salvaged():
    """Ten blocks that never balance, each ended by its '-->', are all kept and removed."""
    visible, problems, citations = _flushed(_text(10))
    assert visible == "A T1 T2 T3 T4 T5 T6 T7 T8 T9 T10 Z"
    assert problems == []
    assert citations == [_body(n) for n in range(1, 11)]


def test_the_eleventh_unbalanced_block_and_the_rest_are_shown_as_text():
    """From the eleventh block on, the text is shown as written, with one problem quoting it."""
    for count in (11, 12):
        visible, problems, citations = _flushed(_text(count))
        rest = "".join(f"{_block(n)} T{n}" for n in range(11, count + 1)) + " Z"
        assert visible == "A T1 T2 T3 T4 T5 T6 T7 T8 T9 T10" + rest
        assert problems == [("Too many unbalanced CITATIONS blocks; the rest is shown as text.", rest)]
        assert citations == [_body(n) for n in range(1, 11)]


def test_open_progress_marker_at_the_end_is_reported_not_salvaged():
    """An unclosed PROGRESS marker at the end is a problem quoting it; it is not shown."""
    assert _flushed('A <!-- PROGRESS: {"phase": "x"') == (
        "A ",
        [("PROGRESS marker is not closed with '-->' before the text ended.", '<!-- PROGRESS: {"phase": "x"')],
        [],
    )


def test_markers_and_problems_after_each_salvaged_block_are_all_kept():
    """Markers and problems found in the text after each salvaged block add up over the blocks."""
    stripper = MarkerStripper()
    bad = "<!-- PROGRESS: not json -->"
    text = (
        f'A{_block(1)} <!-- PROGRESS: {{"phase": "one"}} -->{bad} B{_block(2)} '
        f'<!-- PROGRESS: {{"phase": "two"}} -->{bad} C'
    )
    visible, markers, problems = stripper.feed(text)
    rest, more_markers, more_problems = stripper.flush()
    assert visible + rest == "A  B  C"
    assert [m.phase for m in markers + more_markers] == ["one", "two"]
    assert [p.text for p in problems + more_problems] == [bad, bad]
    assert stripper.citations == [_body(1), _body(2)]


def test_text_shown_after_too_many_blocks_is_quoted_up_to_2000_characters():
    """The problem quotes the first 2,000 characters of what is shown; all of it is shown."""
    text = _text(11) + "x" * 3000
    visible, problems, _ = _flushed(text)
    rest = f"{_block(11)} T11 Z" + "x" * 3000
    assert visible.endswith(rest)
    assert problems == [("Too many unbalanced CITATIONS blocks; the rest is shown as text.", rest[:2000])]
