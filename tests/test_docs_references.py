"""Comments and docstrings point only at documents in the repository.

The formats the code parses and the facts about the real CLIs it relies on are
written down in docs/FORMATS.md and docs/CLAUDE_CODE.md. A comment that cites
a document outside the repository ("seed 002 PLAN-004", "SPEC §5",
"CLAUDE_CODE_FACTS §1.6", "shared/…") sends a maintainer to something they do
not have. Every ``docs/NAME.md`` a comment names must exist, and a reference
written "docs/NAME.md, <Heading>" (the heading ended by ")", ";", ",", ":" or
a full stop) must name a heading of that document. The source is read, never
imported."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("core", "researchmind", "citations", "progress", "testing")

OUTSIDE_REFERENCE = re.compile(
    r"\bseeds?[ -]?0\d\d"  # "seed 002", "seeds 000–002", "seed-000"
    r"|\bPLAN-0\d"
    r"|\bSPEC\s*§"
    r"|CLAUDE_CODE_FACTS"
    r"|(?<![\w.-])shared/",
    re.IGNORECASE,
)
DOC_REFERENCE = re.compile(r"\bdocs/([\w./-]+?\.md)\b")
HEADING_REFERENCE = re.compile(r"\bdocs/([\w./-]+?\.md),\s+([^)\n;,:]+?)\s*(?=[)\n;,:]|\.(?:\s|$)|$)")


def _sources() -> list[Path]:
    return sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))


def _comment_blocks(source: str) -> list[tuple[int, str]]:
    """Comments, runs of consecutive comment lines joined into one text."""
    blocks: list[tuple[int, str]] = []
    last_line = -2
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return blocks
    for token in tokens:
        if token.type != tokenize.COMMENT:
            continue
        text = token.string.lstrip("#").strip()
        line = token.start[0]
        if blocks and line == last_line + 1:
            blocks[-1] = (blocks[-1][0], f"{blocks[-1][1]} {text}")
        else:
            blocks.append((line, text))
        last_line = line
    return blocks


def _docstrings(source: str) -> list[tuple[int, str]]:
    tree = ast.parse(source)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                value = body[0].value.value
                if isinstance(value, str):
                    found.append((body[0].lineno, " ".join(value.split())))
    return found


@cache
def _texts() -> list[tuple[str, int, str]]:
    """(file, line, text) of every comment and docstring in the packages."""
    texts = []
    for path in _sources():
        source = path.read_text(encoding="utf-8")
        name = str(path.relative_to(ROOT))
        texts += [(name, line, text) for line, text in _comment_blocks(source) + _docstrings(source)]
    return texts


@cache
def _headings(document: str) -> frozenset[str]:
    """A document's headings, lower-cased; lines inside code fences are not headings."""
    lines = (ROOT / "docs" / document).read_text(encoding="utf-8").splitlines()
    fence = ""  # the open fence's marker; a fence closes on a bare run of at least as many
    headings = set()
    for line in lines:
        marker = re.match(r"^\s*(`{3,}|~{3,})(.*)$", line)
        if marker and not fence:
            fence = marker.group(1)
        elif marker and marker.group(1)[0] == fence[0] and len(marker.group(1)) >= len(fence):
            fence = "" if not marker.group(2).strip() else fence
        elif not fence and (match := re.match(r"^#{1,6}\s+(.+?)\s*#*\s*$", line)):
            headings.add(" ".join(match.group(1).split()).lower())
    return frozenset(headings)


def test_the_packages_have_comments_to_check():
    assert len(_texts()) > 500


def test_no_comment_points_outside_the_repository():
    outside = [
        f"{name}:{line}: {match.group(0)!r} in {text[:120]!r}"
        for name, line, text in _texts()
        if (match := OUTSIDE_REFERENCE.search(text))
    ]
    assert not outside, "Cite docs/ instead:\n" + "\n".join(outside)


def test_every_document_a_comment_names_exists():
    missing = [
        f"{name}:{line}: docs/{document}"
        for name, line, text in _texts()
        for document in DOC_REFERENCE.findall(text)
        if not (ROOT / "docs" / document).is_file()
    ]
    assert not missing, "No such document:\n" + "\n".join(missing)


def test_every_heading_a_comment_names_exists():
    wrong = [
        f"{name}:{line}: docs/{document}, {heading!r}"
        for name, line, text in _texts()
        for document, heading in HEADING_REFERENCE.findall(text)
        if (ROOT / "docs" / document).is_file()
        and " ".join(heading.split()).lower() not in _headings(document)
    ]
    assert not wrong, "No such heading:\n" + "\n".join(wrong)


@pytest.mark.parametrize(
    ("text", "outside"),
    [
        ("Form 1: the block (seed 000 §2.4).", True),
        ("Find every citation (SPEC §5, seeds 000–002).", True),
        ("Map one seed-000 object onto a citation.", True),
        ("The envelope of PLAN-004.", True),
        ("see shared/CLAUDE_CODE_FACTS.md §5", True),
        ("Bench data in ../shared/seeds", True),
        ("The CITATIONS block (docs/FORMATS.md, CITATIONS block).", False),
        ("testing/shared_doubles/ and seed 12345 of the generator", False),
    ],
)
def test_the_outside_reference_pattern(text, outside):
    assert bool(OUTSIDE_REFERENCE.search(text)) is outside


@pytest.mark.parametrize(
    ("text", "reference"),
    [
        ("(docs/FORMATS.md, CITATIONS block)", ("FORMATS.md", "CITATIONS block")),
        ("(docs/CLAUDE_CODE.md, Stream events; pitfall 9)", ("CLAUDE_CODE.md", "Stream events")),
        ("per docs/FORMATS.md, Aggregation, step 2.", ("FORMATS.md", "Aggregation")),
        ("docs/FORMATS.md, RESULT line: the grammar", ("FORMATS.md", "RESULT line")),
        ("its figures are in docs/BENCHMARKS.md.", None),
    ],
)
def test_the_heading_reference_pattern(text, reference):
    match = HEADING_REFERENCE.search(text)
    assert (match.groups() if match else None) == reference


def test_the_documents_comments_cite_have_their_headings():
    for document, heading in (
        ("FORMATS.md", "CITATIONS block"),
        ("FORMATS.md", "Structured Agent Result Protocol"),
        ("CLAUDE_CODE.md", "Pitfalls"),
        ("CLAUDE_CODE.md", "Stream events"),
    ):
        assert heading.lower() in _headings(document)
