"""The URLs of an answer's citations, built from one reverse per route, are
those ``reverse`` gives for each citation."""

from __future__ import annotations

import uuid

import pytest
from django.urls import NoReverseMatch, reverse, set_script_prefix

from citations.presenters import Links

SESSION, ITEM = uuid.uuid4(), uuid.uuid4()


@pytest.mark.parametrize(
    "path",
    [
        "notes.md",
        "docs/a b/ça va?.md",
        "100%/x#y.txt",
        "a//b/~user:1@host;v=2,3&4+5!$'()*.rst",
        "über/日本語/file name.md",
        "trailing/slash/",
        'quo"te<>/back\\slash\t.md',
    ],
)
def test_viewer_url_is_reverses(path):
    """Every character a path may hold is quoted as ``reverse`` quotes it."""
    links = Links()
    expected = reverse("file_viewer", args=[SESSION, ITEM, path])
    assert links.viewer(SESSION, ITEM, path) == expected
    assert links.viewer(SESSION, ITEM, path) == expected  # from the kept base


def test_viewer_url_of_a_path_no_route_matches_is_refused():
    """A path with a newline matches no route: refused as ``reverse`` refuses it."""
    with pytest.raises(NoReverseMatch):
        Links().viewer(SESSION, ITEM, "a\nb.md")


def test_viewer_urls_of_two_items_differ():
    """Each content item's URLs start with its own id."""
    links, other = Links(), uuid.uuid4()
    assert links.viewer(SESSION, ITEM, "a.md") == reverse("file_viewer", args=[SESSION, ITEM, "a.md"])
    assert links.viewer(SESSION, other, "a.md") == reverse("file_viewer", args=[SESSION, other, "a.md"])


@pytest.mark.parametrize("pk", [1, 7, 918273645, 10**12])
def test_feedback_url_is_reverses(pk):
    """The feedback form's URL of any citation, the mark's own number included."""
    links = Links()
    links.feedback(3)
    assert links.feedback(pk) == reverse("citation_feedback", args=[pk])


def test_urls_follow_the_script_prefix():
    """Served under a prefix, the URLs carry it as ``reverse`` does."""
    set_script_prefix("/rm/")
    try:
        links = Links()
        assert links.viewer(SESSION, ITEM, "a b.md") == reverse("file_viewer", args=[SESSION, ITEM, "a b.md"])
        assert links.viewer(SESSION, ITEM, "a b.md").startswith("/rm/")
        assert links.feedback(5) == reverse("citation_feedback", args=[5])
    finally:
        set_script_prefix("/")
