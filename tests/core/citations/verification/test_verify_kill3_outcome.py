"""Every outcome judged in a file names the file it was judged in, its content item and the
digest of the bytes read, so the viewer can open it and a later change can flag it
(core/citations/verification/outcome.py), whatever the status."""

from __future__ import annotations

import hashlib

from core.citations.verification import verify_citations
from tests.core.citations.builders import file_citation

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
