"""What the verifier refuses to read, and what it says when a cited path names
no file, several files or a folder: symlinks into the private folder, named
pipes, ambiguous partial paths listed in full."""

from __future__ import annotations

import hashlib
import os

import pytest

from core.citations.verification import file_digest, verify_citations
from tests.core.citations.builders import file_citation

CID = "3f2a9c1e-5b7d-4c21-9e8f-0a1b2c3d4e5f"


@pytest.fixture
def sandbox(tmp_path):
    """One content item with a notes file, and the private folder beside it."""
    (tmp_path / CID).mkdir()
    (tmp_path / CID / "notes.md").write_text("alpha beta gamma\n", encoding="utf-8")
    (tmp_path / ".researchmind").mkdir()
    (tmp_path / ".researchmind" / "index.txt").write_text("secret index\n")
    return tmp_path


def verify_one(root, citation):
    (result,) = verify_citations(root, [citation])
    return result


def test_digest_of_a_file_is_its_sha256(sandbox):
    """The digest is SHA-256 of the file's bytes."""
    expected = hashlib.sha256(b"alpha beta gamma\n").hexdigest()
    assert file_digest(sandbox, f"{CID}/notes.md") == expected


def test_digest_refuses_a_symlink_into_the_private_folder(sandbox):
    """A content file that is a symlink to a private file is never hashed (its name is
    not private, its target is)."""
    os.symlink(sandbox / ".researchmind" / "index.txt", sandbox / CID / "sneaky.md")
    assert file_digest(sandbox, f"{CID}/sneaky.md") is None
    assert file_digest(sandbox, ".researchmind/index.txt") is None


def test_digest_refuses_a_symlink_to_the_private_folder_itself(sandbox):
    """A symlink naming the private folder is refused, not read as a folder."""
    os.symlink(sandbox / ".researchmind", sandbox / CID / "hidden")
    assert file_digest(sandbox, f"{CID}/hidden") is None
    assert file_digest(sandbox, f"{CID}/hidden/index.txt") is None


def test_digest_of_a_named_pipe_is_none(sandbox):
    """A named pipe is not a file: it is never opened (opening one would wait for a writer)."""
    os.mkfifo(sandbox / CID / "pipe")
    assert file_digest(sandbox, f"{CID}/pipe") is None


def test_digest_of_a_folder_or_missing_file_is_none(sandbox):
    """Only files have a digest."""
    assert file_digest(sandbox, CID) is None
    assert file_digest(sandbox, f"{CID}/absent.md") is None
    assert file_digest(sandbox, "../outside.md") is None


def _many(sandbox, count):
    for n in range(count):
        folder = sandbox / CID / f"part{n}"
        folder.mkdir()
        (folder / "setup.py").write_text("alpha beta gamma\n")


def test_ambiguous_path_lists_every_candidate_up_to_five(sandbox):
    """Two files ending with the cited path: both named, joined by a comma, nothing more."""
    _many(sandbox, 2)
    v = verify_one(sandbox, file_citation("setup.py", excerpt="alpha"))
    assert v.status == "ambiguous"
    assert v.detail == (
        f"The path setup.py names 2 files in the sandbox: {CID}/part0/setup.py, {CID}/part1/setup.py."
    )


def test_ambiguous_path_with_exactly_five_candidates_says_no_more(sandbox):
    """Five candidates are all listed, with no "and 0 more"."""
    _many(sandbox, 5)
    v = verify_one(sandbox, file_citation("setup.py", excerpt="alpha"))
    assert v.detail.endswith(f"{CID}/part4/setup.py.")
    assert "more" not in v.detail


def test_ambiguous_path_with_seven_candidates_counts_the_rest(sandbox):
    """Past five candidates, the first five are listed and the rest counted."""
    _many(sandbox, 7)
    v = verify_one(sandbox, file_citation("setup.py", excerpt="alpha"))
    assert v.detail.startswith("The path setup.py names 7 files in the sandbox: ")
    assert v.detail.endswith(f"{CID}/part4/setup.py and 2 more.")
    assert f"{CID}/part5/setup.py" not in v.detail


OTHER = "7d4e8f01-aaaa-4bbb-8ccc-000000000001"


def test_partial_path_ignores_folders_not_named_as_content_items(sandbox):
    """Only content-item folders (named by a UUID) are looked through for a bare file name."""
    (sandbox / CID / "setup.py").write_text("alpha\n")
    (sandbox / "scratch").mkdir()
    (sandbox / "scratch" / "setup.py").write_text("alpha\n")
    v = verify_one(sandbox, file_citation("setup.py", excerpt="alpha"))
    assert (v.status, v.resolved_path) == ("verified", f"{CID}/setup.py")


@pytest.mark.parametrize("path", ["part0//setup.py", "part0/./setup.py"])
def test_partial_path_with_empty_or_dot_components(sandbox, path):
    """``a//b`` and ``a/./b`` name the same file as ``a/b``."""
    _many(sandbox, 1)
    v = verify_one(sandbox, file_citation(path, excerpt="alpha"))
    assert (v.status, v.resolved_path) == ("verified", f"{CID}/part0/setup.py")


def test_partial_path_inside_a_named_item_skips_other_items(sandbox):
    """``<id>/setup.py`` looks only inside that item, even when another item's file comes first."""
    (sandbox / CID / "setup.py").write_text("alpha\n")
    (sandbox / OTHER / "deep").mkdir(parents=True)
    (sandbox / OTHER / "deep" / "setup.py").write_text("beta\n")
    v = verify_one(sandbox, file_citation(f"{OTHER}/setup.py", excerpt="beta"))
    assert (v.status, v.resolved_path) == ("verified", f"{OTHER}/deep/setup.py")


def test_partial_path_skips_a_candidate_leading_outside(sandbox, tmp_path_factory):
    """A candidate that is a symlink out of the sandbox is passed over; the real file is found."""
    outside = tmp_path_factory.mktemp("outside") / "setup.py"
    outside.write_text("alpha\n")
    (sandbox / CID / "a").mkdir()
    os.symlink(outside, sandbox / CID / "a" / "setup.py")
    _many(sandbox, 1)
    v = verify_one(sandbox, file_citation("setup.py", excerpt="alpha"))
    assert (v.status, v.resolved_path) == ("verified", f"{CID}/part0/setup.py")


def test_partial_path_never_resolves_into_the_private_folder(sandbox):
    """A candidate that is a symlink to a private file is not a candidate: the path is missing."""
    (sandbox / CID / "x").mkdir()
    os.symlink(sandbox / ".researchmind" / "index.txt", sandbox / CID / "x" / "notes.txt")
    v = verify_one(sandbox, file_citation("notes.txt", excerpt="secret index"))
    assert v.status == "missing_file"
    assert v.file_sha256 is None


def test_partial_path_skips_a_broken_symlink(sandbox):
    """A broken symlink of the cited name is not a file: the one real file is found."""
    (sandbox / CID / "a").mkdir()
    os.symlink(sandbox / CID / "nowhere.py", sandbox / CID / "a" / "setup.py")
    _many(sandbox, 1)
    v = verify_one(sandbox, file_citation("setup.py", excerpt="alpha"))
    assert (v.status, v.resolved_path) == ("verified", f"{CID}/part0/setup.py")


def test_partial_paths_are_looked_for_among_a_bounded_number_of_files(sandbox, monkeypatch):
    """The sandbox is indexed by name up to ``MAX_FILES`` files (in sorted order), no further."""
    monkeypatch.setattr("core.citations.verification.paths.MAX_FILES", 3)
    for n in range(1, 6):
        (sandbox / CID / f"f{n}.txt").write_text("alpha\n")
    (sandbox / CID / "notes.md").unlink()
    statuses = [verify_one(sandbox, file_citation(f"f{n}.txt", excerpt="alpha")).status for n in range(1, 6)]
    assert statuses == ["verified", "verified", "verified", "missing_file", "missing_file"]
