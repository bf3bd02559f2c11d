"""verify_citations against real sandbox folders: every status, relocation,
encodings, binary files, hostile paths and content ids."""

from __future__ import annotations

import gc
import hashlib
import json
import os
from dataclasses import replace

import pytest

from core.citations.parsing import ParsedCitation, parse_citations
from core.citations.verification import Verification, _judged, file_digest, verify_citations
from tests.core.citations.builders import file_citation

CID = "3f2a9c1e-5b7d-4c21-9e8f-0a1b2c3d4e5f"
OTHER = "7d4e8f01-aaaa-4bbb-8ccc-000000000001"
TEXT = [f"Filler line number {n} about nothing much." for n in range(1, 121)]
TEXT[44] = "The system uses **JWT tokens** with 24h"
TEXT[45] = "expiry, refreshed by the client."


@pytest.fixture
def sandbox(tmp_path):
    """A sandbox with one content item holding notes.md (120 lines)."""
    (tmp_path / CID).mkdir()
    (tmp_path / CID / "notes.md").write_text("\n".join(TEXT) + "\n", encoding="utf-8")
    (tmp_path / ".researchmind").mkdir()
    (tmp_path / ".researchmind" / "index.txt").write_text("secret index\n")
    return tmp_path


def cite(path=f"{CID}/notes.md", start=None, end=None, excerpt=None, source_type="file", url=None):
    return file_citation(path, start, end, excerpt, source_type=source_type, url=url)


def verify_one(root, citation, **kwargs):
    (result,) = verify_citations(root, [citation], **kwargs)
    return result


def test_verified_across_lines_and_markup(sandbox):
    """An excerpt spanning two cited lines matches despite Markdown, case and whitespace."""
    v = verify_one(sandbox, cite(start=45, end=46, excerpt="the system uses JWT  tokens with 24h expiry"))
    assert (v.status, v.score, v.line_start, v.line_end) == ("verified", 1.0, 45, 46)
    assert v.resolved_path == f"{CID}/notes.md" and v.content_id == CID


def test_cyclic_collector_left_as_found(sandbox):
    """Verification pauses the cyclic garbage collector while it runs and
    leaves it as it found it: running if it was, paused if the caller had
    paused it."""
    citation = cite(start=45, end=46, excerpt="JWT tokens with 24h")
    assert gc.isenabled()
    assert verify_one(sandbox, citation).status == "verified"
    assert gc.isenabled()
    gc.disable()
    try:
        assert verify_one(sandbox, citation).status == "verified"
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_two_lines_off_is_relocated(sandbox):
    """An excerpt two lines above the cited one is not verified there: it is
    relocated to its own lines, the cited line kept as the original."""
    v = verify_one(sandbox, cite(start=47, end=47, excerpt="JWT tokens with 24h expiry"))
    assert (v.status, v.line_start, v.line_end, v.original_line_start) == ("relocated", 45, 46, 47)


def test_seed_000_trailing_ellipsis(sandbox):
    """A trailing '...' (the CITATIONS example's excerpt style) marks an elision, not text to match."""
    v = verify_one(sandbox, cite(start=45, end=52, excerpt="The system uses JWT tokens with 24h expiry..."))
    assert v.status == "verified"


def test_inner_ellipsis_pieces_in_order(sandbox):
    """'a ... b' matches when both pieces occur in that order."""
    ok = verify_one(sandbox, cite(start=45, end=46, excerpt="The system uses … refreshed by the client"))
    wrong = verify_one(sandbox, cite(start=45, end=46, excerpt="refreshed by the client ... The system uses"))
    assert ok.status == "verified"
    assert wrong.status == "excerpt_mismatch"


def test_smart_quotes_and_dashes_folded(tmp_path):
    """Curly quotes and en/em dashes in the file match straight ones in the excerpt."""
    (tmp_path / "a.md").write_text("He said “don’t” — twice – ok\n", encoding="utf-8")
    v = verify_one(tmp_path, cite(path="a.md", start=1, excerpt='he said "don\'t" - twice - OK'))
    assert v.status == "verified"


def test_list_bullets_ignored(tmp_path):
    """List bullets and numbering in the file do not break a match across items."""
    (tmp_path / "a.md").write_text("1. first step\n- second step\n* third\n", encoding="utf-8")
    v = verify_one(tmp_path, cite(path="a.md", start=1, end=3, excerpt="first step second step third"))
    assert v.status == "verified"


def test_relocated_to_nearest_occurrence(tmp_path):
    """Found elsewhere: lines move to the occurrence nearest the cited lines; originals kept."""
    lines = [f"line {n}" for n in range(1, 201)]
    for at in (10, 150, 185):
        lines[at - 1] = "the answer is forty two"
    (tmp_path / "a.md").write_text("\n".join(lines), encoding="utf-8")
    v = verify_one(tmp_path, cite(path="a.md", start=170, end=171, excerpt="The answer is forty"))
    assert (v.status, v.line_start, v.line_end) == ("relocated", 185, 185)
    assert (v.original_line_start, v.original_line_end) == (170, 171)
    assert v.score == 1.0


def test_range_inferred_without_lines(sandbox):
    """No lines but an excerpt: the range is inferred from where the excerpt is."""
    v = verify_one(sandbox, cite(excerpt="JWT tokens with 24h expiry, refreshed"))
    assert (v.status, v.line_start, v.line_end) == ("verified", 45, 46)
    assert v.original_line_start is None


def test_excerpt_mismatch(sandbox):
    """An excerpt that is nowhere in the file is a mismatch with a low score."""
    v = verify_one(sandbox, cite(start=45, excerpt="Sessions are stored in Redis for a week"))
    assert v.status == "excerpt_mismatch"
    assert v.score < 0.9
    assert v.file_sha256


def test_near_miss_scored_but_not_verified(sandbox):
    """A one-word slip scores high but is still a mismatch, never verified."""
    v = verify_one(
        sandbox,
        cite(start=45, end=46, excerpt="The system uses JWT tokens with 48h expiry, refreshed by the client"),
    )
    assert v.status == "excerpt_mismatch"
    assert 0.9 <= v.score < 1.0
    assert "come close" in v.detail


def test_line_out_of_range(sandbox):
    """Lines past the end of the file with no match anywhere are out of range."""
    v = verify_one(sandbox, cite(start=500, end=510, excerpt="not in this file at all"))
    assert v.status == "line_out_of_range"
    assert "120 lines" in v.detail


def test_line_out_of_range_without_excerpt(sandbox):
    """A bare citation pointing past the end is out of range too."""
    assert verify_one(sandbox, cite(start=121)).status == "line_out_of_range"


def test_past_end_but_excerpt_elsewhere_relocates(sandbox):
    """Lines past the end but an excerpt in the file: relocated, not out of range."""
    v = verify_one(sandbox, cite(start=300, excerpt="refreshed by the client"))
    assert (v.status, v.line_start) == ("relocated", 46)


def test_located_without_excerpt(sandbox):
    """A file citation with no excerpt is located; nothing is inferred."""
    v = verify_one(sandbox, cite())
    assert (v.status, v.line_start, v.score) == ("located", None, None)
    assert v.file_sha256 == hashlib.sha256((sandbox / CID / "notes.md").read_bytes()).hexdigest()


def test_missing_file(sandbox):
    """A path inside the sandbox that does not exist is missing_file."""
    v = verify_one(sandbox, cite(path=f"{CID}/nope.md", excerpt="x"))
    assert v.status == "missing_file"
    assert v.resolved_path == f"{CID}/nope.md"


def test_folder_is_missing_file(sandbox):
    """Citing a folder is missing_file, saying it is a folder."""
    v = verify_one(sandbox, cite(path=CID))
    assert v.status == "missing_file" and "folder" in v.detail


@pytest.mark.parametrize("path", ["../outside.md", "/etc/passwd", f"{CID}/../../outside.md", "a\\..\\b"])
def test_traversal_outside_sandbox(sandbox, path):
    """Paths that leave the sandbox are refused as outside_sandbox."""
    assert verify_one(sandbox, cite(path=path, excerpt="x")).status == "outside_sandbox"


def test_private_folder_outside_sandbox(sandbox):
    """The private .researchmind folder is never cited."""
    v = verify_one(sandbox, cite(path=".researchmind/index.txt", excerpt="secret index"))
    assert v.status == "outside_sandbox"
    assert v.file_sha256 is None


def test_symlink_escape_not_read(sandbox, tmp_path_factory, monkeypatch):
    """A symlink leading out of the sandbox is outside_sandbox and its target is never opened."""
    outside = tmp_path_factory.mktemp("outside") / "secret.md"
    outside.write_text("top secret words\n")
    os.symlink(outside, sandbox / CID / "link.md")
    opened = []
    real_open, real_os_open = open, os.open
    monkeypatch.setattr("builtins.open", lambda f, *a, **k: opened.append(str(f)) or real_open(f, *a, **k))
    # Small files are read through a file descriptor.
    monkeypatch.setattr("os.open", lambda f, *a, **k: opened.append(str(f)) or real_os_open(f, *a, **k))
    v = verify_one(sandbox, cite(path=f"{CID}/link.md", excerpt="top secret words"))
    assert v.status == "outside_sandbox"
    assert not any("secret.md" in f for f in opened)


def test_symlink_into_private_folder(sandbox):
    """A symlink pointing into the private folder is outside_sandbox too."""
    os.symlink(sandbox / ".researchmind" / "index.txt", sandbox / CID / "sneaky.md")
    assert verify_one(sandbox, cite(path=f"{CID}/sneaky.md", excerpt="secret")).status == "outside_sandbox"


def test_short_id_unique(sandbox):
    """An 8-hex short id resolves to the only content id starting with it."""
    v = verify_one(sandbox, cite(path="3f2a9c1e/notes.md", start=46, excerpt="refreshed by the client"))
    assert (v.status, v.resolved_path, v.content_id) == ("verified", f"{CID}/notes.md", CID)


def test_short_id_ambiguous(sandbox):
    """A short id matching two content items does not resolve; the detail says why."""
    (sandbox / "3f2a9c1e-0000-4000-8000-000000000000").mkdir()
    v = verify_one(sandbox, cite(path="3f2a9c1e/notes.md", excerpt="x"))
    assert v.status == "missing_file"
    assert "matches 2 content items" in v.detail


def test_path_without_content_id_found_in_one_item(sandbox):
    """'notes.md:46' with no content id resolves when exactly one item holds that file."""
    v = verify_one(sandbox, cite(path="notes.md", start=46, excerpt="refreshed by the client"))
    assert (v.status, v.resolved_path) == ("verified", f"{CID}/notes.md")


def test_url_matched_with_excerpt(sandbox):
    """A URL that is a scraped content item, with its excerpt in the item's files, is url_matched."""
    c = cite(
        path=None, source_type="url", url="https://Example.com/docs/auth/", excerpt="refreshed by the client"
    )
    v = verify_one(sandbox, c, url_to_content={"https://example.com/docs/auth": CID})
    assert (v.status, v.resolved_path, v.line_start) == ("url_matched", f"{CID}/notes.md", 46)


def test_url_matched_via_manifest_without_excerpt(sandbox):
    """The manifest maps URLs too; without an excerpt the score is None and the detail says so."""
    (sandbox / "_content_manifest.json").write_text(
        json.dumps({CID: {"source_url": "https://example.com/a"}})
    )
    v = verify_one(sandbox, cite(path=None, source_type="url", url="https://www.example.com/a#top"))
    assert (v.status, v.score, v.content_id) == ("url_matched", None, CID)
    assert "no excerpt" in v.detail


def test_url_item_without_excerpt_match(sandbox):
    """A content-item URL whose files lack the excerpt is a mismatch."""
    c = cite(path=None, source_type="url", url="https://example.com/a", excerpt="not there")
    v = verify_one(sandbox, c, url_to_content={"https://example.com/a": CID})
    assert v.status == "excerpt_mismatch"


def test_unknown_url_unverifiable(sandbox):
    """A URL that is no content item is unverifiable."""
    v = verify_one(sandbox, cite(path=None, source_type="url", url="https://elsewhere.org/x", excerpt="x"))
    assert v.status == "unverifiable"


@pytest.mark.parametrize("kind", ["inference", "memory"])
def test_inference_and_memory_unverifiable(sandbox, kind):
    """Inference and memory citations cannot be checked against files."""
    assert (
        verify_one(sandbox, cite(path=None, source_type=kind, excerpt="reasoning")).status == "unverifiable"
    )


def test_bom_file(tmp_path):
    """A UTF-8 BOM does not shift or break matching on the first line."""
    (tmp_path / "a.md").write_bytes(b"\xef\xbb\xbfFirst line here\nsecond\n")
    assert verify_one(tmp_path, cite(path="a.md", start=1, excerpt="first line here")).status == "verified"


def test_latin1_file(tmp_path):
    """A file that is not UTF-8 is read as latin-1."""
    (tmp_path / "a.txt").write_bytes("x\nCafé crème brûlée\n".encode("latin-1"))
    v = verify_one(tmp_path, cite(path="a.txt", excerpt="café crème"))
    assert (v.status, v.line_start) == ("verified", 2)


def test_binary_file(tmp_path):
    """A binary file (NUL in the first 8 KB) is never matched; without an excerpt it is located."""
    (tmp_path / "a.bin").write_bytes(b"PK\x03\x04\x00\x00secret words\n")
    with_excerpt = verify_one(tmp_path, cite(path="a.bin", excerpt="secret words"))
    bare = verify_one(tmp_path, cite(path="a.bin"))
    assert with_excerpt.status == "excerpt_mismatch" and "binary" in with_excerpt.detail
    assert bare.status == "located" and "binary" in bare.detail


def test_large_file_streamed(tmp_path, monkeypatch):
    """A file larger than one chunk is streamed: cited lines, relocation and
    excerpts straddling a chunk boundary are all found."""
    monkeypatch.setattr("core.citations.verification.read.WHOLE", 4096)
    monkeypatch.setattr("core.citations.verification.read.CHUNK", 4096)
    monkeypatch.setattr("core.citations.verification.read.OVERLAP", 512)
    lines = [f"row {n:05d} of padding text" for n in range(1, 3001)]
    lines[1499] = "needle alpha"
    lines[1500] = "needle beta"
    (tmp_path / "big.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    boundary = next(n for n in range(1, 3000) if sum(len(x) + 1 for x in lines[:n]) > 4096)
    results = verify_citations(
        tmp_path,
        [
            cite(path="big.txt", start=1500, end=1501, excerpt="needle alpha needle beta"),
            cite(path="big.txt", start=10, excerpt="needle beta"),
            cite(path="big.txt", excerpt=f"row {boundary:05d} of padding text row {boundary + 1:05d}"),
            cite(path="big.txt", start=3001),
        ],
    )
    assert [(r.status, r.line_start) for r in results] == [
        ("verified", 1500),
        ("relocated", 1501),
        ("verified", boundary),
        ("line_out_of_range", 3001),
    ]


def test_each_file_read_once(sandbox, monkeypatch):
    """Many citations of one file open it once."""
    opened = []
    real_open, real_os_open = open, os.open
    monkeypatch.setattr("builtins.open", lambda f, *a, **k: opened.append(str(f)) or real_open(f, *a, **k))
    # Small files are read through a file descriptor.
    monkeypatch.setattr("os.open", lambda f, *a, **k: opened.append(str(f)) or real_os_open(f, *a, **k))
    verify_citations(sandbox, [cite(start=n, excerpt=TEXT[n - 1]) for n in range(1, 40)])
    assert sum(f.endswith("notes.md") for f in opened) == 1


def test_order_kept_and_never_raises(sandbox):
    """Odd citations still each get a result, in order."""
    odd = [
        cite(path="", excerpt="x"),
        cite(path="\x00bad", excerpt="x"),
        cite(path=f"{CID}/notes.md", start=-5, excerpt="..."),
        ParsedCitation(cid="c9", found_by="file_line", source_type="weird", source_path=None),
    ]
    results = verify_citations(sandbox, odd)
    assert [r.status for r in results] == ["unverifiable", "outside_sandbox", "located", "unverifiable"]


def test_file_digest_tracks_changes(sandbox):
    """file_digest changes when the file changes and refuses paths outside the sandbox."""
    before = file_digest(sandbox, f"{CID}/notes.md")
    (sandbox / CID / "notes.md").write_text("changed\n")
    assert before and before != file_digest(sandbox, f"{CID}/notes.md")
    assert file_digest(sandbox, "../x") is None
    assert file_digest(sandbox, ".researchmind/index.txt") is None


def test_end_to_end_seed_000_block(sandbox):
    """The CITATIONS block of docs/FORMATS.md, parsed then verified, checks the file citation."""
    answer = (
        'Tokens [c1].\n<!-- CITATIONS: [{"id": "c1", "source_file": "3f2a9c1e/notes.md", "source_type": '
        '"file", "location": {"line_start": 45, "line_end": 52, "section": "Authentication"}, '
        '"excerpt": "The system uses JWT tokens with 24h expiry...", "relevance": "direct", '
        '"confidence": 0.95}] -->'
    )
    parsed = parse_citations(answer, content_ids=[CID, OTHER])
    (v,) = verify_citations(sandbox, parsed.citations, content_ids=[CID, OTHER])
    assert (v.status, v.resolved_path) == ("verified", f"{CID}/notes.md")


def test_crlf_line_endings(tmp_path):
    """Windows line endings neither shift line numbers nor break matching."""
    (tmp_path / "a.md").write_bytes(b"one\r\ntwo words here\r\nthree\r\n")
    v = verify_one(tmp_path, cite(path="a.md", excerpt="two words here three"))
    assert (v.status, v.line_start, v.line_end) == ("verified", 2, 3)


def test_first_occurrence_when_no_lines(tmp_path):
    """With no cited lines, the inferred range is the first occurrence."""
    (tmp_path / "a.md").write_text("x\nrepeat me\ny\nrepeat me\n", encoding="utf-8")
    v = verify_one(tmp_path, cite(path="a.md", excerpt="repeat me"))
    assert (v.status, v.line_start) == ("verified", 2)


# verify_citations' own planning and bookkeeping (core/citations/verification/__init__.py),
# each behaviour at its edge: what an unexpected
# failure of a judge reads as, the private folder named or linked to, partial, ambiguous
# and short-id paths, URL, inference and memory citations, and a caller's odd input.


def test_a_judge_that_fails_gives_an_unverifiable_citation_saying_why() -> None:
    def judge(*args):
        raise RuntimeError(f"no digest for {args[0]}")

    result = _judged(judge, "notes.md", 1)
    assert result == Verification(
        "unverifiable", "The citation could not be checked: no digest for notes.md."
    )
    assert _judged(lambda *args: Verification("verified", "ok", 1.0), 1) == Verification(
        "verified", "ok", 1.0
    )


def test_a_link_to_the_private_folder_itself_is_outside_the_sandbox(tmp_path) -> None:
    """Not a missing file or a folder: the path leads into the private folder and is refused."""
    (tmp_path / ".researchmind").mkdir()
    (tmp_path / ".researchmind" / "state.txt").write_text("secret\n", encoding="utf-8")
    (tmp_path / CID).mkdir()
    (tmp_path / CID / "alias").symlink_to(tmp_path / ".researchmind")
    (result,) = verify_citations(tmp_path, [file_citation(f"{CID}/alias", 1, 1, "secret")])
    assert (result.status, result.detail) == (
        "outside_sandbox",
        "The path leads into the sandbox's private folder.",
    )
    (inside,) = verify_citations(tmp_path, [file_citation(f"{CID}/alias/state.txt", 1, 1, "secret")])
    assert (inside.status, inside.detail) == (
        "outside_sandbox",
        "The path leads into the sandbox's private folder.",
    )


def test_a_cited_path_that_is_empty_once_dot_slashes_go_names_no_file(tmp_path) -> None:
    for path in ("", "./", "././", "   "):
        (result,) = verify_citations(tmp_path, [file_citation(path, 1, 1, "anything")])
        assert (result.status, result.detail) == ("unverifiable", "The citation names no file to check.")


def test_a_path_spelled_into_the_private_folder_is_refused_before_it_is_resolved(tmp_path) -> None:
    """Named by its first folder, whether or not the private folder exists (a link
    into it is caught after resolving, with its own words)."""
    for exists in (False, True):
        if exists:
            (tmp_path / ".researchmind" / "deep").mkdir(parents=True)
            (tmp_path / ".researchmind" / "deep" / "state.txt").write_text("secret\n", encoding="utf-8")
        for path in (".researchmind", ".researchmind/state.txt", ".researchmind/deep/state.txt"):
            (result,) = verify_citations(tmp_path, [file_citation(path, 1, 1, "secret")])
            assert (result.status, result.detail) == (
                "outside_sandbox",
                "The path is in the sandbox's private folder, which is never cited.",
            ), (exists, path)


def _write(root, rel: str, text: str = "alpha beta gamma\n") -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_a_content_path_missing_its_inner_folders_is_matched_by_all_the_folders_it_gives(tmp_path) -> None:
    """``<id>/docs/notes.md`` for ``<id>/x/docs/notes.md``: matched by ``docs/notes.md``, its
    path inside the item, so another ``notes.md`` of the item is not a candidate."""
    _write(tmp_path, f"{CID}/a/notes.md")
    _write(tmp_path, f"{CID}/x/docs/notes.md")
    (result,) = verify_citations(tmp_path, [file_citation(f"{CID}/docs/notes.md", 1, 1, "alpha beta gamma")])
    assert (result.status, result.resolved_path, result.content_id) == (
        "verified",
        f"{CID}/x/docs/notes.md",
        CID,
    )
    assert result.detail.startswith(
        f"The path {CID}/docs/notes.md names one file in the sandbox, {CID}/x/docs/notes.md. "
    )


def test_a_content_item_cited_as_a_path_is_a_folder_even_holding_a_file_of_its_name(tmp_path) -> None:
    _write(tmp_path, f"{CID}/sub/{CID}")
    (result,) = verify_citations(tmp_path, [file_citation(CID, 1, 1, "alpha beta gamma")])
    assert (result.status, result.detail, result.resolved_path, result.content_id) == (
        "missing_file",
        f"The file {CID} is a folder, not a file.",
        CID,
        CID,
    )


def test_an_ambiguous_path_keeps_the_path_as_cited_and_its_content_item(tmp_path) -> None:
    other = "0b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d"
    _write(tmp_path, f"{CID}/a/notes.md")
    _write(tmp_path, f"{CID}/b/notes.md")
    _write(tmp_path, f"{other}/notes.md")
    (bare,) = verify_citations(tmp_path, [file_citation("notes.md", 1, 1, "alpha beta gamma")])
    assert (bare.status, bare.resolved_path, bare.content_id) == ("ambiguous", "notes.md", None)
    assert bare.detail == (
        "The path notes.md names 3 files in the sandbox: "
        f"{other}/notes.md, {CID}/a/notes.md, {CID}/b/notes.md."
    )
    (within,) = verify_citations(tmp_path, [file_citation(f"{CID}/notes.md", 1, 1, "alpha beta gamma")])
    assert (within.status, within.resolved_path, within.content_id) == ("ambiguous", f"{CID}/notes.md", CID)
    assert within.detail == (
        f"The path {CID}/notes.md names 2 files in the sandbox: {CID}/a/notes.md, {CID}/b/notes.md."
    )


def test_a_short_id_that_names_one_item_adds_nothing_to_what_is_said(tmp_path) -> None:
    """``3f2a9c1e/…`` is the one content item starting so: a missing file's detail is only
    that; one found is verified with nothing said about the short id."""
    _write(tmp_path, f"{CID}/notes.md")
    (missing,) = verify_citations(tmp_path, [file_citation("3f2a9c1e/gone.md", 1, 1, "alpha")])
    assert (missing.status, missing.detail, missing.resolved_path, missing.content_id) == (
        "missing_file",
        f"The file {CID}/gone.md is not in the sandbox.",
        f"{CID}/gone.md",
        CID,
    )
    (found,) = verify_citations(tmp_path, [file_citation("3F2A9C1E/notes.md", 1, 1, "alpha beta gamma")])
    assert (found.status, found.detail, found.resolved_path) == (
        "verified",
        "The excerpt is at the cited line 1.",
        f"{CID}/notes.md",
    )


def test_inference_and_memory_are_unverifiable_even_naming_a_file_that_holds_the_excerpt(tmp_path) -> None:
    _write(tmp_path, f"{CID}/notes.md")
    for kind in ("inference", "memory"):
        cited = file_citation(f"{CID}/notes.md", 1, 1, "alpha beta gamma", source_type=kind)
        (result,) = verify_citations(tmp_path, [cited])
        assert (result.status, result.detail) == (
            "unverifiable",
            f"The citation is {kind}, which no file can confirm.",
        )


def test_a_url_citation_is_checked_as_a_url_with_or_without_a_path_and_whatever_its_type(tmp_path) -> None:
    """``source_type: url`` is a URL citation even when it also names a file; a citation of
    another type that gives only a URL is one too."""
    _write(tmp_path, f"{CID}/notes.md")
    urls = {"https://example.org/notes": CID}
    typed = file_citation(
        f"{CID}/notes.md", 1, 1, "alpha beta gamma", source_type="url", url="https://example.org/notes"
    )
    untyped = file_citation(
        None, None, None, "alpha beta gamma", source_type="file", url="https://example.org/notes"
    )
    for cited in (typed, untyped):
        (result,) = verify_citations(tmp_path, [cited], url_to_content=urls)
        assert (result.status, result.detail, result.resolved_path, result.content_id) == (
            "url_matched",
            f"The URL is a content item of this session and the excerpt is in {CID}/notes.md at line 1.",
            f"{CID}/notes.md",
            CID,
        )
    (unknown,) = verify_citations(tmp_path, [untyped])
    assert (unknown.status, unknown.detail) == (
        "unverifiable",
        "The URL is not one of the session's content items.",
    )


def test_a_caller_passing_none_for_the_known_ids_or_urls_still_gets_an_answer_per_citation(tmp_path) -> None:
    _write(tmp_path, f"{CID}/notes.md")
    cited = [file_citation(f"{CID}/notes.md", 1, 1, "alpha beta gamma"), file_citation("gone.md", 1, 1, "x")]
    for wrong in ({"content_ids": None}, {"url_to_content": None}):
        found, missing = verify_citations(tmp_path, cited, **wrong)
        assert (found.status, missing.status) == ("verified", "missing_file"), wrong


def test_a_file_citation_that_also_gives_a_url_is_checked_in_its_file(tmp_path) -> None:
    _write(tmp_path, f"{CID}/notes.md")
    cited = file_citation(f"{CID}/notes.md", 1, 1, "alpha beta gamma", url="https://example.org/elsewhere")
    (result,) = verify_citations(tmp_path, [cited])
    assert (result.status, result.detail, result.resolved_path) == (
        "verified",
        "The excerpt is at the cited line 1.",
        f"{CID}/notes.md",
    )


def test_only_http_urls_are_sources(tmp_path) -> None:
    for url in ("javascript:alert(1)", "ftp://example.org/notes", "file:///etc/passwd", "example.org/notes"):
        (result,) = verify_citations(
            tmp_path, [file_citation(None, None, None, "alpha", source_type="url", url=url)]
        )
        assert (result.status, result.detail) == (
            "unverifiable",
            "Only http(s) URLs are sources; this one is kept as text and never shown as a link.",
        ), url


def test_a_known_url_without_an_excerpt_is_matched_as_a_content_item(tmp_path) -> None:
    _write(tmp_path, f"{CID}/notes.md")
    for excerpt in (None, "", "** **"):
        cited = file_citation(None, None, None, excerpt, source_type="url", url="https://Example.org/notes/")
        (result,) = verify_citations(tmp_path, [cited], url_to_content={"https://example.org/notes": CID})
        assert (result.status, result.detail, result.score, result.content_id, result.resolved_path) == (
            "url_matched",
            "The URL is a content item of this session; the citation gave no excerpt to check.",
            None,
            CID,
            None,
        ), excerpt


def test_a_known_url_whose_content_item_has_no_files_is_a_mismatch_naming_the_item(tmp_path) -> None:
    cited = file_citation(
        None, None, None, "alpha beta gamma", source_type="url", url="https://example.org/notes"
    )
    for make in (False, True):  # no folder, then an empty one
        if make:
            (tmp_path / CID).mkdir()
        (result,) = verify_citations(tmp_path, [cited], url_to_content={"https://example.org/notes": CID})
        assert (result.status, result.detail, result.score, result.content_id) == (
            "excerpt_mismatch",
            "The URL's content item has no readable files.",
            0.0,
            CID,
        ), make


def test_a_start_line_without_an_end_is_one_line(tmp_path) -> None:
    _write(tmp_path, f"{CID}/notes.md", "alpha beta gamma\ndelta epsilon\n")
    cited = replace(file_citation(f"{CID}/notes.md", 2, 2, "delta epsilon"), line_end=None)
    (result,) = verify_citations(tmp_path, [cited])
    assert (result.status, result.line_start, result.line_end, result.detail) == (
        "verified",
        2,
        2,
        "The excerpt is at the cited line 2.",
    )


# verify_citations' planning and outcomes (``__init__``, ``outcome``,
# ``normalize``, ``sources``) at their edges.


def test_excerpt_a_line_lower_is_relocated(tmp_path):
    """An excerpt found one line below the cited line is relocated there."""
    (tmp_path / "notes.md").write_text("one\ntwo\nthe excerpt\nfour\n", encoding="utf-8")
    (result,) = verify_citations(tmp_path, [file_citation("notes.md", 2, 2, "the excerpt")])
    assert (result.status, result.line_start, result.line_end) == ("relocated", 3, 3)


def test_only_quotes_around_an_excerpt_are_dropped(tmp_path):
    """Matching letters at both ends of an excerpt are its text, not quotes:
    "X marks the spot X" is not in a file that says "Y marks the spot Y"."""
    (tmp_path / "notes.md").write_text("Y marks the spot Y\n", encoding="utf-8")
    quoted, lettered = verify_citations(
        tmp_path,
        [
            file_citation("notes.md", 1, 1, '"Y marks the spot Y"'),
            file_citation("notes.md", 1, 1, "X marks the spot X"),
        ],
    )
    assert (quoted.status, lettered.status) == ("verified", "excerpt_mismatch")


def test_verbatim_bytes_in_a_line_with_every_kind_of_folded_markup_are_not_trusted(tmp_path):
    """The excerpt's bytes are in the cited line, but that line holds a role, a
    dash run and a link, which render without "cls:": the excerpt is not there."""
    (tmp_path / "notes.md").write_text(":cls:`Page` text -- see [docs](u)\n", encoding="utf-8")
    (result,) = verify_citations(tmp_path, [file_citation("notes.md", 1, 1, "cls:`Page` text")])
    assert result.status == "excerpt_mismatch"


# verify_citations' planning, every detail in full: which file a cited path
# names, what is said when it names none or several, and how a relocated or
# mismatched excerpt is described.


NOTES = "alpha beta gamma\ndelta epsilon\nalpha beta gamma\nzeta eta theta\n"


@pytest.fixture
def notes_sandbox(tmp_path):
    (tmp_path / CID / "docs").mkdir(parents=True)
    (tmp_path / CID / "docs" / "notes.md").write_text(NOTES, encoding="utf-8")
    (tmp_path / ".researchmind").mkdir()
    return tmp_path


def test_a_verified_citation_in_full(notes_sandbox) -> None:
    (result,) = verify_citations(
        notes_sandbox, [file_citation(f"{CID}/docs/notes.md", 2, 2, "delta epsilon")]
    )
    assert result.status == "verified"
    assert (result.line_start, result.line_end) == (2, 2)
    assert result.resolved_path == f"{CID}/docs/notes.md"
    assert result.content_id == CID
    assert result.file_sha256 == hashlib.sha256(NOTES.encode()).hexdigest()


def test_three_other_copies_are_all_listed_and_a_fourth_is_counted(tmp_path) -> None:
    (tmp_path / CID).mkdir()
    lines = ["filler"] * 12
    for at in (2, 5, 8, 11):
        lines[at - 1] = "the copied sentence"
    (tmp_path / CID / "c.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (result,) = verify_citations(tmp_path, [file_citation(f"{CID}/c.md", 1, 1, "the copied sentence")])
    assert result.status == "relocated"
    assert result.detail == (
        "The excerpt is not at the cited line 1 but at line 2. "
        "3 other copies are in the file, at line 5, line 8 and line 11."
    )
    lines[12 - 1] = "the copied sentence"
    (tmp_path / CID / "c.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (result,) = verify_citations(tmp_path, [file_citation(f"{CID}/c.md", 1, 1, "the copied sentence")])
    assert result.detail == (
        "The excerpt is not at the cited line 1 but at line 2. "
        "4 other copies are in the file, at line 5, line 8, line 11 and 1 more."
    )
