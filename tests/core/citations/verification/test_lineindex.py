"""The per-file line index: verifying an unchanged file from its index
gives exactly the answers of reading it, a changed file (even one rewritten
at the same size with its mtime put back) never reuses a stale index, and
the index lives outside the sandbox and goes with its content."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shutil
import tempfile
import time
from array import array
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.citations.verification import lineindex, linestore, read, verify_citations
from core.citations.verification.hashing import Hasher
from core.citations.verification.lineindex import _MAGIC, RACY_NS, BlockLines, Entry, FileLines, block_counts
from core.citations.verification.lines import LineIndex
from core.citations.verification.linestore import LineStore, forget_content
from core.citations.verification.needle import make_needle
from core.citations.verification.scan import Request
from core.sandbox import SandboxError, resolve_in_sandbox
from tests.core.citations.builders import file_citation, installed_file

CID = "0b1e7a52-3f5c-4c1e-9a53-0d7c2e9f4a10"
OTHER = "5d2f0c8e-7a41-4b9e-8c3d-2e6f1a9b7c54"


def _third_party() -> dict[str, bytes]:
    """Real installed files, and the shapes verification must survive."""
    paginator = installed_file("django", "core/paginator.py").read_bytes()
    signing = installed_file("django", "core/signing.py").read_bytes()
    po = installed_file("django", "conf/locale/fr/LC_MESSAGES/django.po").read_text(encoding="utf-8")
    french = "".join(po.splitlines(keepends=True)[:600])
    return {
        f"{CID}/paginator.py": paginator,
        f"{CID}/crlf/paginator.py": paginator.replace(b"\n", b"\r\n"),
        f"{CID}/signing_no_newline.py": signing.rstrip(b"\n"),
        f"{CID}/django_fr.po": french.encode("utf-8"),
        f"{CID}/latin1/django_fr.po": french.encode("latin-1", errors="replace"),
        f"{CID}/bom.po": b"\xef\xbb\xbf" + french.encode("utf-8"),
        f"{CID}/empty.txt": b"",
        f"{OTHER}/django.mo": installed_file("django", "conf/locale/fr/LC_MESSAGES/django.mo").read_bytes(),
    }


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("sandbox")
    files = _third_party()
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    texts = {rel: data.decode("utf-8", errors="replace").splitlines() for rel, data in files.items()}
    return root, texts


@st.composite
def _citations(draw, texts: dict[str, list[str]]):
    """Citations of real lines: in place, a line or a few off, past the
    end, without lines, with a word changed, without an excerpt."""
    rel = draw(st.sampled_from(sorted(texts)))
    lines = texts[rel]
    if not lines:
        start = draw(st.integers(0, 3))
        return file_citation(rel, start, start, draw(st.sampled_from([None, "anything at all"])))
    at = draw(st.integers(0, len(lines) - 1))
    span = draw(st.integers(1, 4))
    words = " \n".join(lines[at : at + span]).split(" ")
    cut = draw(st.integers(0, max(0, len(words) - 1)))
    excerpt = " ".join(words[cut : cut + draw(st.integers(1, 40))])
    kind = draw(st.sampled_from(["place", "place", "off", "far", "past", "none", "changed", "bare"]))
    start, end = at + 1, min(len(lines), at + span)
    if kind == "off":
        shift = draw(st.sampled_from([-2, -1, 1, 2]))
        start, end = max(1, start + shift), max(1, end + shift)
    elif kind == "far":
        start, end = max(1, start - 60), max(1, end - 60)
    elif kind == "past":
        start = end = len(lines) + draw(st.integers(1, 5))
    elif kind == "none":
        start = end = None
    elif kind == "changed":
        excerpt = excerpt.replace("e", "o", 1) + " zebra"
    elif kind == "bare":
        excerpt = None
    return file_citation(rel, start, end, excerpt)


def _texts() -> dict[str, list[str]]:
    return {rel: data.decode("utf-8", errors="replace").splitlines() for rel, data in _third_party().items()}


_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


def _reusable(root: Path, state: Path, citations) -> bool:
    """Whether every cited file would now be answered from its index."""
    store = LineStore(state / linestore.FOLDER, root)
    for rel in {c.source_path for c in citations}:
        real = resolve_in_sandbox(root, rel)
        requests = [
            Request(make_needle(c.excerpt), None if c.line_start is None else (c.line_start, c.line_end))
            for c in citations
            if c.source_path == rel
        ]
        with open(real, "rb") as handle:
            if store.reuse(real, handle, requests) is None:
                return False
    return True


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@given(data=st.data())
@_SETTINGS
def test_indexed_verification_gives_the_same_answers(corpus, tmp_path_factory, streamed, data):
    """Verifying real files plainly, while indexing them, and again from
    the index (trusted at once, RACY_NS = 0) gives identical results, for
    files read whole and streamed, CRLF, no final newline, Latin-1, BOM,
    empty and binary files alike."""
    root, texts = corpus
    citations = data.draw(st.lists(_citations(texts), min_size=1, max_size=12))
    state = tmp_path_factory.mktemp("state")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lineindex, "RACY_NS", 0)
        if streamed:
            patch.setattr(read, "WHOLE", 1024)
            patch.setattr(read, "CHUNK", 2048)
            patch.setattr(read, "OVERLAP", 256)
        plain = verify_citations(root, citations)
        first = verify_citations(root, citations, state=state)
        assert _reusable(root, state, citations)
        again = verify_citations(root, citations, state=state)
        more = data.draw(st.lists(_citations(texts), min_size=1, max_size=6))
        mixed = verify_citations(root, citations + more, state=state)  # some searched anew
        assert mixed == verify_citations(root, citations + more)
    assert first == plain
    assert again == plain


def test_block_lines_answer_as_line_index_does(corpus):
    """Every line's start and end, and the line of every offset, are the
    ones ``LineIndex`` counts, on each real file (CRLF, no final newline,
    BOM, empty)."""
    root, _ = corpus
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        body = path.read_bytes()
        counted, indexed = LineIndex(body), BlockLines(body, block_counts(body), len(body))
        assert indexed.newlines == counted.newlines
        for line in range(0, counted.newlines + 3):
            assert indexed.start_of(line) == counted.start_of(line)
            assert indexed.end_of(line) == counted.end_of(line)
        for offset in range(0, len(body) + 1, 97):
            assert indexed.line_of(offset) == counted.line_of(offset)


def _rewrite_same_size(path: Path, old: bytes, new: bytes) -> None:
    """Overwrite ``path`` with content of the same size, putting back its
    mtime to the nanosecond, as a careless sync tool would."""
    stat = path.stat()
    assert len(new) == len(old) == stat.st_size and new != old
    path.write_bytes(new)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_mtime_ns == stat.st_mtime_ns and path.stat().st_size == stat.st_size


@pytest.mark.parametrize("racy_ns", [0, lineindex.RACY_NS])
def test_same_size_rewrite_with_mtime_put_back_is_not_reused(tmp_path, monkeypatch, racy_ns):
    """Size and mtime alike, the content different: the ctime changed, so
    the index is hash-checked, found stale and rebuilt; the excerpt that
    was there is reported gone. Even with no racy margin at all."""
    monkeypatch.setattr(lineindex, "RACY_NS", racy_ns)
    root, state = tmp_path / "sandbox", tmp_path / "state"
    path = root / CID / "paginator.py"
    path.parent.mkdir(parents=True)
    old = installed_file("django", "core/paginator.py").read_bytes()
    path.write_bytes(old)
    lines = old.decode().splitlines()
    at = next(n for n, line in enumerate(lines, 1) if "def validate_number" in line)
    cite = [file_citation(f"{CID}/paginator.py", at, at, lines[at - 1].strip())]
    (before,) = verify_citations(root, cite, state=state)
    assert before.status == "verified"
    _rewrite_same_size(path, old, old.replace(b"validate_number", b"validate_numbr_"))
    (after,) = verify_citations(root, cite, state=state)
    assert after.status == "excerpt_mismatch"
    assert after == verify_citations(root, cite)[0]
    assert after.file_sha256 != before.file_sha256
    # The index was rebuilt for the new bytes, and is used from now on.
    assert _reusable(root, state, cite)
    assert verify_citations(root, cite, state=state) == [after]


def test_racy_index_is_hash_checked(tmp_path):
    """A change inside one timestamp tick can leave size, mtime and ctime
    all alike: an index taken that close to the file's last change is
    trusted only if the file's SHA-256 is unchanged. Simulated by stamping
    a stale index with the changed file's own stat."""
    root, state = tmp_path / "sandbox", tmp_path / "state"
    path = root / CID / "signing.py"
    path.parent.mkdir(parents=True)
    old = installed_file("django", "core/signing.py").read_bytes()
    path.write_bytes(old)
    cite = [file_citation(f"{CID}/signing.py", 1, 2, old.decode().splitlines()[0])]
    verify_citations(root, cite, state=state)
    store = LineStore(state / linestore.FOLDER, root)
    real = resolve_in_sandbox(root, f"{CID}/signing.py")
    entry = store.load(real)
    path.write_bytes(old.upper())
    stat = path.stat()
    entry.stamp(stat, stat.st_mtime_ns + 1)  # read just after the last change: racy
    Path(store.path_of(real)).write_bytes(entry.to_bytes())
    requests = [Request(make_needle(old.decode().splitlines()[0]), (1, 2))]
    with open(real, "rb") as handle:
        assert store.reuse(real, handle, requests) is None
    # Restamped well after the change (not racy), the same stat is trusted:
    # the limit every stat-based cache has, which the racy rule guards.
    entry.stamp(stat, max(stat.st_mtime_ns, stat.st_ctime_ns) + 2 * lineindex.RACY_NS)
    Path(store.path_of(real)).write_bytes(entry.to_bytes())
    with open(real, "rb") as handle:
        assert store.reuse(real, handle, requests) is not None


def test_unchanged_racy_index_is_kept_after_its_hash_matches(tmp_path):
    """Just-written files are hash-checked once, then trusted."""
    root, state = tmp_path / "sandbox", tmp_path / "state"
    (root / CID).mkdir(parents=True)
    shutil.copy(installed_file("django", "core/paginator.py"), root / CID / "p.py")
    cite = [file_citation(f"{CID}/p.py", 1, 1, "import collections.abc")]
    first = verify_citations(root, cite, state=state)
    store = LineStore(state / linestore.FOLDER, root)
    real = resolve_in_sandbox(root, f"{CID}/p.py")
    taken = store.load(real).taken_ns
    assert not store.load(real).trusted(os.stat(real))  # racy: the file was just written
    assert verify_citations(root, cite, state=state) == first  # hash-checked, then restamped
    assert store.load(real).taken_ns > taken


def test_a_changed_verifier_does_not_reuse_kept_search_answers(tmp_path):
    """Search answers are kept under the verifier's code fingerprint: under
    another one they are searched again, never reused."""
    root, state = tmp_path / "sandbox", tmp_path / "state"
    (root / CID).mkdir(parents=True)
    shutil.copy(installed_file("django", "core/paginator.py"), root / CID / "p.py")
    lines = (root / CID / "p.py").read_text().splitlines()
    at = next(n for n, line in enumerate(lines, 1) if "class Paginator" in line)
    cite = [file_citation(f"{CID}/p.py", at + 30, at + 30, lines[at - 1])]  # relocated
    (first,) = verify_citations(root, cite, state=state)
    assert first.status == "relocated" and first.line_start == at
    store = LineStore(state / linestore.FOLDER, root)
    real = resolve_in_sandbox(root, f"{CID}/p.py")
    entry = store.load(real)
    assert len(entry.answers) == 1
    key = next(iter(entry.answers))
    entry.code = "another verifier"
    entry.answers[key][0] = [[1, 1]]  # what an older verifier might have said
    Path(store.path_of(real)).write_bytes(entry.to_bytes())
    assert verify_citations(root, cite, state=state) == [first]
    assert store.load(real).answers[key][0] == [[at, at]]


def test_a_damaged_index_is_ignored(tmp_path):
    root, state = tmp_path / "sandbox", tmp_path / "state"
    (root / CID).mkdir(parents=True)
    shutil.copy(installed_file("django", "core/paginator.py"), root / CID / "p.py")
    cite = [file_citation(f"{CID}/p.py", 1, 1, "import collections.abc")]
    first = verify_citations(root, cite, state=state)
    index = Path(LineStore(state / linestore.FOLDER, root).path_of(resolve_in_sandbox(root, f"{CID}/p.py")))
    for damaged in (b"", index.read_bytes()[:-3], b"RMLIDX1\n" + b"\xff" * 200):
        index.write_bytes(damaged)
        assert verify_citations(root, cite, state=state) == first


def test_index_is_outside_the_sandbox_and_goes_with_its_content(tmp_path):
    """No sandbox path reaches the index (the resolver refuses every way to
    it); an index folder inside the sandbox is refused; forgetting a
    content item removes its indexes and no other."""
    root, state = tmp_path / "sandbox", tmp_path / "state"
    files = _third_party()
    for rel in (f"{CID}/paginator.py", f"{OTHER}/django.mo"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(files[rel])
    cites = [file_citation(f"{CID}/paginator.py", 1, 1, "x"), file_citation(f"{OTHER}/django.mo", 1, 1)]
    verify_citations(root, cites, state=state)
    indexes = sorted((state / linestore.FOLDER).rglob("*.idx"))
    assert [p.parent.name for p in indexes] == sorted([CID, OTHER])
    for index in indexes:
        assert not index.resolve().is_relative_to(root.resolve())
        with pytest.raises(SandboxError):
            resolve_in_sandbox(root, os.path.relpath(index, root))
    inside = root / CID / "state"
    assert linestore.line_store(inside, root) is None
    with pytest.raises(ValueError, match="outside the sandbox"):
        LineStore(root / ".hidden", root)
    assert verify_citations(root, cites, state=inside) == verify_citations(root, cites)
    assert not (inside / linestore.FOLDER).exists()
    forget_content(state, CID)
    assert [p.parent.name for p in (state / linestore.FOLDER).rglob("*.idx")] == [OTHER]


def test_a_file_growing_while_read_is_not_indexed(tmp_path):
    """An index is taken only of bytes whose stat did not move during the read."""
    root, state = tmp_path / "sandbox", tmp_path / "state"
    (root / CID).mkdir(parents=True)
    path = root / CID / "p.py"
    shutil.copy(installed_file("django", "core/paginator.py"), path)
    store = LineStore(state / linestore.FOLDER, root)
    requests = [Request(make_needle("import collections.abc"), (1, 1))]
    with open(path, "rb") as handle:
        assert store.reuse(path, handle, requests) is None  # no index yet
        handle.seek(0)
        scan = read.scan_file(path, requests, Hasher(threaded=False))
        with open(path, "ab") as grow:
            grow.write(b"# appended\n")
        store.record(path, handle, scan, requests)
    store.save()
    assert not Path(store.path_of(path)).exists()


def test_verification_results_do_not_depend_on_the_time_between_runs(tmp_path):
    """Trusted or hash-checked, the answers are the same (a real pause
    past the racy margin, then a run from the trusted index)."""
    root, state = tmp_path / "sandbox", tmp_path / "state"
    (root / CID).mkdir(parents=True)
    shutil.copy(installed_file("django", "core/paginator.py"), root / CID / "p.py")
    lines = (root / CID / "p.py").read_text().splitlines()
    cites = [
        dataclasses.replace(file_citation(f"{CID}/p.py", n + 3, n + 3, line), cid=f"c{n}")
        for n, line in enumerate(lines[:200:7], 1)
        if line.strip()
    ]
    plain = verify_citations(root, cites)
    assert verify_citations(root, cites, state=state) == plain
    store = LineStore(state / linestore.FOLDER, root)
    real = resolve_in_sandbox(root, f"{CID}/p.py")
    assert len(store.load(real).counts) == 0  # a first verification does not count lines
    time.sleep(lineindex.RACY_NS / 1e9 + 0.1)
    assert verify_citations(root, cites, state=state) == plain
    assert store.load(real).counts == block_counts(real.read_bytes())  # counted when verified again
    assert _reusable(root, state, cites)
    assert verify_citations(root, cites, state=state) == plain


# The line index kept for a file: what it records, what it is trusted for,
# and the exact answers it gives back.


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
