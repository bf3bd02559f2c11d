"""Verification on real third-party files (Django's own source, copied into
a sandbox): the cited range is always the truth, and the detail says what
the state says."""

from __future__ import annotations

import shutil

import pytest

from core.citations.verification import verify_citations
from tests.core.citations.builders import file_citation, installed_file, line_of

CID = "5e1c0a2b-1111-4222-8333-444455556666"
PAGINATOR = f"{CID}/paginator.py"


@pytest.fixture
def sandbox(tmp_path):
    """A sandbox whose one content item holds Django's paginator.py."""
    (tmp_path / CID).mkdir()
    shutil.copy(installed_file("django", "core/paginator.py"), tmp_path / CID / "paginator.py")
    return tmp_path


@pytest.fixture
def lines(sandbox):
    return (sandbox / CID / "paginator.py").read_text(encoding="utf-8").splitlines()


def verify_one(root, citation):
    (result,) = verify_citations(root, [citation])
    return result


def test_one_line_off_is_relocated_not_verified(sandbox, lines):
    """An excerpt on line N cited as line N+1 is relocated to N (the cited
    line kept as the original), and the detail names both."""
    at = line_of(lines, "Validate the given 1-based page number.")
    v = verify_one(sandbox, file_citation(PAGINATOR, at + 1, at + 1, lines[at - 1].strip()))
    assert (v.status, v.line_start, v.line_end) == ("relocated", at, at)
    assert (v.original_line_start, v.original_line_end) == (at + 1, at + 1)
    assert f"not at the cited line {at + 1} but at line {at}" in v.detail
    assert "is at the cited" not in v.detail


def test_excerpt_inside_cited_lines_is_verified(sandbox, lines):
    """The whole excerpt inside the cited lines: verified, the range as cited."""
    at = line_of(lines, "Validate the given 1-based page number.")
    v = verify_one(sandbox, file_citation(PAGINATOR, at - 1, at + 1, lines[at - 1].strip()))
    assert (v.status, v.line_start, v.line_end) == ("verified", at - 1, at + 1)
    assert v.detail == f"The excerpt is at the cited lines {at - 1}-{at + 1}."


def test_excerpt_longer_than_its_range_gets_its_full_range(sandbox, lines):
    """A long excerpt (30 lines, over 1,000 characters) cited by its first
    three lines is not verified there: it gets the range of its full text."""
    start = line_of(lines, "def validate_number(self, number):")
    excerpt = "\n".join(lines[start - 1 : start + 29])
    assert len(excerpt) > 1000
    v = verify_one(sandbox, file_citation(PAGINATOR, start, start + 2, excerpt))
    assert (v.status, v.line_start, v.line_end) == ("relocated", start, start + 29)
    assert (v.original_line_start, v.original_line_end) == (start, start + 2)
    assert f"starts in the cited lines {start}-{start + 2} but runs on to line {start + 29}" in v.detail


def test_relocated_detail_counts_the_other_copy(sandbox, lines):
    """An excerpt written twice in the file goes to the nearer copy, and the
    detail says another copy exists and where."""
    first = line_of(lines, "def _get_page(self, *args, **kwargs):", 1)
    second = line_of(lines, "def _get_page(self, *args, **kwargs):", 2)
    v = verify_one(
        sandbox, file_citation(PAGINATOR, second + 3, second + 3, "def _get_page(self, *args, **kwargs):")
    )
    assert (v.status, v.line_start) == ("relocated", second)
    assert f"1 other copy is in the file, at line {first}." in v.detail


def test_relocated_detail_says_when_no_other_copy(sandbox, lines):
    """A unique excerpt, relocated: the detail says no other copy exists."""
    at = line_of(lines, "That page number is less than 1")
    v = verify_one(sandbox, file_citation(PAGINATOR, at + 40, at + 40, "That page number is less than 1"))
    assert (v.status, v.line_start) == ("relocated", at)
    assert v.detail.endswith("No other copy is in the file.")


def test_cited_past_the_end_detail_says_so(sandbox, lines):
    """Cited past the file's end but present: relocated, and the detail says
    the citation pointed past the end."""
    at = line_of(lines, "That page contains no results")
    v = verify_one(sandbox, file_citation(PAGINATOR, 9000, 9001, "That page contains no results"))
    assert (v.status, v.line_start, v.original_line_start) == ("relocated", at, 9000)
    assert f"past the end of the file ({len(lines)} lines)" in v.detail


OTHER = "9a8b7c6d-1111-4222-8333-444455556666"


@pytest.fixture
def deep(tmp_path):
    """Django's paginator.py deep inside a content item, as a cloned repository holds it."""
    folder = tmp_path / CID / "django" / "core"
    folder.mkdir(parents=True)
    shutil.copy(installed_file("django", "core/paginator.py"), folder / "paginator.py")
    return tmp_path


@pytest.mark.parametrize(
    "path", ["paginator.py", "core/paginator.py", f"{CID}/paginator.py", "./paginator.py"]
)
def test_partial_path_naming_one_file_resolves_to_it(deep, path):
    """A bare or partial path naming exactly one file in the sandbox is that
    file, checked as usual, and the detail says how the path was read."""
    lines = (deep / CID / "django/core/paginator.py").read_text(encoding="utf-8").splitlines()
    at = line_of(lines, "That page number is less than 1")
    v = verify_one(deep, file_citation(path, at, at, "That page number is less than 1"))
    assert (v.status, v.resolved_path, v.content_id) == ("verified", f"{CID}/django/core/paginator.py", CID)
    assert v.detail.startswith(
        f"The path {path.removeprefix('./')} names one file in the sandbox, {CID}/django/core/paginator.py."
    )


def test_partial_path_naming_two_files_is_ambiguous(deep):
    """Two files answer to the path: the citation is ambiguous, both are
    listed, and neither is read as if it were the one meant."""
    (deep / OTHER).mkdir()
    shutil.copy(deep / CID / "django/core/paginator.py", deep / OTHER / "paginator.py")
    v = verify_one(deep, file_citation("paginator.py", 10, 10, "That page number is less than 1"))
    assert v.status == "ambiguous"
    assert f"{CID}/django/core/paginator.py" in v.detail and f"{OTHER}/paginator.py" in v.detail
    assert "names 2 files" in v.detail and v.file_sha256 is None


def test_partial_path_naming_no_file_is_missing(deep):
    """A path that names no file in the sandbox is missing_file."""
    v = verify_one(deep, file_citation("db/paginator.py", 10, 10, "x"))
    assert v.status == "missing_file" and "not in the sandbox" in v.detail


def test_partial_path_never_leaves_the_sandbox(deep, tmp_path_factory):
    """A file that answers to the name through a symlink out of the sandbox
    is not a candidate: the one resolver refuses it."""
    outside = tmp_path_factory.mktemp("outside") / "secret.py"
    outside.write_text("top secret words\n")
    (deep / OTHER).mkdir()
    (deep / OTHER / "secret.py").symlink_to(outside)
    v = verify_one(deep, file_citation("secret.py", 1, 1, "top secret words"))
    assert v.status == "missing_file"
