"""Which excerpts were inside their cited lines is kept in a file's line index: cited again as
before, an unchanged file answers from it without reading the range; a new citation of it
is looked for, and a changed verifier never reuses what an older one said."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from core.citations.verification import lineindex, linestore, verify_citations
from core.citations.verification.lineindex import answer_key
from core.citations.verification.linestore import LineStore
from core.citations.verification.needle import Needle, make_needle
from core.citations.verification.scan import Request
from core.sandbox import resolve_in_sandbox
from tests.core.citations.builders import file_citation, installed_file

CID = "0b1e7a52-3f5c-4c1e-9a53-0d7c2e9f4a10"
REL = f"{CID}/p.py"


@pytest.fixture
def paginator(tmp_path, monkeypatch):
    """Django's paginator.py in a sandbox, its index trusted at once (no racy margin)."""
    monkeypatch.setattr(lineindex, "RACY_NS", 0)
    root, state = tmp_path / "sandbox", tmp_path / "state"
    (root / CID).mkdir(parents=True)
    shutil.copy(installed_file("django", "core/paginator.py"), root / REL)
    lines = (root / REL).read_text().splitlines()
    at = next(n for n, line in enumerate(lines, 1) if "class Paginator" in line)
    return root, state, lines, at


def _store_and_real(root: Path, state: Path) -> tuple[LineStore, Path]:
    return LineStore(state / linestore.FOLDER, root), resolve_in_sandbox(root, REL)


def _reuse(root: Path, state: Path, requests: list[Request]):
    store, real = _store_and_real(root, state)
    with open(real, "rb") as handle:
        return store.reuse(real, handle, requests)


def test_an_excerpt_in_its_cited_lines_is_kept_apart_from_search_answers(paginator) -> None:
    """The first verification keeps the excerpt found in place under its key (excerpt and
    range), and keeps no search answer for it; cited again, it is verified as before."""
    root, state, lines, at = paginator
    cite = [file_citation(REL, at, at, lines[at - 1])]
    (first,) = verify_citations(root, cite, state=state)
    assert first.status == "verified" and first.line_start == at
    store, real = _store_and_real(root, state)
    entry = store.load(real)
    key = answer_key(Request(make_needle(lines[at - 1]), (at, at)))
    assert entry.placed == {key}
    assert entry.answers == {}
    for _ in range(2):  # the first re-run counts the lines, the next is trusted
        assert verify_citations(root, cite, state=state) == [first]


def test_the_kept_answer_is_given_without_reading_the_cited_lines(paginator) -> None:
    """An index says what an unchanged file holds: an excerpt marked in place under the
    current verifier is answered in place from it (the range is not read again), while the
    same excerpt at a range never cited is looked for in the file, and found elsewhere."""
    root, state, lines, at = paginator
    verify_citations(root, [file_citation(REL, at, at, lines[at - 1])], state=state)
    verify_citations(root, [file_citation(REL, at, at, lines[at - 1])], state=state)  # counted
    store, real = _store_and_real(root, state)
    entry = store.load(real)
    elsewhere = Request(make_needle(lines[at - 1]), (at + 40, at + 40))
    entry.placed.add(answer_key(elsewhere))  # a claim only the index makes
    Path(store.path_of(real)).write_bytes(entry.to_bytes())
    scan = _reuse(root, state, [elsewhere])
    assert scan is not None and scan.answers[0].in_place is True
    fresh = Request(make_needle(lines[at - 1]), (at + 41, at + 41))
    scan = _reuse(root, state, [fresh])
    assert scan is not None and scan.answers[0].in_place is False
    assert scan.answers[0].occurrences == {(at, at)}


def test_a_changed_verifier_looks_again_at_excerpts_kept_in_place(paginator) -> None:
    """Kept under another verifier's fingerprint, an in-place mark is not trusted: the range
    is read, the excerpt found elsewhere is relocated, and the index is rewritten under this
    verifier without the old mark."""
    root, state, lines, at = paginator
    cite = [file_citation(REL, at + 40, at + 40, lines[at - 1])]
    (first,) = verify_citations(root, cite, state=state)
    assert first.status == "relocated" and first.line_start == at
    store, real = _store_and_real(root, state)
    entry = store.load(real)
    wrong = answer_key(Request(make_needle(lines[at - 1]), (at + 40, at + 40)))
    entry.code, entry.answers, entry.placed = "another verifier", {}, {wrong}
    Path(store.path_of(real)).write_bytes(entry.to_bytes())
    assert verify_citations(root, cite, state=state) == [first]
    again = store.load(real)
    assert again.code == lineindex.code_fingerprint()
    assert wrong not in again.placed and wrong in again.answers


def test_an_index_without_its_in_place_marks_is_not_used(paginator) -> None:
    """An index whose kept answers lack the in-place marks (as an older format wrote them)
    is damaged: the file is read in full again and the index rewritten whole."""
    root, state, lines, at = paginator
    cite = [file_citation(REL, at, at, lines[at - 1])]
    (first,) = verify_citations(root, cite, state=state)
    store, real = _store_and_real(root, state)
    data = Path(store.path_of(real)).read_bytes()
    key = answer_key(Request(make_needle(lines[at - 1]), (at, at)))
    assert data.endswith(b',"placed":["' + key.encode() + b'"]}')
    assert store.load(real) is not None
    Path(store.path_of(real)).write_bytes(data.replace(b',"placed":[', b',"PLACED":['))
    assert store.load(real) is None
    assert verify_citations(root, cite, state=state) == [first]
    assert store.load(real).placed


def test_an_excerpt_answered_from_the_index_is_never_prepared(paginator) -> None:
    """Cited again as before, an excerpt the index answers for is judged without being
    prepared for matching (that is most of what a re-run would cost); a new one is prepared
    and looked for; either way the key is the excerpt as cited and the range."""
    root, state, lines, at = paginator
    verify_citations(root, [file_citation(REL, at, at, lines[at - 1])], state=state)
    verify_citations(root, [file_citation(REL, at, at, lines[at - 1])], state=state)
    known = Request.from_excerpt(lines[at - 1], (at, at))
    new = Request.from_excerpt(lines[at], (at + 1, at + 1))
    assert answer_key(known) == answer_key(Request(make_needle(lines[at - 1]), (at, at)))
    scan = _reuse(root, state, [known, new])
    assert scan is not None and [a.in_place for a in scan.answers] == [True, True]
    assert not isinstance(known._needle, Needle)  # not prepared: the index answered
    assert known.has_needle and not isinstance(known._needle, Needle)
    assert isinstance(new._needle, Needle)  # looked for in its lines
    assert known.needle.pieces == make_needle(lines[at - 1]).pieces  # prepared when asked


def test_requests_made_from_excerpts_say_whether_there_is_anything_to_match() -> None:
    """No excerpt: nothing to match, known without preparing; an excerpt that folds to nothing
    (only markup) has no needle once prepared; a real one has."""
    for empty in (None, ""):
        request = Request.from_excerpt(empty, (1, 1))
        assert not request.may_match and not request.has_needle and request.needle is None
    markup = Request.from_excerpt("** `` **", (1, 1))
    assert markup.may_match and not markup.has_needle and markup.needle is None
    real = Request.from_excerpt("class Paginator:", None)
    assert real.may_match and real.has_needle and real.needle.raw == "class Paginator:"


def test_an_excerpt_that_cannot_be_prepared_fails_only_its_own_citation(paginator) -> None:
    """An excerpt that is not text (a caller's mistake) is prepared when its citation is
    planned, not later while its file is scanned: that citation is unverifiable, the others
    in the same file are verified, with or without an index, and nothing raises."""
    root, state, lines, at = paginator
    cites = [file_citation(REL, at, at, 12345), file_citation(REL, at, at, lines[at - 1])]
    for folder in (None, state, state):
        bad, good = verify_citations(root, cites, state=folder)
        assert bad.status == "unverifiable" and "could not be checked" in bad.detail
        assert good.status == "verified" and good.line_start == at
    with pytest.raises(AttributeError):
        Request.from_excerpt(12345, (1, 1))
