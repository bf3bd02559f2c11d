"""The fast paths of verification give the same answers as the slow, obvious
ones: line offsets without splitting, chunks searched again only for excerpts found missing later,
seams between chunks, byte-level (ASCII) and text-level search, the hash
taken from the bytes read for the search."""

from __future__ import annotations

import hashlib
import random

import pytest

from core.citations.verification import verify_citations
from core.citations.verification.lines import LineIndex
from core.citations.verification.normalize import fold
from tests.core.citations.builders import file_citation

cite = file_citation


@pytest.fixture(params=["whole", "streamed"])
def mode(request, monkeypatch):
    """Run each test on whole files and on files streamed in small chunks."""
    if request.param == "streamed":
        monkeypatch.setattr("core.citations.verification.read.WHOLE", 4096)
        monkeypatch.setattr("core.citations.verification.read.CHUNK", 4096)
        monkeypatch.setattr("core.citations.verification.read.OVERLAP", 512)
    return request.param


@pytest.mark.parametrize("seed", range(6))
def test_line_index_matches_splitting(seed):
    """Offsets of lines, in any order and past the end, agree with split()."""
    rng = random.Random(seed)
    lines = ["x" * rng.choice([0, 1, 5, 40, 300]) for _ in range(rng.randint(0, 3000))]
    data = "\n".join(lines).encode() + (b"\n" if seed % 2 else b"")
    starts = [0]
    for n, byte in enumerate(data):
        if byte == 10:
            starts.append(n + 1)
    n_lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    for source in (data, data.decode()):
        index = LineIndex(source)
        queries = list(range(1, n_lines + 3))
        rng.shuffle(queries)
        for line in queries[:400]:
            expected = starts[line - 1] if line - 1 < len(starts) else len(data)
            if line > n_lines:
                assert index.start_of(line) == len(data)
            else:
                assert index.start_of(line) == expected
                end = data.find(b"\n", expected)
                assert index.end_of(line) == (len(data) if end < 0 else end)
        for offset in rng.sample(range(len(data) + 1), min(200, len(data) + 1)):
            assert index.newlines_before(offset) == data.count(b"\n", 0, offset)
        assert index.newlines == data.count(b"\n")


def test_bullets_dropped_only_at_line_starts():
    assert fold("- a\n  * b\n3. c\nd - e\n12) f") == "a\nb\nc\nd - e\nf"
    assert fold("x\n-y\n\t+ z") == "x\n-y\nz"


def _planted(rng, n_lines, spots):
    """Filler lines (no "needle") with the two-line excerpt at ``spots``."""
    words = ["alpha", "beta", "Gamma", "DELTA", "row", "text", "**bold**"]
    lines = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 8))) for _ in range(n_lines)]
    for spot in spots:
        lines[spot - 1] = "The **Needle** in"
        lines[spot] = "the haystack, here."
    return lines


@pytest.mark.parametrize("seed", range(12))
def test_relocation_picks_the_nearest_occurrence(tmp_path, mode, seed):
    """Whatever the distances (inside the nearby band, at its edge, outside
    it, on both sides), a relocated citation lands on the nearest occurrence,
    ties going to the earlier one; without lines, on the first. A two-line
    excerpt is never inside a one-line citation, so never verified."""
    rng = random.Random(seed)
    n_lines = 900
    spots = sorted(rng.sample(range(2, n_lines - 1, 3), rng.randint(1, 4)))
    lines = _planted(rng, n_lines, spots)
    (tmp_path / "f.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    excerpt = "the needle in the haystack, here."
    cited = [rng.randint(1, n_lines) for _ in range(8)] + [
        s + d for s in spots[:1] for d in (-52, -50, 49, 51)
    ]
    citations = [cite("f.md", c, c, excerpt) for c in cited if 1 <= c <= n_lines]
    citations.append(cite("f.md", excerpt=excerpt))
    results = verify_citations(tmp_path, citations)
    for citation, result in zip(citations, results, strict=True):
        if citation.line_start is None:
            assert (result.status, result.line_start) == ("verified", spots[0])
            continue
        start = citation.line_start
        nearest = min(spots, key=lambda s: (abs(s - start), s))
        assert (result.status, result.line_start, result.line_end) == ("relocated", nearest, nearest + 1)
        assert result.original_line_start == start


def test_streamed_miss_found_in_an_earlier_chunk(tmp_path, mode):
    """An excerpt cited far down a streamed file but written near its top is
    found by searching the chunks already passed; so is one straddling a
    chunk boundary there, and a range-less one."""
    lines = [f"row {n:05d} of padding text" for n in range(1, 3001)]
    lines[9] = "Needle ALPHA"
    lines[10] = "needle beta"
    (tmp_path / "big.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    boundary = next(n for n in range(1, 3000) if sum(len(x) + 1 for x in lines[:n]) > 4096)
    straddle = f"row {boundary:05d} of padding text row {boundary + 1:05d}"
    results = verify_citations(
        tmp_path,
        [
            cite("big.txt", 2900, 2901, "needle alpha needle beta"),
            cite("big.txt", 2950, 2950, straddle),
            cite("big.txt", excerpt="needle beta"),
            cite("big.txt", 2990, 2990, "never written in the file"),
        ],
    )
    assert [(r.status, r.line_start) for r in results] == [
        ("relocated", 10),
        ("relocated", boundary),
        ("verified", 11),
        ("excerpt_mismatch", 2990),
    ]


def test_non_ascii_file_searched_as_text(tmp_path, mode):
    """A file with non-ASCII text is searched as decoded text (case and
    typographic quotes folded) and relocation still works."""
    lines = [f"ligne {n} – café crème" for n in range(1, 700)]
    lines[599] = "Le “Dernier” Mot"
    (tmp_path / "fr.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (v,) = verify_citations(tmp_path, [cite("fr.md", 20, 20, 'le "dernier" mot')])
    assert (v.status, v.line_start) == ("relocated", 600)


def test_digest_of_bytes_read_matches(tmp_path, mode):
    """The SHA-256 taken from the bytes read for the search is the file's."""
    rng = random.Random(5)
    body = "\n".join(" ".join(str(rng.random()) for _ in range(8)) for _ in range(3000)) + "\n"
    (tmp_path / "n.txt").write_text(body, encoding="utf-8")
    (v,) = verify_citations(tmp_path, [cite("n.txt", 3, 3, body.splitlines()[2])])
    assert v.status == "verified"
    assert v.file_sha256 == hashlib.sha256(body.encode()).hexdigest()


def test_nearer_tall_occurrence_wins(tmp_path, mode):
    """A tall excerpt 47 lines below the citation and another 49 lines above:
    the nearer (below) wins, whole or streamed."""
    excerpt_lines = [f"tall excerpt line {k} of six" for k in range(6)]
    lines = [f"filler {n}" for n in range(1, 401)]
    cited = 200
    for top in (cited - 49, cited + 47):
        lines[top - 1 : top - 1 + 6] = excerpt_lines
    (tmp_path / "t.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (v,) = verify_citations(tmp_path, [cite("t.md", cited, cited, " ".join(excerpt_lines))])
    assert (v.status, v.line_start, v.line_end) == ("relocated", cited + 47, cited + 52)


def test_cited_past_the_end_still_searched(tmp_path, mode):
    """Lines past the end of the file, with an excerpt that is in it: the
    excerpt is found (relocated), whole or streamed."""
    lines = [f"row {n:05d} of padding text" for n in range(1, 2001)]
    lines[99] = "the lost sentence"
    (tmp_path / "p.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (moved, gone) = verify_citations(
        tmp_path,
        [cite("p.txt", 5000, 5001, "The lost sentence"), cite("p.txt", 5000, 5000, "absent words")],
    )
    assert (moved.status, moved.line_start, moved.original_line_start) == ("relocated", 100, 5000)
    assert gone.status == "line_out_of_range"


def test_streamed_re_read_after_bom_and_in_latin1(tmp_path, mode):
    """Chunks read again for a late miss start at the right byte after a
    UTF-8 BOM, and a file that is not UTF-8 is still searched (as Latin-1)."""
    lines = [f"row {n:05d} of padding text" for n in range(1, 2001)]
    lines[199] = "early words here"  # in the second chunk: read again from disk
    text = "\n".join(lines) + "\n"
    (tmp_path / "bom.txt").write_bytes(b"\xef\xbb\xbf" + text.encode())
    (tmp_path / "l1.txt").write_bytes(text.replace("padding", "caf\xe9").encode("latin-1"))
    results = verify_citations(
        tmp_path,
        [cite("bom.txt", 1990, 1990, "early words here"), cite("l1.txt", 1990, 1990, "Early words here")],
    )
    assert [(r.status, r.line_start) for r in results] == [("relocated", 200), ("relocated", 200)]
