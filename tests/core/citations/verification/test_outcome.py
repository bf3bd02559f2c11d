"""What each outcome tells the person reading it, word for word: where the
other copies of a relocated excerpt are, how close a near miss comes, what a
binary file or a range past the end gets."""

from __future__ import annotations

import hashlib

import pytest

from core.citations.verification import verify_citations
from tests.core.citations.builders import file_citation


def verify_one(root, citation):
    (result,) = verify_citations(root, [citation])
    return result


@pytest.fixture
def copies(tmp_path):
    """A file with the phrase on lines 10, 20, 30, 40 and 50 (the last split over two lines)."""
    lines = [f"filler {n}" for n in range(1, 61)]
    for at in (10, 20, 30, 40):
        lines[at - 1] = "the phrase we want"
    lines[49], lines[50] = "the phrase", "we want"
    (tmp_path / "c.md").write_text("\n".join(lines) + "\n")
    return tmp_path


def test_relocated_detail_lists_three_other_copies_and_counts_the_rest(copies):
    """Nearest copy taken; the first three others listed (a two-line one as a range), the rest counted."""
    v = verify_one(copies, file_citation("c.md", 12, 12, "the phrase we want"))
    assert (v.status, v.line_start, v.line_end, v.score) == ("relocated", 10, 10, 1.0)
    assert (v.original_line_start, v.original_line_end) == (12, 12)
    assert v.detail == (
        "The excerpt is not at the cited line 12 but at line 10. "
        "4 other copies are in the file, at line 20, line 30, line 40 and 1 more."
    )


def test_relocated_detail_lists_two_other_copies(tmp_path):
    """Two other copies are listed with "and"; a two-line one as a range."""
    lines = [f"filler {n}" for n in range(1, 31)]
    for at in (5, 15):
        lines[at - 1] = "the phrase we want"
    lines[24], lines[25] = "the phrase", "we want"
    (tmp_path / "c.md").write_text("\n".join(lines) + "\n")
    v = verify_one(tmp_path, file_citation("c.md", 1, 2, "the phrase we want"))
    assert v.detail == (
        "The excerpt is not at the cited lines 1-2 but at line 5. "
        "2 other copies are in the file, at line 15 and lines 25-26."
    )


def test_verified_without_lines_names_where(copies):
    """Without lines, the first copy is taken and named."""
    v = verify_one(copies, file_citation("c.md", excerpt="the phrase we want"))
    assert (v.status, v.line_start, v.line_end, v.score) == ("verified", 10, 10, 1.0)
    assert v.detail == "The excerpt was found at line 10 (the citation gave no lines)."


def test_excerpt_running_past_the_cited_range(copies):
    """An excerpt starting in the cited line but ending below it gets its full range."""
    v = verify_one(copies, file_citation("c.md", 50, 50, "the phrase we want"))
    assert (v.status, v.line_start, v.line_end) == ("relocated", 50, 51)
    assert v.detail.startswith(
        "The excerpt starts in the cited line 50 but runs on to line 51: its full text is at lines 50-51. "
    )


def test_past_the_end_outcomes(copies):
    """Past the end: with no excerpt, or one that is nowhere, the range is out of range; the
    detail gives the file's length."""
    bare = verify_one(copies, file_citation("c.md", 70, 71))
    gone = verify_one(copies, file_citation("c.md", 61, 61, "never written"))
    assert (bare.status, bare.line_start, bare.line_end, bare.score) == ("line_out_of_range", 70, 71, None)
    assert bare.detail == "The file has 60 lines; the citation points at lines 70-71."
    assert (gone.status, gone.score, gone.line_start) == ("line_out_of_range", 0.0, 61)
    assert gone.detail == (
        "The file has 60 lines; the citation points at line 61 and the excerpt is nowhere in it."
    )
    moved = verify_one(copies, file_citation("c.md", 90, 90, "filler 7"))
    assert moved.detail.startswith(
        "The citation points at line 90, past the end of the file (60 lines); the excerpt is at line 7."
    )


def test_last_line_is_not_past_the_end(copies):
    """The last line itself is in range."""
    v = verify_one(copies, file_citation("c.md", 60, 60))
    assert (v.status, v.detail) == ("located", "The file exists; the citation gave no excerpt to check.")


def test_binary_file_outcomes(tmp_path):
    """A binary file is located, but no excerpt is checked in it."""
    (tmp_path / "b.bin").write_bytes(b"\x00\x01alpha beta\n" * 3)
    bare = verify_one(tmp_path, file_citation("b.bin", 2, 2))
    quoted = verify_one(tmp_path, file_citation("b.bin", 2, 2, "alpha beta"))
    assert (bare.status, bare.line_start) == ("located", 2)
    assert bare.detail == "The binary file exists; the citation gave no excerpt to check."
    assert (quoted.status, quoted.score, quoted.line_start, quoted.line_end) == (
        "excerpt_mismatch",
        0.0,
        2,
        2,
    )
    assert quoted.detail == "The file is binary, so the excerpt cannot be checked in it."


def test_near_miss_details_and_scores(tmp_path):
    """A near miss is scored on its words, capped below 1, and the detail says how close."""
    words = "the paginator validates every page number it is given before slicing the list"
    (tmp_path / "n.md").write_text(f"intro\n{words}\nend\n")
    one_word = words.replace("every", "each")
    v = verify_one(tmp_path, file_citation("n.md", 2, 2, one_word))
    assert (v.status, v.line_start) == ("excerpt_mismatch", 2)
    assert v.score == round(12 / 13, 3)  # 12 of 13 words in place
    assert v.detail == "The excerpt is not in the file exactly; line 2 comes close (92% similar)."
    far = verify_one(tmp_path, file_citation("n.md", 2, 2, "the paginator never checks anything at all"))
    assert 0 < far.score < 0.9
    assert (
        far.detail == f"The excerpt is not in the file; the closest text is {int(far.score * 100)}% similar."
    )
    symbols = verify_one(tmp_path, file_citation("n.md", 2, 2, words.replace(" it ", " (it) ") + "!"))
    assert symbols.score == 0.99
    assert symbols.detail == (
        "The excerpt's words are all at line 2, but its punctuation or symbols differ from the file's."
    )


# Every outcome judged in a file names the file it was judged in, its content item and the
# digest of the bytes read, so the viewer can open it and a later change can flag it
# (core/citations/verification/outcome.py), whatever the status.


CID = "3f2a9c1e-5b7d-4c21-9e8f-0a1b2c3d4e5f"
NOTES = b"alpha beta gamma\ndelta epsilon\nzeta eta theta\n"
BINARY = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))


def test_each_status_judged_in_a_file_carries_the_file_its_item_and_its_digest(tmp_path) -> None:
    (tmp_path / CID).mkdir()
    (tmp_path / CID / "notes.md").write_bytes(NOTES)
    (tmp_path / CID / "image.png").write_bytes(BINARY)
    notes, image = f"{CID}/notes.md", f"{CID}/image.png"
    cases = [
        (file_citation(notes, 9, 9), "line_out_of_range", notes, NOTES),
        (file_citation(notes, 2, 2), "located", notes, NOTES),
        (file_citation(image, 1, 1, "IHDR"), "excerpt_mismatch", image, BINARY),
        (file_citation(notes, 1, 1, "zeta eta theta"), "relocated", notes, NOTES),
        (file_citation(notes, 2, 2, "delta epsilon"), "verified", notes, NOTES),
        (file_citation(notes, 2, 2, "omega psi"), "excerpt_mismatch", notes, NOTES),
        (file_citation(notes, 9, 9, "omega psi"), "line_out_of_range", notes, NOTES),
    ]
    results = verify_citations(tmp_path, [cited for cited, *_ in cases])
    for result, (_, status, path, data) in zip(results, cases, strict=True):
        assert (result.status, result.resolved_path, result.content_id, result.file_sha256) == (
            status,
            path,
            CID,
            hashlib.sha256(data).hexdigest(),
        ), result.detail
    assert results[0].detail == "The file has 3 lines; the citation points at line 9."
    assert results[2].detail == "The file is binary, so the excerpt cannot be checked in it."
    assert (results[3].line_start, results[3].original_line_start) == (3, 1)


WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet".split()


def test_similarity_at_the_threshold_comes_close_and_below_it_is_the_closest_text(tmp_path) -> None:
    """One word of ten replaced is 90 % similar, exactly the threshold: it comes close. Below
    the threshold the percentage shown is the score's, cut to a whole percent (66.7 % is 66)."""
    (tmp_path / CID).mkdir()
    (tmp_path / CID / "words.md").write_text(" ".join(WORDS) + "\nsecond line here\n", encoding="utf-8")
    path = f"{CID}/words.md"
    near = " ".join(["zulu", *WORDS[1:]])
    far = "alpha bravo charlieqdelta"
    two = " ".join([*WORDS[:9], "zulu second line"])
    results = verify_citations(
        tmp_path,
        [file_citation(path, 1, 1, near), file_citation(path, 1, 1, far), file_citation(path, 1, 2, two)],
    )
    assert [(r.status, r.score, r.detail) for r in results[:2]] == [
        (
            "excerpt_mismatch",
            0.9,
            "The excerpt is not in the file exactly; line 1 comes close (90% similar).",
        ),
        ("excerpt_mismatch", 0.667, "The excerpt is not in the file; the closest text is 66% similar."),
    ]
    assert results[2].detail.startswith("The excerpt is not in the file exactly; lines 1-2 come close (")
