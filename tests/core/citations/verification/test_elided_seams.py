"""An excerpt elided with many "..." gaps (each up to MAX_GAP characters) spans far more than
one line or a few kilobytes: it is found wherever it is, whole files searched or streamed,
including across the seam between two streamed chunks, however long the span."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest

from core.citations.verification import read, verify_citations
from core.citations.verification.normalize import MAX_GAP, normalize_text
from tests.core.citations.builders import file_citation

CID = "0b1e7a52-3f5c-4c1e-9a53-0d7c2e9f4a10"
REL = f"{CID}/site-packages.py"


def _real_text(size: int) -> bytes:
    """Installed Python sources, one after another, until ``size`` bytes."""
    purelib = Path(sysconfig.get_paths()["purelib"])
    parts, total = [], 0
    others = [p for p in sorted(purelib.glob("*/**/*.py")) if p.relative_to(purelib).parts[0] != "django"]
    for path in sorted((purelib / "django").rglob("*.py")) + others:
        data = path.read_bytes()
        if b"\r" in data:
            continue
        parts.append(data if data.endswith(b"\n") else data + b"\n")
        total += len(parts[-1])
        if total >= size:
            return b"".join(parts)
    pytest.skip("not enough installed sources")


def _elided(body: bytes, start: int, stop: int) -> tuple[str, int, int]:
    """An excerpt of the lines from offset ``start`` past offset ``stop``: one line about every
    1,500 normalised characters, joined with "…" (its gaps stay under ``MAX_GAP``), each line
    new to the text before it (so it is found where it was taken); with the lines of its
    first and last piece."""
    pieces, first, seen = [], None, ""
    line = body.count(b"\n", 0, start) + 1
    since, at = 0, start
    while True:
        end = body.index(b"\n", at)
        text = body[at:end].decode("utf-8")
        norm = normalize_text(text)
        fresh = len(norm) >= 30 and "..." not in text and "…" not in text and norm not in seen
        if since >= 1500 and fresh:
            assert since < MAX_GAP - 200
            pieces.append(text.strip())
            first = first or line
            last, since = line, 0
            if at > stop:
                return " … ".join(pieces), first, last
        elif norm:
            since += len(norm) + 1
        seen += " " + norm
        at, line = end + 1, line + 1


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """17 MB of real source, streamed in 4 MB chunks; an elided excerpt from 100 KB before the
    first seam to past it."""
    root = tmp_path_factory.mktemp("sandbox")
    body = _real_text(17 * 1024 * 1024)
    (root / CID).mkdir()
    (root / REL).write_bytes(body)
    seam = body.rfind(b"\n", 0, read.CHUNK) + 1
    start = body.index(b"\n", seam - 100 * 1024) + 1
    excerpt, first, last = _elided(body, start, seam + 2000)
    return root, body, seam, excerpt, first, last


def test_an_elided_excerpt_across_a_streamed_seam_is_found(big) -> None:
    """Cited at the wrong lines, an excerpt of some seventy pieces running from 100 KB before
    the first 4 MB seam to after it (a span beyond the 64 KB overlap) is relocated to its
    lines in a 17 MB file streamed at the real sizes, as when the file is read whole."""
    root, body, seam, excerpt, first, last = big
    assert len(body) >= read.WHOLE and excerpt.count("…") >= 40
    seam_line = body.count(b"\n", 0, seam) + 1
    assert first < seam_line <= last
    assert len(body[body.index(excerpt.split(" … ")[0].encode()) : seam]) > read.OVERLAP
    cite = [file_citation(REL, 1, 1, excerpt)]
    (streamed,) = verify_citations(root, cite)
    assert streamed.status == "relocated"
    assert (streamed.line_start, streamed.line_end) == (first, last)
    assert streamed.detail.endswith("No other copy is in the file.")


def test_an_elided_excerpt_is_found_in_small_chunks_and_read_whole(big, monkeypatch) -> None:
    """The same excerpt, the file streamed in chunks far smaller than its span (so it runs over
    dozens of seams) or read whole: the same relocation each time."""
    root, body, _, excerpt, first, last = big
    small = root.parent / (root.name + "-small")
    (small / CID).mkdir(parents=True)
    lines = body.splitlines(keepends=True)
    (small / REL).write_bytes(b"".join(lines[first - 201 : last + 200]))
    cite = [file_citation(REL, 1, 1, excerpt)]
    (whole,) = verify_citations(small, cite)
    assert whole.status == "relocated" and (whole.line_start, whole.line_end) == (201, 200 + last - first + 1)
    monkeypatch.setattr(read, "WHOLE", 4096)
    monkeypatch.setattr(read, "CHUNK", 4096)
    monkeypatch.setattr(read, "OVERLAP", 512)
    assert verify_citations(small, cite) == [whole]
