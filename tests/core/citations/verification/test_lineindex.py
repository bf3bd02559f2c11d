"""The per-file line index: verifying an unchanged file from its index
gives exactly the answers of reading it, a changed file (even one rewritten
at the same size with its mtime put back) never reuses a stale index, and
the index lives outside the sandbox and goes with its content."""

from __future__ import annotations

import dataclasses
import os
import shutil
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.citations.verification import lineindex, linestore, read, verify_citations
from core.citations.verification.hashing import Hasher
from core.citations.verification.lineindex import BlockLines, block_counts
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
