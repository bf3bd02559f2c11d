"""LineIndex answers exactly what splitting the buffer into lines would,
whatever order the questions come in (each answer is remembered and the
next one starts from it, so a wrong checkpoint shows up later)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from core.citations.verification.lines import LineIndex


def _starts(data):
    """Offset of each line's first byte (1-based line n at index n - 1)."""
    nl = b"\n" if isinstance(data, bytes) else "\n"
    starts = [0]
    at = data.find(nl)
    while at >= 0:
        starts.append(at + 1)
        at = data.find(nl, at + 1)
    return starts


def _check(data, questions) -> None:
    index = LineIndex(data)
    starts = _starts(data)
    size = len(data)
    for kind, value in questions:
        if kind == "start":
            line = value % (len(starts) + 40) - 3
            expected = 0 if line <= 1 else (starts[line - 1] if line - 1 < len(starts) else size)
            assert index.start_of(line) == expected, (line, expected)
        elif kind == "end":
            line = value % (len(starts) + 5) + 1
            start = starts[line - 1] if line - 1 < len(starts) else size
            nl = data.find(b"\n" if isinstance(data, bytes) else "\n", start)
            assert index.end_of(line) == (size if nl < 0 else nl)
        elif kind == "line":
            offset = value % (size + 1)
            assert (
                index.line_of(offset) == data.count(b"\n" if isinstance(data, bytes) else "\n", 0, offset) + 1
            )
        else:
            start_line = value % len(starts) + 1
            lines = value % 40
            start = starts[start_line - 1]
            target = start_line + lines
            tstart = starts[target - 1] if target - 1 < len(starts) else size
            nl = data.find(b"\n" if isinstance(data, bytes) else "\n", tstart)
            assert index.end_after(start, lines) == (size if nl < 0 else nl), (start_line, lines)
    assert index.newlines == len(starts) - 1


_lines = st.lists(st.text(alphabet="ab \tx", max_size=30), min_size=0, max_size=300)
_questions = st.lists(
    st.tuples(st.sampled_from(["start", "end", "line", "after"]), st.integers(0, 10**6)), max_size=40
)


@settings(max_examples=200, deadline=None)
@given(_lines, _questions, st.booleans(), st.booleans())
def test_line_index_agrees_with_splitting(lines, questions, as_bytes, final_newline) -> None:
    text = "\n".join(lines) + ("\n" if final_newline and lines else "")
    _check(text.encode() if as_bytes else text, questions)


def test_long_files_far_lines_and_after_an_index_is_joined() -> None:
    # Lines of varying length so guesses from bytes-per-line overshoot and undershoot.
    body = b"".join(b"x" * (n * 37 % 200) + b"\n" for n in range(5000))
    starts = _starts(body)
    index = LineIndex(body)
    for line in (4000, 17, 2500, 2499, 2501, 4999, 5000, 5001, 5002, 1, 3000, 3016, 3017, 2983):
        expected = starts[line - 1] if line - 1 < len(starts) else len(body)
        assert index.start_of(line) == expected, line
    assert index.newlines == 5000
    prefix = b"head\nmore\n"
    joined = LineIndex.after(prefix, index, prefix + body)
    assert joined.newlines == 5002
    assert joined.start_of(3) == len(prefix)
    assert joined.line_of(len(prefix) + starts[99]) == 102
    assert joined.per_line == index.per_line
    fresh = LineIndex(body)
    fresh_joined = LineIndex.after(prefix, fresh, prefix + body)
    assert fresh_joined._total is None
    assert fresh_joined.newlines == 5002
    assert fresh_joined.offsets[0] == 0 and fresh_joined.counts[0] == 0
