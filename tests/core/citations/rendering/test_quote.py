"""A quote is shown with its file's characters, its markup cleaned as the page
converter cleans a page, and its lines kept."""

from __future__ import annotations

import pytest

from core.citations.rendering.quote import clean_quote


def test_an_html_quote_loses_its_tags_and_keeps_its_characters():
    """An uploaded page quoted with its tags read "<p>Run <code>…": the reader sees
    the text, and "&lt;" is the "<" it stands for, never the entity."""
    quoted = "<p>Convert it with <code>yq -y . &lt; in.json</code> first.</p>"
    assert clean_quote(quoted, "item/docs/yq.html") == "Convert it with yq -y . < in.json first."


def test_an_html_list_keeps_one_line_per_item():
    quoted = "<ul>\n  <li>first &amp; foremost</li>\n  <li>second</li>\n</ul>"
    assert clean_quote(quoted, "page.htm").splitlines() == ["- first & foremost", "- second"]


def test_markdown_marks_go_and_its_lines_stay():
    quoted = "## Options\n\n- **`--jobs`**: run [that many](https://example.org) jobs &ndash; *default* 4\n- `--quiet`"
    assert (
        clean_quote(quoted, "README.md") == "Options\n\n- --jobs: run that many jobs – default 4\n- --quiet"
    )


def test_rest_roles_literals_and_targets_read_as_their_text():
    quoted = (
        "Usage\n=====\n\nSee :func:`~pkg.run` and :ref:`the guide <guide>`; "
        "set ``max_age`` as `documented <https://example.org>`_::"
    )
    assert clean_quote(quoted, "docs/usage.rst") == (
        "Usage\n\nSee pkg.run and the guide; set max_age as documented:"
    )


def test_fenced_code_in_markdown_is_left_as_written():
    quoted = "Run:\n\n```sh\nyq -y . < in.json > out.yaml  # **not** bold\n```"
    assert clean_quote(quoted, "notes.md") == "Run:\n\nyq -y . < in.json > out.yaml  # **not** bold"


@pytest.mark.parametrize("path", ["settings.py", "nginx.conf", "notes.txt", "table.csv", ""])
def test_code_config_and_plain_text_are_shown_exactly_as_in_the_file(path):
    quoted = "  value = a < b and c > d  # `x` &lt; *y*\n\tnext: line"
    assert clean_quote(quoted, path) == quoted
