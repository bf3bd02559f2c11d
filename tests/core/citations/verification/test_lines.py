"""LineIndex answers exactly what splitting the buffer into lines would,
whatever order the questions come in (each answer is remembered and the
next one starts from it, so a wrong checkpoint shows up later)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from core.citations.verification import read
from core.citations.verification.hashing import Hasher
from core.citations.verification.lineindex import BlockLines, block_counts
from core.citations.verification.lines import _GUESS, LineIndex
from core.citations.verification.read import scan_file
from core.citations.verification.scan import Request, cited_windows, scan_whole


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


# How much of a file the line index counts, not only what it answers.
#
# ``LineIndex`` promises to count each stretch of a buffer about once: building
# it counts one sample, a walk down a file counts the file about once, an
# answer is counted from the nearer of the checkpoints around it, and a scan
# given the lines already known counts nothing. The buffers here are a
# ``bytes`` subclass that tallies every ``count`` it is asked for (and stops a
# run that would never end), so each promise is checked by the bytes counted,
# never by a clock.


CALLS_CAP = 20_000  # far above what any test here needs: a probe walking byte by byte hits it


class Runaway(AssertionError):
    pass


class Counted(bytes):
    """Bytes that tally the stretches ``count`` is asked to read."""

    counted: int
    count_calls: int

    def __new__(cls, value: bytes) -> Counted:
        made = super().__new__(cls, value)
        made.counted = made.count_calls = 0
        return made

    def count(self, sub, start=None, end=None) -> int:  # type: ignore[override]
        first = 0 if start is None else start
        last = len(self) if end is None else min(end, len(self))
        self.counted += max(0, last - first)
        self.count_calls += 1
        if self.count_calls > CALLS_CAP:
            raise Runaway(f"{self.count_calls} counts")
        return super().count(sub, start, end)

    def reset(self) -> None:
        self.counted = self.count_calls = 0


def body(seed: int, lines: int = 40_000) -> bytes:
    """Lines of uneven length, so a guess from bytes per line is never exact."""
    rnd = random.Random(seed)
    return b"".join(b"x" * rnd.choice((0, 3, 20, 60, 61, 80, 200)) + b"\n" for _ in range(lines))


def starts_of(data: bytes) -> list[int]:
    return [0] + [i + 1 for i, byte in enumerate(data) if byte == 10]


def test_building_an_index_counts_nothing() -> None:
    """An index is built without counting: its first guess of bytes per line
    is a fixed one, and a line near the start is reached by a short walk."""
    data = Counted(body(1))
    index = LineIndex(data)
    assert (data.counted, data.count_calls) == (0, 0)
    assert index.per_line == _GUESS
    assert index.start_of(10) == starts_of(bytes(data))[9]
    assert data.count_calls == 0


def test_the_first_count_teaches_the_guess() -> None:
    """The first count a far line needs replaces the guess with what it saw."""
    data = Counted(body(2))
    index = LineIndex(data)
    assert index.start_of(5000) == starts_of(bytes(data))[4999]
    assert index.per_line != _GUESS
    assert data.counted <= len(data)


def test_walking_down_a_file_counts_it_about_once() -> None:
    """Citations are met in rising line order: reaching each of 200 lines of a
    40,000-line file in turn counts the file about once, in a few counts per line."""
    for seed in range(3):
        raw = body(seed)
        starts = starts_of(raw)
        wanted = sorted(random.Random(seed + 100).sample(range(1, len(starts)), 200))
        data = Counted(raw)
        index = LineIndex(data)
        for line in wanted:
            assert index.start_of(line) == starts[line - 1]
        assert data.counted <= 1.25 * len(raw), (seed, data.counted / len(raw))
        assert data.count_calls <= 2 * len(wanted), (seed, data.count_calls)


def test_lines_asked_in_any_order_are_counted_from_the_checkpoints_kept() -> None:
    """Each answer is remembered: 200 lines asked in random order count a few
    times the file, not once per question from its start."""
    for seed in range(3):
        raw = body(seed)
        starts = starts_of(raw)
        wanted = [random.Random(seed + 100).randint(1, len(starts)) for _ in range(200)]
        data = Counted(raw)
        index = LineIndex(data)
        for line in wanted:
            assert index.start_of(line) == starts[line - 1]
        assert data.counted <= 5 * len(raw), (seed, data.counted / len(raw))
        again = data.counted
        for line in wanted:  # every one of them is a checkpoint now
            assert index.start_of(line) == starts[line - 1]
        assert data.counted == again


def test_an_offset_is_counted_from_the_nearer_checkpoint() -> None:
    """Checkpoints at 0 and at 100,000 bytes: the newlines before 99,000 are
    counted back from the later one (1,000 bytes), before 1,000 on from the start;
    with one at 50,000 too, those before 60,000 on from it."""
    raw = b"".join(b"y" * 99 + b"\n" for _ in range(2000))  # 100-byte lines
    data = Counted(raw)
    index = LineIndex(data)
    assert index.newlines_before(100_000) == 1000
    data.reset()
    assert index.newlines_before(99_000) == 990
    assert (data.counted, data.count_calls) == (1000, 1)
    data.reset()
    assert index.newlines_before(1_000) == 10
    assert (data.counted, data.count_calls) == (1000, 1)
    data.reset()
    assert index.newlines_before(99_500) == 995  # between two kept checkpoints: 500 bytes either way
    assert data.counted == 500
    assert index.newlines_before(50_000) == 500
    data.reset()
    assert index.newlines_before(60_000) == 600  # on from 50,000, not back from 99,000
    assert data.counted == 10_000


def test_a_line_between_two_checkpoints_is_counted_from_the_nearer_end() -> None:
    """With the line count known (a checkpoint at the end) and one at line
    5,001, line 5,100 is counted on from 5,001 and line 9,000 back from the end;
    100-byte lines make each guess land on the line itself."""
    raw = b"".join(b"z" * 99 + b"\n" for _ in range(10_000))
    data = Counted(raw)
    index = LineIndex(data)
    assert index.newlines == 10_000
    data.reset()
    assert index.start_of(9000) == 899_900
    assert data.counted == 100_100  # back from the end, not 899,900 on from the start
    assert index.start_of(5001) == 500_000
    data.reset()
    assert index.start_of(5100) == 509_900
    assert data.counted == 9_900  # on from line 5,001, not 490,100 back from line 9,000


def test_a_scan_given_the_lines_already_known_counts_nothing() -> None:
    """``scan_whole`` with a kept index (its newlines per block) reads the cited
    lines through it: no pass over the body counts them again."""
    raw = body(7, lines=6000)
    starts = starts_of(raw)
    line = 4321
    excerpt = raw[starts[line - 1] : starts[line + 1] - 1].decode()
    assert excerpt.strip()
    data = Counted(raw)
    known = BlockLines(data, block_counts(raw), len(raw))
    requests = [Request.from_excerpt(excerpt, (line, line + 1))]
    scan = scan_whole(requests, data, Hasher(threaded=False).start(data), False, known)
    assert scan.answers[0].in_place
    assert data.count_calls == 0


def test_a_streamed_file_meets_cited_windows_by_their_first_line(tmp_path, monkeypatch):
    """A streamed file is read once, front to back, so its cited windows are taken by first
    line: a long range cited from line 5 is still looked at after a short one from line 200
    that ends before it does."""
    monkeypatch.setattr(read, "WHOLE", 300)
    monkeypatch.setattr(read, "CHUNK", 300)
    monkeypatch.setattr(read, "OVERLAP", 200)
    lines = [f"line {n} says something of its own" for n in range(1, 401)]
    path = tmp_path / "long.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    requests = [
        Request.from_excerpt(lines[4], (5, 300)),  # line 5, in a range ending at 300
        Request.from_excerpt(lines[199], (200, 201)),  # line 200, in one ending at 201
    ]
    assert [window[1:] for window in cited_windows(requests)] == [(5, 300), (200, 201)]
    scan = scan_file(path, requests, Hasher(threaded=False))
    assert [answer.in_place for answer in scan.answers] == [True, True]
