"""A faithful quote of text whose words, in the file, are far apart in raw bytes but close once
normalised (a long blank stretch between two lines of it, hard-wrapped lines indented deeply,
a long link target dropped from rendered text) is found wherever it is, with the range of
exactly its lines: read whole, as ASCII bytes or as decoded text, and streamed in chunks
whose seams fall inside it. The search around a word of the excerpt reaches as far as the
excerpt's length in normalised characters, not in raw bytes."""

from __future__ import annotations

import pytest

from core.citations.verification import read, verify_citations
from core.citations.verification.normalize import normalize_text
from tests.core.citations.builders import file_citation, installed_file, line_of

CID = "7d2f4c1e-5a6b-4c3d-8e9f-0a1b2c3d4e5f"
REL = f"{CID}/source.py"
BLANK = 4000  # blank lines: 4,000 bytes, far beyond the raw reach around a word (2 x length + 100)
INDENT = " " * 600


def _lines(module: str, relative: str) -> list[str]:
    return installed_file(module, relative).read_text(encoding="utf-8").splitlines(keepends=True)


def _quoted(lines: list[str]) -> str:
    """Lines quoted as a model writes them: joined by single spaces, the text as it is."""
    return " ".join("".join(lines).split())


def _blank_stretch(module: str, relative: str, first: str, last: str) -> tuple[str, str, int, int]:
    """The real file with ``BLANK`` blank lines inserted after the line holding ``first``, up
    to the line holding ``last``; an excerpt quoting those lines; and the lines it then runs
    over."""
    lines = _lines(module, relative)
    start, end = line_of(lines, first), line_of(lines, last)
    excerpt = _quoted(lines[start - 1 : end])
    body = lines[:start] + ["\n"] * BLANK + lines[start:]
    return "".join(body), excerpt, start, end + BLANK


def _deep_wrap(lines: list[str], first: str, last: str, indent: str) -> tuple[str, int, int]:
    """The file with the continuation lines of a paragraph re-indented by ``indent``."""
    start, end = line_of(lines, first), line_of(lines, last)
    for n in range(start, end):
        lines[n] = indent + lines[n].lstrip(" ")
    return "".join(lines), start, end


PARAGRAPH = ("This class exists to solve", "single name-value pairs.")


def _datastructures_wrapped() -> tuple[str, str, int, int]:
    """Django's MultiValueDict docstring, its hard-wrapped lines indented by 600 spaces."""
    lines = _lines("django", "utils/datastructures.py")
    excerpt = _quoted(lines[line_of(lines, PARAGRAPH[0]) - 1 : line_of(lines, PARAGRAPH[1])])
    body, start, end = _deep_wrap(lines, *PARAGRAPH, INDENT)
    return body, excerpt, start, end


def _rewrapped(module: str, relative: str, first: str, last: str) -> tuple[str, str, int, int]:
    """A real file's hard-wrapped paragraph, its continuation lines indented by 600 spaces."""
    lines = _lines(module, relative)
    excerpt = _quoted(lines[line_of(lines, first) - 1 : line_of(lines, last)])
    body, start, end = _deep_wrap(lines, first, last, INDENT)
    return body, excerpt, start, end


def _datastructures_link() -> tuple[str, str, int, int]:
    """The same paragraph with "every key", on its middle line, written as a Markdown link with
    a 1,100-byte target, quoted as rendered (the link's text only)."""
    lines = _lines("django", "utils/datastructures.py")
    at = line_of(lines, PARAGRAPH[0])
    excerpt = _quoted(lines[at - 1 : line_of(lines, PARAGRAPH[1])])
    target = "https://docs.python.org/3.10/library/cgi.html?" + "&".join(f"k{n}=v{n}" for n in range(150))
    assert "for every key" in lines[at]
    lines[at] = lines[at].replace("every key", f"[every key]({target})")
    body, start, end = _deep_wrap(lines, *PARAGRAPH, "    ")
    return body, excerpt, start, end


CASES = {
    # ASCII: searched as bytes.
    "blank lines, ASCII": lambda: _blank_stretch(
        "django",
        "utils/datastructures.py",
        "def getlist(self, key, default=None):",
        "Return the list of values",
    ),
    # "…" elsewhere in the file: decoded and searched as text.
    "blank lines, decoded": lambda: _blank_stretch(
        "django", "core/paginator.py", "def count(self):", "across all pages."
    ),
    "deeply indented wrapping": _datastructures_wrapped,
    "a long link target": _datastructures_link,
    # Files with no backtick or "](" (no markup folded by context), as bytes and as text.
    "deeply indented wrapping, no markup, ASCII": lambda: _rewrapped(
        "django", "middleware/common.py", "If APPEND_SLASH is set", "process the initial URL as usual."
    ),
    "deeply indented wrapping, no markup, decoded": lambda: _rewrapped(
        "django", "db/models/deletion.py", "Add 'objs' to the collection", "if the relation can be null."
    ),
    # Files large enough for the widened lines around a word to stay under a quarter of them
    # (past that, the whole file is normalised once instead).
    "blank lines, large file": lambda: _blank_stretch(
        "django", "db/models/query.py", "The queryset iterator protocol uses", "default case:"
    ),
    "blank lines, large file, decoded": lambda: _blank_stretch(
        "django", "db/models/fields/__init__.py", "Check if field name is valid", 'is not "pk".'
    ),
    "deeply indented wrapping, large file, no markup, ASCII": lambda: _rewrapped(
        "django", "forms/fields.py", "Return the value that should be shown", "data, if any."
    ),
    "deeply indented wrapping, large file, no markup, decoded": lambda: _rewrapped(
        "django", "db/migrations/autodetector.py", "Prepare field lists and a list", "field that uses it."
    ),
}


@pytest.fixture(params=list(CASES))
def case(request, tmp_path):
    body, excerpt, first, last = CASES[request.param]()
    (tmp_path / CID).mkdir()
    (tmp_path / REL).write_text(body, encoding="utf-8")
    return tmp_path, excerpt, first, last


def test_the_excerpt_is_far_apart_in_raw_bytes(case, request) -> None:
    """Each case's lines normalise to exactly the excerpt, and hold over twice the raw reach
    the search once had on each side of one of its words (twice its length, plus 100), so no
    word's reach covered them all; they run over three lines or more. The file is decoded (not
    ASCII) and free of markup folded by context exactly as the case's name says."""
    root, excerpt, first, last = case
    lines = (root / REL).read_text(encoding="utf-8").splitlines(keepends=True)
    assert normalize_text("".join(lines[first - 1 : last])) == normalize_text(excerpt)
    assert len("".join(lines[first - 1 : last]).encode()) > 2 * (2 * len(excerpt) + 100)
    assert last - first >= 2
    raw = (root / REL).read_bytes()
    assert ("no markup" in request.node.callspec.id) == (b"`" not in raw and b"](" not in raw)
    assert ("decoded" in request.node.callspec.id) == (not raw.isascii())


def test_cited_at_wrong_lines_it_is_relocated_to_exactly_its_lines(case) -> None:
    """Cited at line 1, the excerpt is relocated to the lines it runs over, no more, no fewer."""
    root, excerpt, first, last = case
    (result,) = verify_citations(root, [file_citation(REL, 1, 1, excerpt)])
    assert result.status == "relocated", result.detail
    assert (result.line_start, result.line_end) == (first, last)
    assert (result.original_line_start, result.original_line_end) == (1, 1)
    assert result.detail.endswith("No other copy is in the file.")


def test_cited_at_its_lines_it_is_verified_and_cited_short_it_is_relocated(case) -> None:
    """Cited at exactly its lines it is verified there; cited at its first lines only, it is
    relocated to its full range."""
    root, excerpt, first, last = case
    exact, short = verify_citations(
        root, [file_citation(REL, first, last, excerpt), file_citation(REL, first, first + 1, excerpt)]
    )
    assert exact.status == "verified" and (exact.line_start, exact.line_end) == (first, last)
    assert short.status == "relocated" and (short.line_start, short.line_end) == (first, last)


def test_cited_without_lines_it_is_found_at_its_lines(case) -> None:
    """Cited without lines, the excerpt is verified at the lines it runs over."""
    root, excerpt, first, last = case
    (result,) = verify_citations(root, [file_citation(REL, None, None, excerpt)])
    assert result.status == "verified", result.detail
    assert (result.line_start, result.line_end) == (first, last)


def test_streamed_with_a_seam_inside_it_the_same_answers(case, monkeypatch) -> None:
    """Streamed in chunks cut so that the first seam falls inside the excerpt's lines, every
    citation gets the answer it gets when the file is read whole."""
    root, excerpt, first, last = case
    cites = [
        file_citation(REL, 1, 1, excerpt),
        file_citation(REL, first, last, excerpt),
        file_citation(REL, first, first + 1, excerpt),
        file_citation(REL, None, None, excerpt),
    ]
    whole = verify_citations(root, cites)
    assert [(r.line_start, r.line_end) for r in whole] == [(first, last)] * 4
    body = (root / REL).read_bytes()
    starts = [0, *(n + 1 for n in range(len(body)) if body[n : n + 1] == b"\n")]
    chunk = starts[first] + 1  # the first chunk ends after the excerpt's first line
    assert starts[first - 1] < body.rfind(b"\n", 0, chunk) + 1 < starts[last] and len(body) > 2 * chunk
    monkeypatch.setattr(read, "WHOLE", 1024)
    monkeypatch.setattr(read, "CHUNK", chunk)
    monkeypatch.setattr(read, "OVERLAP", 512)
    assert verify_citations(root, cites) == whole


def test_the_first_copy_is_the_stretched_one_before_a_verbatim_copy(tmp_path) -> None:
    """Cited without lines, an excerpt whose first copy runs over a blank stretch and whose
    second copy is verbatim on one line later on is verified at the first copy."""
    body, excerpt, first, last = _blank_stretch(
        "django",
        "utils/datastructures.py",
        "def getlist(self, key, default=None):",
        "Return the list of values",
    )
    body += f"# {excerpt}\n"
    (tmp_path / CID).mkdir()
    (tmp_path / REL).write_text(body, encoding="utf-8")
    (result,) = verify_citations(tmp_path, [file_citation(REL, None, None, excerpt)])
    assert result.status == "verified"
    assert (result.line_start, result.line_end) == (first, last)


def test_a_changed_word_over_the_stretch_still_fails(case) -> None:
    """The wider search finds nothing that is not there: one word changed, the excerpt is a
    mismatch."""
    root, excerpt, _, _ = case
    words = excerpt.split(" ")
    changed = " ".join([*words[:-2], "zebra", *words[-1:]])
    (result,) = verify_citations(root, [file_citation(REL, 1, 1, changed)])
    assert result.status == "excerpt_mismatch"
