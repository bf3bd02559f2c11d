"""verify_citations' own planning and bookkeeping (core/citations/verification/__init__.py),
each behaviour a mutant of it changed without a test noticing: what an unexpected
failure of a judge reads as, the private folder named or linked to, partial, ambiguous
and short-id paths, URL, inference and memory citations, and a caller's odd input."""

from __future__ import annotations

from dataclasses import replace

from core.citations.verification import Verification, _judged, verify_citations
from tests.core.citations.builders import file_citation

CID = "3f2a9c1e-5b7d-4c21-9e8f-0a1b2c3d4e5f"


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
