"""Reading a file, whole or streamed in line-aligned chunks, answers every
citation as the plain definition does: decode the file, split it into lines,
normalise the cited lines and look for the excerpt there, else normalise the
whole file and list every place it is. Checked on hypothesis-made files with
UTF-8 and Latin-1 text, a BOM, CRLF line ends, no final newline, lines longer
than a chunk, NUL bytes, and on citations inside, across and past the end."""

from __future__ import annotations

import hashlib
import os
import random
import threading
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.citations.verification import normalize, reach, read, verify_citations
from core.citations.verification.hashing import Hasher
from core.citations.verification.needle import make_needle
from core.citations.verification.normalize import matches, normalize_text
from core.citations.verification.read import scan_file
from core.citations.verification.scan import Request
from core.citations.verification.window import Window
from tests.core.citations.builders import file_citation

_WORDS = ["alpha", "Beta", "gamma", "delta", "eps", "x", "42", "v2", "end.", "**bold**", "`code`", "--", "?!"]
_UTF8_WORDS = ["café", "“q”", "—", "naïve"]
_LATIN1_WORDS = ["café", "crème", "naïve"]
_PREFIX = ["", "", "", "- ", "1. ", "> ", "# "]


def _file(seed: int, encoding: str) -> tuple[bytes, str]:
    """(raw bytes, decoded text without BOM) of a file made from ``seed``: short lines of
    words, markup and bullets, now and then a line longer than a chunk."""
    rng = random.Random(seed)
    words = _WORDS + {"ascii": [], "utf-8": _UTF8_WORDS, "latin-1": _LATIN1_WORDS}[encoding]
    lines = []
    for _ in range(rng.randint(1, 90)):
        if rng.random() < 0.08:
            lines.append(" ".join(rng.choice(words) for _ in range(rng.randint(120, 160))))
        else:
            lines.append(rng.choice(_PREFIX) + " ".join(rng.choice(words) for _ in range(rng.randint(0, 7))))
    newline = rng.choice(["\n", "\n", "\r\n"])
    text = newline.join(lines) + (newline if rng.random() < 0.5 else "")
    raw = text.encode("utf-8" if encoding == "ascii" else encoding)
    if encoding == "utf-8" and rng.random() < 0.5:
        raw = read.BOM + raw
    return raw, text


_files = st.tuples(st.integers(0, 2**32), st.sampled_from(["ascii", "utf-8", "latin-1"]))


def _excerpt(lines: list[str], data) -> str | None:
    """A stretch of the file's lines as an agent might quote it, or words it never had."""
    kind = data.draw(st.sampled_from(["lines", "lines", "cut", "elided", "upper", "absent", "none"]))
    if kind == "none":
        return None
    if kind == "absent":
        return "never written here"
    first = data.draw(st.integers(1, len(lines)))
    last = data.draw(st.integers(first, min(len(lines), first + 2)))
    text = "\n".join(line[:150] for line in lines[first - 1 : last])
    if kind == "cut":
        words = text.split(" ")
        a = data.draw(st.integers(0, len(words) - 1))
        text = " ".join(words[a : data.draw(st.integers(a + 1, len(words)))])
    elif kind == "elided":
        words = text.split()
        if len(words) >= 3:
            text = f"{words[0]} ... {words[-1]}"
    elif kind == "upper":
        text = text.upper().replace("\n", " ")
    return text


def _oracle(text: str, request: Request):
    """(in place, occurrences, fuzzy) by the definition, on the decoded text."""
    lines = text.split("\n")
    n_lines = len(lines) - (1 if text.endswith("\n") or not text else 0)
    needle, cited = request.needle, request.cited
    if needle is None:
        return False, set(), None
    window = None
    if cited is not None:
        lo, hi = cited
        if lo <= n_lines:
            window = "\n".join(lines[lo - 1 : hi])
            if matches(normalize_text(window), needle.pieces, first_only=True):
                return True, set(), None
    found = set(Window.from_text(text, 1).occurrences(needle))
    fuzzy = None
    if window is not None and not found:
        fuzzy = Window.from_text(window, lo).best_fuzzy(needle)
    return False, found, fuzzy


def _requests(text: str, data) -> list[Request]:
    lines = text.split("\n")
    requests = []
    for _ in range(data.draw(st.integers(1, 5))):
        needle = make_needle(_excerpt(lines, data))
        if data.draw(st.booleans()):
            requests.append(Request(needle, None))
            continue
        start = data.draw(st.integers(1, len(lines) + 3))
        span = data.draw(st.sampled_from([0, 0, 1, 2, 3, 17, 30]))  # past 16 lines: counted, not walked
        requests.append(Request(needle, (start, start + span)))
    return requests


def _check(tmp_path, raw: bytes, text: str, encoding: str, requests: list[Request], binary: bool) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(raw)
    scan = scan_file(path, requests, Hasher(threaded=False))
    assert scan.sha256 == hashlib.sha256(raw).hexdigest()
    body = raw.removeprefix(read.BOM)
    assert scan.n_lines == body.count(b"\n") + (1 if body and not body.endswith(b"\n") else 0)
    assert scan.binary is binary
    if binary:
        assert all((a.in_place, a.occurrences, a.fuzzy) == (False, set(), None) for a in scan.answers)
        return
    if encoding != "latin-1" or not any(c in text for c in "éèï"):
        assert scan.encoding == "utf-8"
    elif any(r.needle is not None and r.cited is None for r in requests):
        # Searched from the first byte: the bytes that are not UTF-8 were met.
        assert scan.encoding == "latin-1"
    for request, answer in zip(requests, scan.answers, strict=True):
        in_place, found, fuzzy = _oracle(text, request)
        assert answer.in_place is in_place, request
        if request.cited is None:
            # Only the first occurrence is asked for.
            assert min(answer.occurrences, default=None) == min(found, default=None)
        else:
            assert answer.occurrences == found, request
            assert answer.fuzzy == fuzzy, request


@pytest.fixture(params=["whole", "streamed"])
def mode(request):
    """Whole files, or every file past 300 bytes streamed in 300-byte chunks."""
    return request.param


_SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))


def test_scan_answers_as_the_definition(tmp_path_factory, mode):
    """Every request's answer (in place, every occurrence, fuzzy score), the line count, the
    digest and the encoding, whole or streamed, are those of the plain definition."""
    root = tmp_path_factory.mktemp("scan")

    @_SETTINGS
    @given(_files, st.data())
    def check(file, data):
        raw, text = _file(*file)
        encoding = file[1]
        _check(root, raw, text.replace("\r\n", "\n"), encoding, _requests(text, data), False)

    with pytest.MonkeyPatch.context() as patch:
        if mode == "streamed":
            patch.setattr(read, "WHOLE", 300)
            patch.setattr(read, "CHUNK", 300)
            # The seam between chunks holds at least OVERLAP bytes, so it finds an occurrence
            # no longer than that: these excerpts are at most three lines of 150 characters
            # (under 1,100 bytes), and an elided one's gap is kept short to match.
            patch.setattr(read, "OVERLAP", 1200)
            patch.setattr(normalize, "MAX_GAP", 100)
        check()


def test_binary_scan_counts_lines_and_answers_nothing(tmp_path_factory, mode):
    """A file with a NUL byte near its start is binary: hashed and its lines counted, no
    excerpt looked for, whole or streamed."""
    root = tmp_path_factory.mktemp("binary")

    @_SETTINGS
    @given(_files, st.data())
    def check(file, data):
        raw, text = _file(*file)
        raw = b"\x00" + raw
        _check(root, raw, text, "binary", _requests(text, data), True)

    with pytest.MonkeyPatch.context() as patch:
        if mode == "streamed":
            patch.setattr(read, "WHOLE", 300)
            patch.setattr(read, "CHUNK", 300)
            patch.setattr(read, "OVERLAP", 200)
        check()


# Reading a file for its citations, whole or streamed in chunks: the same
# answers for every request however the file is cut.


CID = "3f2a9c1e-5b7d-4c21-9e8f-0a1b2c3d4e5f"


def test_a_small_file_read_whole_answers_each_request(tmp_path) -> None:
    path = tmp_path / "a.txt"
    body = b"one two\nthree four\none two\n"
    path.write_bytes(body)
    hasher = Hasher()
    scan = scan_file(
        path, [Request(make_needle("three four"), (2, 2)), Request(make_needle("one two"), None)], hasher
    )
    hasher.finish()
    assert scan.answers[0].in_place is True
    assert scan.answers[1].occurrences == {(1, 1)}
    assert scan.n_lines == 3
    assert scan.binary is False
    assert scan.sha256 == hashlib.sha256(body).hexdigest()


def test_chunks_shorter_than_the_overlap_still_make_a_seam_of_the_overlap(tmp_path, monkeypatch) -> None:
    """With chunks far shorter than the overlap, the seam in front of a chunk is the last lines
    of several chunks before it, so an excerpt spanning three chunks is found (and relocated)
    as reading the file whole finds it."""
    (tmp_path / CID).mkdir()
    body = "".join(f"w{k:02d} ab\n" for k in range(1, 61))  # 8 bytes a line
    (tmp_path / CID / "short.txt").write_text(body, encoding="utf-8")
    excerpt = "\n".join(f"w{k:02d} ab" for k in range(20, 32))  # 96 bytes: three 32-byte chunks
    cites = [
        file_citation(f"{CID}/short.txt", 2, 13, excerpt),
        file_citation(f"{CID}/short.txt", None, None, excerpt),
    ]
    whole = verify_citations(tmp_path, cites)
    assert [(r.status, r.line_start, r.line_end) for r in whole] == [
        ("relocated", 20, 31),
        ("verified", 20, 31),
    ]
    monkeypatch.setattr(read, "WHOLE", 32)
    monkeypatch.setattr(read, "CHUNK", 32)
    monkeypatch.setattr(read, "OVERLAP", 256)
    assert verify_citations(tmp_path, cites) == whole


def test_a_verbatim_excerpt_in_a_line_with_a_link_is_not_taken_as_found(tmp_path) -> None:
    """The excerpt's bytes are in the file, but inside a Markdown link whose target the
    normalised text drops: it is not found there (the link's text is)."""
    (tmp_path / CID).mkdir()
    text = "intro\nsee [docs](http://ex.com/a) then more\nlast line\ntail\n"
    (tmp_path / CID / "l.md").write_text(text, encoding="utf-8")
    cites = [file_citation(f"{CID}/l.md", None, None, "http://ex.com/a) then more")]
    (result,) = verify_citations(tmp_path, cites)
    assert result.status == "excerpt_mismatch"
    (found,) = verify_citations(tmp_path, [file_citation(f"{CID}/l.md", None, None, "docs then more")])
    assert (found.status, found.line_start, found.line_end) == ("verified", 2, 2)


# How far the search looks around a word (``reach``): what survives normalisation is
# counted, markup folded by context is looked for, and a span is widened until it holds
# ``need`` normalised characters on each side of its hits.

WORDS = b"abcd efgh\n"  # 8 bytes sure to stay a line
LONG = b"abcdefghijk\n"  # 11


def test_kept_counts_the_bytes_no_normalisation_removes() -> None:
    """Letters stay; blanks, markup, bullets, digits and every non-ASCII byte may go. A
    str is counted by its UTF-8 bytes, a lone surrogate included."""
    assert reach._kept(b"ab  c\n") == 3
    assert reach._kept(b"*_`#>-+.)0123456789 abc") == 3
    assert reach._kept("é ab") == 2
    assert reach._kept("a\udc80b") == 2
    assert reach._kept(b"") == 0


def test_normalised_length_is_the_same_for_bytes_and_text() -> None:
    assert reach._normalised(b"a  **b**\n  c") == reach._normalised("a  **b**\n  c") == 5


@pytest.mark.parametrize("as_bytes", [True, False])
def test_marks_folded_by_context_are_looked_for_only_in_the_range(as_bytes) -> None:
    """A backtick, or a "](" (not a lone "]" or "("), anywhere in ``hay[start:end]``, its
    first byte included; none before ``start`` or from ``end`` on."""

    def has(text: str, start: int, end: int) -> bool:
        return reach._has_marks(text.encode() if as_bytes else text, start, end)

    assert has("`x y", 0, 4)
    assert has("](x y", 0, 4)
    assert has("a b](c", 0, 6)
    assert not has("a]b(c", 0, 5)
    assert not has("a]b c", 0, 5)
    assert not has("`a b c", 1, 6)
    assert not has("a b c`", 0, 5)
    assert has("a b c`", 0, 6)
    assert not has("](a b c", 1, 7)
    assert not has("a b c](", 0, 6)
    assert has("a b `c d", 2, 6)
    assert has("x ](c d", 2, 6)
    assert not has("](a]b c", 2, 7)  # a "](" before the range, a lone "]" in it


# Line starts: 0, 17, 24, 38 (a line with backticks), 59.
MARKED = b"alpha beta gamma\n      \ndelta epsilon\nsee `zeta` eta theta\niota kappa\n"


def test_long_before_counts_what_stays_unless_markup_is_near() -> None:
    """With no mark from ``start`` to the end of the hit's line, the bytes sure to stay
    before the hit are counted (14 letters: long enough for 14, not 15), even when a later
    line holds one. With a mark on the hit's line, only ``exact`` measures: the whole
    lines before it normalised (30 characters)."""
    assert reach._long_before(MARKED, b"\n", 0, 24, 14)
    assert not reach._long_before(MARKED, b"\n", 0, 24, 15)
    assert not reach._long_before(MARKED, b"\n", 0, 38, 30)
    assert reach._long_before(MARKED, b"\n", 0, 38, 30, exact=True)
    assert not reach._long_before(MARKED, b"\n", 0, 38, 31, exact=True)
    # A mark on a line before ``start`` is not near.
    assert reach._long_before(b"`x`\nabcd efgh\nijkl\n", b"\n", 4, 14, 8)
    # A mark at the very end of a last line without a newline is still on the hit's line.
    tail = b"one two three\nfour x`"
    assert not reach._long_before(tail, b"\n", 0, 14, 11)
    assert reach._long_before(tail, b"\n", 0, 14, 11, exact=True)


# Line ends: 14 (backticks before the hit), 25, 37, 41.
AFTER = b"see `zeta` eta\nalpha beta\ngamma delta\nend\n"


def test_long_after_counts_what_stays_unless_markup_is_near() -> None:
    """The same after a hit, to ``end``: counted from the hit with no mark from the hit's
    line start; else, with ``exact``, the whole lines after the hit's normalised."""
    assert reach._long_after(AFTER, b"\n", 37, 5, 22, exact=True)
    assert not reach._long_after(AFTER, b"\n", 37, 5, 23, exact=True)
    assert not reach._long_after(AFTER, b"\n", 37, 5, 22)
    # No mark: the letters from the hit on (16 of them) are counted.
    plain = b"one two `x`\nthree four\nfive six\n"
    assert reach._long_after(plain, b"\n", 31, 12, 16)
    assert not reach._long_after(plain, b"\n", 31, 12, 17)
    # A mark on a line before the hit's is not near it; one on the hit's line is, even
    # at the line's first byte or before the hit.
    assert reach._long_after(b"a b\nc `d`\ne f g\n", b"\n", 15, 10, 3)
    assert not reach._long_after(b"ab\n`cd e f g\n", b"\n", 12, 5, 3)
    assert not reach._long_after(b"x `y` hit words\nmore text\n", b"\n", 16, 7, 5)
    # A mark after ``end`` is not near; the lines measured are those after the hit's own.
    assert reach._long_after(b"a b c\nd e\n`x`\n", b"\n", 9, 2, 4)
    later = b"intro words\nsee `zeta` eta\nalpha beta\ngamma delta\n"
    assert reach._long_after(later, b"\n", 49, 16, 22, exact=True)
    assert not reach._long_after(later, b"\n", 49, 16, 23, exact=True)
    # No newline after the hit before ``end``: nothing after its line to measure.
    assert not reach._long_after(b"a `b` c d e f", b"\n", 13, 6, 2, exact=True)


def test_back_and_ahead_double_their_reach_a_line_at_a_time() -> None:
    """Moved back from line 19 (3 letters short of 12) to line 16; ahead from the end of
    line 1 to that of line 8; never past ``size``; back to 0 over a leading newline."""
    lines = b"abc\n" * 20
    assert reach._back(lines, b"\n", 76, 80, 12) == 64
    assert reach._back(lines, b"\n", 76, 80, 3) == 76
    assert reach._ahead(lines, b"\n", 3, 2, 12, len(lines)) == 31
    assert reach._ahead(lines, b"\n", 3, 2, 1, len(lines)) == 3
    assert reach._ahead(lines, b"\n", 3, 2, 12, 20) == 20
    assert reach._ahead(lines, b"\n", 3, 2, 100, 20) == 20
    assert reach._back(b"\n" + b"abc\n" * 3, b"\n", 5, 9, 100) == 0
    # With a mark on every line, only the exact measure (lines normalised whole) stops them.
    marked = b"ab `c` d\n" * 20
    assert reach._ahead(marked, b"\n", 9, 2, 12, len(marked)) == 35
    assert reach._back(marked, b"\n", 90, 100, 12) == 72


def test_a_span_is_plainly_long_when_both_ends_hold_enough_letters() -> None:
    """No mark in it, and ``need`` bytes sure to stay in the ``reach`` bytes after its start
    (unless it starts the text) and before its end (unless it ends it)."""
    body = WORDS * 3
    assert reach._plainly_long(body, 10, 20, 8, 10, len(body))
    assert not reach._plainly_long(body, 10, 20, 9, 10, len(body))
    assert reach._plainly_long(body, 0, 20, 8, 10, len(body))
    assert not reach._plainly_long(body, 0, 20, 9, 10, len(body))
    assert reach._plainly_long(body, 0, 30, 9, 10, 30)
    assert not reach._plainly_long(body, 0, 30, 9, 10, 31)
    assert not reach._plainly_long(WORDS + b"`bcd efgh\n" + body, 10, 20, 1, 10, 40)
    assert reach._plainly_long(b"`bcd efgh\n" + body, 10, 20, 8, 10, 40)  # a mark before it
    assert reach._plainly_long(body + b"`x\n", 10, 20, 8, 10, 33)  # and after it


def test_widened_keeps_long_spans_and_widens_short_ones() -> None:
    """Spans long enough at both ends come back as they are; a short one is widened a line
    at a time on each side, bytes or text; spans that meet once widened are merged."""
    body = WORDS * 100
    assert reach.widened(body, [(20, 59)], 8, 10, b"\n", len(body)) == [(20, 59)]
    for hay, newline in ((body, b"\n"), (body.decode(), "\n")):
        assert reach.widened(hay, [(20, 59)], 9, 10, newline, len(body)) == [(10, 69)]
        assert reach.widened(hay, [(20, 59), (80, 119)], 9, 10, newline, len(body)) == [(10, 69), (70, 129)]
        assert reach.widened(hay, [(20, 59), (70, 119)], 9, 10, newline, len(body)) == [(10, 129)]
    assert reach.widened(body.decode(), [(20, 59)], 8, 10, "\n", len(body)) == [(20, 59)]
    assert reach.widened(body.decode(), [(0, 9), (9, 29)], 2, 5, "\n", len(body)) == [(0, 29)]
    assert reach.widened(body, [(0, 59)], 9, 10, b"\n", len(body)) == [(0, 69)]
    # Short at its start only: widened there.
    start_short = WORDS * 5 + LONG * 10 + WORDS * 100
    assert reach.widened(start_short, [(20, 97)], 9, 10, b"\n", len(start_short)) == [(10, 97)]
    # Only the short span among long ones is widened.
    mixed = LONG * 10 + WORDS * 30 + LONG * 10 + WORDS * 90
    assert reach.widened(mixed, [(12, 59), (200, 259), (432, 479)], 9, 10, b"\n", len(mixed)) == [
        (12, 59),
        (190, 269),
        (432, 479),
    ]


def test_widened_gives_up_once_its_spans_cover_a_quarter_of_the_text() -> None:
    """``None`` once widened spans add up to more than a quarter of ``size`` (merged spans
    counted once); exactly a quarter is kept. Spans not widened are never given up."""
    body = WORDS * 100
    assert reach.widened(body, [(20, 59)], 9, 10, b"\n", 236) == [(10, 69)]
    assert reach.widened(body, [(20, 59)], 9, 10, b"\n", 235) is None
    assert reach.widened(body, [(20, 59), (70, 119)], 9, 10, b"\n", 476) == [(10, 129)]
    assert reach.widened(body, [(20, 59), (70, 119)], 9, 10, b"\n", 475) is None
    assert reach.widened(body, [(20, 59), (200, 259)], 9, 10, b"\n", 552) == [(10, 69), (190, 269)]
    assert reach.widened(body, [(20, 59), (200, 259)], 9, 10, b"\n", 551) is None
    mixed = LONG * 10 + WORDS * 100
    assert reach.widened(mixed, [(12, 59), (400, 459)], 9, 10, b"\n", 504) == [(12, 59), (390, 469)]
    assert reach.widened(mixed, [(12, 59), (400, 459)], 9, 10, b"\n", 503) is None
    assert reach.widened(body.decode(), [(20, 59)], 8, 10, "\n", 100) == [(20, 59)]


# Reading a cited file (``read``, ``scan``, ``stream``, ``lines``) at its
# edges: a byte-order mark, binary files, line counts.


def test_bom_is_not_part_of_the_first_line(tmp_path):
    """A UTF-8 byte-order mark before the first line does not stop its excerpt matching there."""
    (tmp_path / "notes.md").write_bytes(b"\xef\xbb\xbfFirst line here\nsecond line\n")
    (result,) = verify_citations(tmp_path, [file_citation("notes.md", 1, 1, "First line here")])
    assert (result.status, result.line_start, result.line_end) == ("verified", 1, 1)


def test_read_up_to_gathers_short_reads_until_the_end() -> None:
    """A read may return fewer bytes than asked (a pipe returns what has
    been written so far): reading goes on until the file ends."""
    out, into = os.pipe()

    def write() -> None:
        for piece in (b"alpha ", b"beta ", b"gamma"):
            os.write(into, piece)
            time.sleep(0.05)
        os.close(into)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        assert read._read_up_to(out, 100) == b"alpha beta gamma"
    finally:
        writer.join()
        os.close(out)


def test_read_up_to_stops_at_what_was_asked(tmp_path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(b"0123456789")
    fd = os.open(path, os.O_RDONLY)
    try:
        assert read._read_up_to(fd, 4) == b"0123"
        assert read._read_up_to(fd, 100) == b"456789"
        assert read._read_up_to(fd, 100) == b""
    finally:
        os.close(fd)


def test_read_up_to_ends_at_the_size_given(tmp_path) -> None:
    """Read up to one byte past the size ``fstat`` gave, it stops at that size;
    a file that grew since is read on (the scan then streams it)."""
    path = tmp_path / "f.txt"
    path.write_bytes(b"0123456789")
    fd = os.open(path, os.O_RDONLY)
    try:
        assert read._read_up_to(fd, 11, 10) == b"0123456789"
        os.lseek(fd, 0, os.SEEK_SET)
        assert read._read_up_to(fd, 9, 8) == b"012345678"  # grew from 8 bytes to 10
    finally:
        os.close(fd)
