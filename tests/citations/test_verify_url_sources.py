"""URL citations: the URL compared as a person would (paths ending in any
letter, URLs without a host), and a content item's files read for the
excerpt, never the private folder's, never past a symlink out of the
sandbox, at most ``MAX_CONTENT_FILES`` of them."""

from __future__ import annotations

import os

import pytest

from citations.verification import verify_citations
from citations.verification.sources import normalize_url
from tests.citations.builders import file_citation

CID = "0b7c8a52-1b2e-4b9f-8c1a-2f3e4d5c6b7a"
URL = "https://example.org/page"


@pytest.mark.parametrize(
    ("url", "normal"),
    [
        ("https://example.org/BOX", "https://example.org/BOX"),
        ("https://example.org/TAX/", "https://example.org/TAX"),
        ("<https://example.org/X>", "https://example.org/X"),
        ("mailto:Someone@Example.org", "mailto:Someone@Example.org"),
        ("urn:isbn:0451450523", "urn:isbn:0451450523"),
    ],
)
def test_url_text_is_kept_but_for_what_does_not_matter(url, normal):
    """Only angle brackets and one trailing slash go; the path keeps every letter (an X
    too), and a URL without a host gets none."""
    assert normalize_url(url) == normal


@pytest.fixture
def sandbox(tmp_path):
    (tmp_path / CID).mkdir()
    (tmp_path / ".researchmind").mkdir()
    (tmp_path / ".researchmind" / "index.txt").write_text("secret index words\n")
    return tmp_path


def verify_url(root, excerpt, content_id=CID):
    (result,) = verify_citations(
        root,
        [file_citation(None, excerpt=excerpt, source_type="url", url=URL)],
        url_to_content={URL: content_id},
        content_ids=[CID],
    )
    return result


def test_url_excerpt_found_in_the_items_file(sandbox):
    """The excerpt is looked for in the item's files; the match names file and lines."""
    (sandbox / CID / "page.md").write_text("intro\nThe quick brown fox.\n")
    v = verify_url(sandbox, "quick brown fox")
    assert (v.status, v.resolved_path, v.line_start, v.content_id) == (
        "url_matched",
        f"{CID}/page.md",
        2,
        CID,
    )


def test_url_items_symlink_into_private_folder_is_not_read(sandbox):
    """A file of the item that is a symlink to a private file is not one of its files."""
    (sandbox / CID / "page.md").write_text("public text\n")
    os.symlink(sandbox / ".researchmind" / "index.txt", sandbox / CID / "sneaky.md")
    v = verify_url(sandbox, "secret index words")
    assert v.status == "excerpt_mismatch"
    assert v.resolved_path is None


def test_url_mapped_to_a_path_through_the_private_folder_is_not_read(sandbox):
    """A content id leading through the private folder (a symlink there to a real item) names
    no readable files: the private folder is never a content item, however it is reached."""
    (sandbox / CID / "page.md").write_text("The quick brown fox.\n")
    (sandbox / ".researchmind" / "a").mkdir()
    os.symlink(sandbox / CID, sandbox / ".researchmind" / "a" / "link")
    v = verify_url(sandbox, "quick brown fox", content_id=".researchmind/a/link")
    assert v.status == "excerpt_mismatch"
    assert v.detail == "The URL's content item has no readable files."


def test_url_item_file_leading_outside_is_skipped_not_the_end(sandbox, tmp_path_factory):
    """A symlink out of the sandbox is skipped; the item's later files are still read."""
    outside = tmp_path_factory.mktemp("outside") / "other.md"
    outside.write_text("nothing here\n")
    os.symlink(outside, sandbox / CID / "a_link.md")
    (sandbox / CID / "b_page.md").write_text("The quick brown fox.\n")
    v = verify_url(sandbox, "quick brown fox")
    assert (v.status, v.resolved_path) == ("url_matched", f"{CID}/b_page.md")


def test_url_item_files_read_up_to_the_limit(sandbox, monkeypatch):
    """At most ``MAX_CONTENT_FILES`` of an item's files (in sorted order) are read."""
    monkeypatch.setattr("citations.verification.sources.MAX_CONTENT_FILES", 2)
    for name in ("a.md", "b.md"):
        (sandbox / CID / name).write_text("filler\n")
    (sandbox / CID / "c.md").write_text("The quick brown fox.\n")
    assert verify_url(sandbox, "quick brown fox").status == "excerpt_mismatch"
    (sandbox / CID / "a.md").unlink()
    assert verify_url(sandbox, "quick brown fox").status == "url_matched"
