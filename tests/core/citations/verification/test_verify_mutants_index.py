"""The line index kept for a file: what it records, what it is trusted for,
and the exact answers it gives back."""

from __future__ import annotations

import hashlib
import os
import tempfile
from array import array

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.citations.verification import lineindex, linestore, read, verify_citations
from core.citations.verification.lineindex import _MAGIC, RACY_NS, Entry, FileLines, block_counts
from core.citations.verification.linestore import LineStore
from core.citations.verification.needle import make_needle
from core.citations.verification.scan import Request
from tests.core.citations.builders import file_citation


def test_block_counts_are_running_newline_counts_per_block() -> None:
    counts = block_counts(b"a\n" * 10)
    assert isinstance(counts, array)
    assert list(counts)[-1] == 10


def _line_bounds(body: bytes) -> tuple[list[int], list[int]]:
    """Each line's start and end (before its newline), by splitting."""
    starts, ends, at = [], [], 0
    for line in body.split(b"\n"):
        starts.append(at)
        ends.append(at + len(line))
        at += len(line) + 1
    return starts, ends


def _expected_window(body: bytes, lo: int, hi: int) -> bytes | None:
    starts, ends = _line_bounds(body)
    if lo - 1 >= len(starts) or starts[lo - 1] >= len(body):
        return None
    end = ends[hi - 1] if hi - 1 < len(ends) else len(body)
    return body[starts[lo - 1] : end]


_bodies = st.tuples(
    st.lists(st.integers(0, 700), min_size=0, max_size=60),  # line lengths: blocks hold 0 to many lines
    st.booleans(),  # a final newline
    st.booleans(),  # a BOM
)


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(_bodies, st.lists(st.tuples(st.integers(1, 70), st.integers(0, 40)), min_size=1, max_size=12))
def test_file_lines_read_from_the_file_answer_as_splitting_does(tmp_path_factory, shape, ranges) -> None:
    """FileLines reads only the blocks it needs from the open file (after a BOM), and gives
    every line's start, end, line of an offset and a cited window's bytes exactly."""
    lengths, final_newline, bom = shape
    body = b"\n".join(bytes([97 + n % 26]) * length for n, length in enumerate(lengths))
    body += b"\n" if final_newline and lengths else b""
    skip = len(read.BOM) if bom else 0
    path = tmp_path_factory.mktemp("lines") / "f.txt"
    path.write_bytes(read.BOM * bom + body)
    entry = Entry(os.stat(path), 0, skip, False, block_counts(body))
    starts, ends = _line_bounds(body)
    fd = os.open(path, os.O_RDONLY)
    try:
        lines = FileLines(fd, entry)
        assert lines.size == len(body)
        assert lines.newlines == body.count(b"\n")
        for lo, span in ranges:
            hi = lo + span
            assert lines.window(lo, hi) == _expected_window(body, lo, hi), (lo, hi)
            expected_start = 0 if lo <= 1 else (starts[lo - 1] if lo - 1 < len(starts) else len(body))
            assert lines.start_of(lo) == min(expected_start, len(body))
            assert lines.end_of(lo) == (ends[lo - 1] if lo - 1 < len(ends) - 1 else len(body))
            offset = min(len(body), (lo * 997 + span * 131) % (len(body) + 1))
            assert lines.line_of(offset) == body.count(b"\n", 0, offset) + 1
            start = starts[min(lo, len(starts)) - 1]
            target = body.count(b"\n", 0, start) + 1 + span
            assert lines.end_after(start, span) == (
                ends[target - 1] if target - 1 < len(ends) - 1 else len(body)
            )
    finally:
        os.close(fd)


def test_forgetting_a_content_item_removes_only_its_own_indexes(tmp_path) -> None:
    """Only a plain content id's folder goes: an empty id, ".", "..", or a path with a slash
    removes nothing (not the whole index folder, nor the state folder, nor a sibling);
    an id with no indexes is no error."""
    state = tmp_path / "state"
    folder = state / linestore.FOLDER
    for name in ("a1", "b2"):
        (folder / name).mkdir(parents=True)
        (folder / name / "x.idx").write_bytes(b"index")
    (tmp_path / "sibling").mkdir()
    (state / "other").mkdir()
    for content_id in ("", ".", "..", "../sibling", "a1/..", "../state", "a1/x.idx"):
        linestore.forget_content(state, content_id)
        assert (folder / "a1" / "x.idx").exists(), content_id
        assert (folder / "b2" / "x.idx").exists(), content_id
    assert (tmp_path / "sibling").is_dir() and (state / "other").is_dir()
    linestore.forget_content(state, "never-indexed")
    linestore.forget_content(tmp_path / "no-state-yet", "a1")
    linestore.forget_content(state, "a1")
    assert not (folder / "a1").exists()
    assert (folder / "b2" / "x.idx").exists()


CID = "0b1e7a52-3f5c-4c1e-9a53-0d7c2e9f4a10"


def _numbered(n: int) -> bytes:
    """Lines of varying length, each naming its own number."""
    return b"".join(b"line %d says %s\n" % (k, b"w" * (k * 53 % 170)) for k in range(1, n + 1))


def test_a_large_file_counted_from_its_index_in_chunks_gives_the_same_answers(tmp_path, monkeypatch) -> None:
    """A file too big to hold is counted a chunk at a time when first verified again; a chunk
    size that is not a whole number of blocks is rounded down to one, so every line is where
    the plain reading puts it."""
    monkeypatch.setattr(lineindex, "RACY_NS", 0)
    monkeypatch.setattr(read, "WHOLE", 1024)
    monkeypatch.setattr(read, "CHUNK", 3000)
    monkeypatch.setattr(read, "OVERLAP", 256)
    (tmp_path / "root" / CID).mkdir(parents=True)
    root, state = tmp_path / "root", tmp_path / "state"
    (root / CID / "big.txt").write_bytes(read.BOM + _numbered(400))
    cites = [file_citation(f"{CID}/big.txt", k, k, f"line {k} says") for k in (1, 2, 77, 150, 151, 299, 400)]
    cites.append(file_citation(f"{CID}/big.txt", 401, 401))
    cites.append(file_citation(f"{CID}/big.txt", 398, 405, "line 400 says"))
    plain = verify_citations(root, cites)
    assert [r.status for r in plain] == ["verified"] * 7 + ["line_out_of_range", "verified"]
    assert verify_citations(root, cites, state=state) == plain
    assert verify_citations(root, cites, state=state) == plain  # counted now, from the index
    assert verify_citations(root, cites, state=state) == plain  # and from the counts kept
    requests = [Request(make_needle(f"line {k} says"), (k, k)) for k in (2, 150, 299, 400)]
    scan, _ = _reuse(root, state, f"{CID}/big.txt", requests)
    assert scan is not None, "the counts kept must find each cited line without a search"
    assert [a.in_place for a in scan.answers] == [True] * 4
    assert scan.n_lines == 400


def test_a_large_file_of_just_a_bom_has_no_lines_when_counted_from_its_index(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(lineindex, "RACY_NS", 0)
    monkeypatch.setattr(read, "WHOLE", 2)
    (tmp_path / "root" / CID).mkdir(parents=True)
    root, state = tmp_path / "root", tmp_path / "state"
    (root / CID / "bom.txt").write_bytes(read.BOM)
    cites = [file_citation(f"{CID}/bom.txt", 1, 1)]
    for _ in range(3):
        (result,) = verify_citations(root, cites, state=state)
        assert result.status == "line_out_of_range"
        assert result.detail == "The file has 0 lines; the citation points at line 1."


def _reuse(root, state, rel: str, requests):
    """What a fresh store answers for ``rel`` from its index (``None``: a full read is needed)."""
    store = LineStore(state / linestore.FOLDER, root)
    real = root / rel
    with open(real, "rb") as handle:
        return store.reuse(real, handle, requests), store


@pytest.mark.parametrize("counted", [False, True], ids=["first-again", "counted"])
def test_an_excerpt_new_to_the_index_is_searched_from_it_and_then_remembered(
    tmp_path, monkeypatch, counted
) -> None:
    """An excerpt not in its cited lines and never searched for is searched in the file read
    whole (as just read to count its lines, or read now), without hashing it again: the index
    answers, with every copy, and keeps the answer for next time."""
    monkeypatch.setattr(lineindex, "RACY_NS", 0)
    (tmp_path / "root" / CID).mkdir(parents=True)
    root, state = tmp_path / "root", tmp_path / "state"
    body = read.BOM + _numbered(120) + b"copy here\nline 7 says\n"
    rel = f"{CID}/n.txt"
    (root / rel).write_bytes(body)
    for _ in range(2 if counted else 1):
        verify_citations(root, [file_citation(rel, 3, 3, "line 3 says")], state=state)
    if counted:  # the second verification counted its lines into the index
        entry = LineStore(state / linestore.FOLDER, root).load(root / rel)
        assert entry is not None and entry.n_lines == 122 and entry.counts[-1] == 122
    requests = [Request(make_needle("line 7 says"), (50, 52)), Request(make_needle("line 9 says"), (9, 9))]
    scan, store = _reuse(root, state, rel, requests)
    assert scan is not None
    assert (scan.binary, scan.encoding) == (False, "utf-8")
    assert scan.answers[0].in_place is False
    assert scan.answers[0].occurrences == {(7, 7), (122, 122)}
    assert scan.answers[1].in_place is True
    assert scan.n_lines == 122
    assert scan.sha256 == hashlib.sha256(body).hexdigest()
    store.save()
    entry = store.load(root / rel)
    assert entry is not None and len(entry.answers) == 1
    again, _ = _reuse(root, state, rel, requests[:1])
    assert again is not None and again.answers[0].occurrences == {(7, 7), (122, 122)}


def test_a_file_of_the_whole_read_size_is_not_searched_from_its_index(tmp_path, monkeypatch) -> None:
    """A file of ``WHOLE`` bytes or more is streamed, never held whole: a new excerpt in it
    costs a full read, not a search of the index's copy."""
    monkeypatch.setattr(lineindex, "RACY_NS", 0)
    (tmp_path / "root" / CID).mkdir(parents=True)
    root, state = tmp_path / "root", tmp_path / "state"
    body = _numbered(60)
    rel = f"{CID}/n.txt"
    (root / rel).write_bytes(body)
    requests = [Request(make_needle("line 7 says"), (50, 52))]
    verify_citations(root, [file_citation(rel, 3, 3, "line 3 says")], state=state)
    monkeypatch.setattr(read, "WHOLE", len(body))
    assert _reuse(root, state, rel, requests)[0] is None
    monkeypatch.setattr(read, "WHOLE", len(body) + 1)
    assert _reuse(root, state, rel, requests)[0] is not None


def test_a_binary_file_is_answered_from_its_index_with_no_excerpt_looked_for(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(lineindex, "RACY_NS", 0)
    (tmp_path / "root" / CID).mkdir(parents=True)
    root, state = tmp_path / "root", tmp_path / "state"
    rel = f"{CID}/b.bin"
    (root / rel).write_bytes(b"\x00\x01line 1 says\n" * 40)
    cites = [file_citation(rel, 2, 2, "line 1 says"), file_citation(rel, 50, 50)]
    plain = verify_citations(root, cites)
    assert [r.status for r in plain] == ["excerpt_mismatch", "line_out_of_range"]
    for _ in range(3):
        assert verify_citations(root, cites, state=state) == plain
    requests = [Request(make_needle("line 1 says"), (2, 2)), Request(None, (50, 50))]
    scan, _ = _reuse(root, state, rel, requests)
    assert scan is not None
    assert (scan.binary, scan.encoding, scan.n_lines) == (True, "utf-8", 40)
    assert [(a.in_place, a.occurrences, a.fuzzy) for a in scan.answers] == [(False, set(), None)] * 2


@pytest.mark.parametrize("bom", [False, True], ids=["plain", "bom"])
def test_file_lines_windows_longer_than_one_read_and_after_a_long_first_line(tmp_path, bom) -> None:
    """A window running on past the first read (four blocks) is read again to its last line,
    or to the end of the file when it runs past it; a line starting after a first line longer
    than the first read is found by the counts, not by walking that read."""
    lines = [b"a" * 5000] + [b"%03d" % k + b"b" * 196 for k in range(2, 101)]
    for final in (b"\n", b""):
        body = b"\n".join(lines) + final
        path = tmp_path / f"f{len(final)}.txt"
        path.write_bytes(read.BOM * bom + body)
        entry = Entry(os.stat(path), 0, len(read.BOM) if bom else 0, False, block_counts(body))
        fd = os.open(path, os.O_RDONLY)
        try:
            file_lines = FileLines(fd, entry)
            for lo, hi in (
                (1, 1),
                (2, 2),
                (2, 3),
                (3, 60),
                (40, 100),
                (90, 150),
                (100, 100),
                (101, 101),
                (1, 30),
            ):
                assert file_lines.window(lo, hi) == _expected_window(body, lo, hi), (lo, hi, final)
        finally:
            os.close(fd)


def test_a_kept_near_miss_is_recalled_with_its_lines(tmp_path, monkeypatch) -> None:
    """An excerpt found nowhere keeps its closest text's score and lines in the index: verified
    again, the mismatch names the same lines."""
    monkeypatch.setattr(lineindex, "RACY_NS", 0)
    (tmp_path / "root" / CID).mkdir(parents=True)
    root, state = tmp_path / "root", tmp_path / "state"
    rel = f"{CID}/n.txt"
    (root / rel).write_bytes(
        b"alpha one\nbravo two three and more words here\ncharlie four five and other words\ndelta six\n"
    )
    cites = [
        file_citation(rel, 2, 3, "bravo two three and more words here\ncharlie four five and other wordz")
    ]
    (plain,) = verify_citations(root, cites)
    assert plain.status == "excerpt_mismatch"
    assert plain.detail.startswith("The excerpt is not in the file exactly; lines 2-3 come close")
    for _ in range(3):
        assert verify_citations(root, cites, state=state) == [plain]
    scan, _ = _reuse(root, state, rel, [Request(make_needle(cites[0].excerpt), (2, 3))])
    assert scan is not None
    (answer,) = scan.answers
    assert answer.in_place is False and answer.occurrences == set()
    assert answer.fuzzy is not None and answer.fuzzy[1:] == (2, 3)


# A file's entry: which stored bytes are an index at all, and when a file's stat says the
# entry still describes it (size and mtime, then nothing changed near the read).
NOTES = b"Access tokens expire after 15 minutes.\nRefresh tokens last a day.\n"


def _entry_of_notes(tmp_path, taken_ns: int | None = None) -> tuple[Entry, os.PathLike]:
    path = tmp_path / "notes.md"
    path.write_bytes(NOTES)
    stat = os.stat(path)
    taken = max(stat.st_mtime_ns, stat.st_ctime_ns) + RACY_NS + 1 if taken_ns is None else taken_ns
    entry = Entry(stat, taken, 0, False, block_counts(NOTES))
    entry.n_lines = 2
    return entry, path


def test_an_index_round_trips_and_a_damaged_head_is_refused(tmp_path) -> None:
    """Written and read back, an entry keeps its stat and counts; the same bytes with a
    wrong first byte, or cut inside the head after a right magic, are not an index."""
    entry, _ = _entry_of_notes(tmp_path)
    data = entry.to_bytes()
    back = Entry.from_bytes(data)
    assert back is not None
    assert (back.size, back.mtime_ns, back.n_lines) == (entry.size, entry.mtime_ns, 2)
    assert list(back.counts) == list(entry.counts)
    assert Entry.from_bytes(b"X" + data[1:]) is None
    assert Entry.from_bytes(_MAGIC + data[len(_MAGIC) : len(_MAGIC) + 10]) is None
    assert Entry.from_bytes(_MAGIC) is None


def test_the_same_size_with_another_mtime_is_not_the_same_file(tmp_path) -> None:
    """A file rewritten to the same size keeps its size but not its mtime: the entry no
    longer matches it, nor is it trusted."""
    entry, path = _entry_of_notes(tmp_path)
    assert entry.same_size_and_mtime(os.stat(path))
    assert entry.trusted(os.stat(path))
    later = entry.mtime_ns + 5_000_000_000
    os.utime(path, ns=(later, later))
    stat = os.stat(path)
    assert stat.st_size == entry.size
    assert not entry.same_size_and_mtime(stat)
    assert not entry.trusted(stat)


def test_a_file_changed_exactly_the_racy_margin_before_its_read_is_not_trusted(tmp_path) -> None:
    """Trusted only when the file's last change came more than ``RACY_NS`` before its
    bytes were read: at exactly that margin a change may still hide in one tick."""
    entry, path = _entry_of_notes(tmp_path)
    stat = os.stat(path)
    last = max(stat.st_mtime_ns, stat.st_ctime_ns)
    entry.taken_ns = last + RACY_NS
    assert not entry.trusted(stat)
    entry.taken_ns = last + RACY_NS + 1
    assert entry.trusted(stat)


def _plain_and_twice_indexed(root, state, cites) -> list:
    """Verified without an index, then twice with one (taken, then used): the same answers."""
    plain = verify_citations(root, cites)
    assert verify_citations(root, cites, state=state) == plain
    assert verify_citations(root, cites, state=state) == plain
    return plain


def test_two_excerpts_cited_at_the_same_lines_keep_their_own_answers(tmp_path, monkeypatch) -> None:
    """Kept answers are keyed by the excerpt as well as the lines: one excerpt found at
    line 3 does not make another cited there (and in no line) found when verified again."""
    monkeypatch.setattr(lineindex, "RACY_NS", 0)
    (tmp_path / "root" / CID).mkdir(parents=True)
    root, state = tmp_path / "root", tmp_path / "state"
    rel = f"{CID}/n.txt"
    (root / rel).write_bytes(_numbered(20))
    cites = [file_citation(rel, 3, 3, "line 3 says"), file_citation(rel, 3, 3, "nowhere in the file")]
    plain = _plain_and_twice_indexed(root, state, cites)
    assert [r.status for r in plain] == ["verified", "excerpt_mismatch"]


def test_an_excerpt_with_a_lone_surrogate_is_kept_and_recalled(tmp_path, monkeypatch) -> None:
    """An excerpt decoded from JSON may hold a lone surrogate: its answer is still kept in
    the index and recalled, as for any excerpt."""
    monkeypatch.setattr(lineindex, "RACY_NS", 0)
    (tmp_path / "root" / CID).mkdir(parents=True)
    root, state = tmp_path / "root", tmp_path / "state"
    rel = f"{CID}/n.txt"
    (root / rel).write_bytes(_numbered(20))
    cites = [file_citation(rel, 3, 3, "line 3 says \udc80"), file_citation(rel, 5, 5, "line 5 says")]
    plain = _plain_and_twice_indexed(root, state, cites)
    entry = LineStore(state / linestore.FOLDER, root).load(root / rel)
    assert entry is not None and len(entry.placed) + len(entry.answers) == 2
    assert plain[1].status == "verified"


def test_a_large_file_read_again_for_a_new_excerpt_keeps_the_counts_just_taken(tmp_path, monkeypatch) -> None:
    """A file too big to hold, verified again with an excerpt not in its cited lines: its
    lines are counted from the index, then it is read in full for the search; the index
    written after that read keeps those counts (not counted a third time)."""
    monkeypatch.setattr(lineindex, "RACY_NS", 0)
    monkeypatch.setattr(read, "WHOLE", 1024)
    monkeypatch.setattr(read, "CHUNK", 3000)
    monkeypatch.setattr(read, "OVERLAP", 256)
    (tmp_path / "root" / CID).mkdir(parents=True)
    root, state = tmp_path / "root", tmp_path / "state"
    rel = f"{CID}/big.txt"
    (root / rel).write_bytes(_numbered(400))
    first = [file_citation(rel, 77, 77, "line 77 says")]
    assert verify_citations(root, first, state=state) == verify_citations(root, first)
    entry = LineStore(state / linestore.FOLDER, root).load(root / rel)
    assert entry is not None and len(entry.counts) == 0  # not counted on the first read
    cites = [*first, file_citation(rel, 10, 10, "line 300 says")]
    plain = verify_citations(root, cites)
    assert [(r.status, r.line_start) for r in plain] == [("verified", 77), ("relocated", 300)]
    assert verify_citations(root, cites, state=state) == plain
    entry = LineStore(state / linestore.FOLDER, root).load(root / rel)
    assert entry is not None and entry.n_lines == 400 and entry.counts[-1] == 400
    assert verify_citations(root, cites, state=state) == plain


def test_an_index_hash_checked_after_a_metadata_change_is_stamped_afresh(tmp_path, monkeypatch) -> None:
    """A file whose ctime changed (its mode, here) but not its bytes is hash-checked, its
    answers come from the index, and the index is stamped with the new ctime."""
    monkeypatch.setattr(lineindex, "RACY_NS", 0)
    (tmp_path / "root" / CID).mkdir(parents=True)
    root, state = tmp_path / "root", tmp_path / "state"
    rel = f"{CID}/n.txt"
    (root / rel).write_bytes(_numbered(30))
    cites = [file_citation(rel, 4, 4, "line 4 says")]
    plain = _plain_and_twice_indexed(root, state, cites)  # taken, then counted
    os.chmod(root / rel, 0o600)
    ctime = os.stat(root / rel).st_ctime_ns
    store = LineStore(state / linestore.FOLDER, root)
    assert store.load(root / rel).ctime_ns != ctime
    assert verify_citations(root, cites, state=state) == plain
    assert store.load(root / rel).ctime_ns == ctime


def test_an_index_is_written_beside_its_place_not_in_the_system_temp_folder(tmp_path, monkeypatch) -> None:
    """Each index is written to a temporary file in its own folder and renamed into place
    (the state folder may be on another filesystem than the system's temp folder)."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "no-such-temp-folder"))
    (tmp_path / "root" / CID).mkdir(parents=True)
    root, state = tmp_path / "root", tmp_path / "state"
    rel = f"{CID}/n.txt"
    (root / rel).write_bytes(_numbered(10))
    verify_citations(root, [file_citation(rel, 2, 2, "line 2 says")], state=state)
    assert LineStore(state / linestore.FOLDER, root).load(root / rel) is not None
    assert not (tmp_path / "no-such-temp-folder").exists()


def test_an_index_that_cannot_be_put_in_place_leaves_no_temporary_file(tmp_path) -> None:
    """Where the index would go is taken by a folder: the citation is still verified, and
    the temporary file written for the index is removed."""
    (tmp_path / "root" / CID).mkdir(parents=True)
    root, state = tmp_path / "root", tmp_path / "state"
    rel = f"{CID}/n.txt"
    (root / rel).write_bytes(_numbered(10))
    place = LineStore(state / linestore.FOLDER, root).path_of(root / rel)
    os.makedirs(place)
    cites = [file_citation(rel, 2, 2, "line 2 says")]
    assert verify_citations(root, cites, state=state) == verify_citations(root, cites)
    assert os.listdir(os.path.dirname(place)) == [os.path.basename(place)]
