"""URL citations: the URL compared as a person would (paths ending in any
letter, URLs without a host), and a content item's files read for the
excerpt, never the private folder's, never past a symlink out of the
sandbox, at most ``MAX_CONTENT_FILES`` of them."""

from __future__ import annotations

import json
import os

import pytest

from core.citations.verification import verify_citations
from core.citations.verification.sources import normalize_url
from tests.core.citations.builders import file_citation

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
    monkeypatch.setattr("core.citations.verification.sources.MAX_CONTENT_FILES", 2)
    for name in ("a.md", "b.md"):
        (sandbox / CID / name).write_text("filler\n")
    (sandbox / CID / "c.md").write_text("The quick brown fox.\n")
    assert verify_url(sandbox, "quick brown fox").status == "excerpt_mismatch"
    (sandbox / CID / "a.md").unlink()
    assert verify_url(sandbox, "quick brown fox").status == "url_matched"


def test_a_malformed_manifest_entry_does_not_hide_the_others(sandbox):
    """A manifest entry whose source_url is not a string is skipped; the other items' URLs
    still match."""
    (sandbox / CID / "page.md").write_text("The quick brown fox.\n")
    manifest = {"bad": {"source_url": ["https://example.org/list"]}, CID: {"source_url": URL}}
    (sandbox / "_content_manifest.json").write_text(json.dumps(manifest))
    (v,) = verify_citations(
        sandbox, [file_citation(None, excerpt="quick brown fox", source_type="url", url=URL)]
    )
    assert (v.status, v.content_id) == ("url_matched", CID)


def test_a_url_mapped_to_no_content_id_is_not_a_content_item(sandbox):
    """An empty content id is no item (it would name the whole sandbox)."""
    (sandbox / CID / "page.md").write_text("The quick brown fox.\n")
    v = verify_url(sandbox, "quick brown fox", content_id="")
    assert (v.status, v.content_id) == ("unverifiable", None)


SHORT = "3f2a9c1e"
ITEM = f"{SHORT}-5b7d-4c21-9e8f-0a1b2c3d4e5f"


def test_short_id_counts_content_ids_given_without_a_folder(tmp_path):
    """The session's content ids count as known even before their folder exists: a short id
    two of them start with is ambiguous (left unresolved)."""
    (tmp_path / ITEM).mkdir()
    (tmp_path / ITEM / "notes.md").write_text("alpha\n")
    citation = file_citation(f"{SHORT}/notes.md", excerpt="alpha")
    (alone,) = verify_citations(tmp_path, [citation])
    (shared,) = verify_citations(tmp_path, [citation], content_ids=[f"{SHORT}-0000-4000-8000-000000000000"])
    assert (alone.status, alone.content_id) == ("verified", ITEM)
    assert shared.status == "missing_file"
    assert "matches 2 content items" in shared.detail


def test_only_folders_named_by_a_uuid_are_content_items(tmp_path):
    """A plain folder whose name looks like a short id is not a content item of its own."""
    (tmp_path / ITEM).mkdir()
    (tmp_path / ITEM / "notes.md").write_text("alpha\n")
    (tmp_path / SHORT).mkdir()
    (v,) = verify_citations(tmp_path, [file_citation(f"{SHORT}/notes.md", excerpt="alpha")])
    assert (v.status, v.resolved_path) == ("verified", f"{ITEM}/notes.md")
