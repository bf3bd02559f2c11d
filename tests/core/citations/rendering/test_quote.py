"""A quote is shown with its file's characters, its markup cleaned as the page
converter cleans a page, and its lines kept."""

from __future__ import annotations

import textwrap

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


MANUAL = (
    "              (HTTP) Set maximum number of redirections to follow. When -L,\n"
    "              --location is used, to prevent curl from following too many\n"
    "              redirects, by default, the limit is set to 50 redirects. Set"
)


def test_a_manual_page_paragraph_reads_as_one_paragraph_without_its_margin():
    """curl(1) as man renders it: 14 columns of margin and breaks at 80 columns,
    which a narrow column wrapped again into ragged halves."""
    assert clean_quote(MANUAL, "item/curl.1.txt") == (
        "(HTTP) Set maximum number of redirections to follow. When -L, --location is used, "
        "to prevent curl from following too many redirects, by default, the limit is set to 50 redirects. Set"
    )


def test_a_term_and_its_indented_description_stay_on_their_own_lines():
    quoted = (
        "       --post303\n"
        "              (HTTP) Tells curl to violate RFC 7231/6.4.4 and not convert POST\n"
        "              requests into GET requests when following 303 redirections. A"
    )
    assert clean_quote(quoted, "curl.1.txt").split("\n") == [
        "--post303",
        "       (HTTP) Tells curl to violate RFC 7231/6.4.4 and not convert POST requests into GET "
        "requests when following 303 redirections. A",
    ]


@pytest.mark.parametrize(
    "quoted",
    [
        # short lines: configuration, not a wrapped paragraph
        "port = 873\nmax connections = 4\nlog file = /var/log/rsyncd.log",
        # a table's rows, aligned in columns
        "       6      Could not resolve host. The given remote host could not be\n"
        "       7      Failed to connect to host. The connection was refused by the other side",
        # a list: each item starts its own line
        "The following suffixes can be used, each a unit of space on the disk of a machine:\n"
        "- b for 512-byte blocks, the default when no suffix is used at all here\n"
        "- c for bytes",
        # a line that ends well before the width: the next starts a new line on purpose
        "Short first line of words here.\n"
        "A second line that is much longer than the first one and reaches the width of the text.",
    ],
)
def test_lines_that_are_not_a_wrapped_paragraph_keep_their_breaks(quoted):
    """Only the margin all the lines share goes."""
    assert clean_quote(quoted, "notes.txt") == textwrap.dedent(quoted)


def test_markdown_soft_breaks_join_and_its_fenced_code_does_not():
    quoted = (
        "The worker pool size defaults to the number of CPUs on the machine that runs\n"
        "it, and can be changed with the --concurrency option given at start-up.\n"
        "```\n"
        "celery worker --concurrency=10 --loglevel=INFO --hostname=worker1@example.org\n"
        "celery worker --concurrency=20 --loglevel=INFO --hostname=worker2@example.org\n"
        "```"
    )
    assert clean_quote(quoted, "README.md").split("\n") == [
        "The worker pool size defaults to the number of CPUs on the machine that runs it, "
        "and can be changed with the --concurrency option given at start-up.",
        "celery worker --concurrency=10 --loglevel=INFO --hostname=worker1@example.org",
        "celery worker --concurrency=20 --loglevel=INFO --hostname=worker2@example.org",
    ]


def test_code_keeps_its_lines_and_loses_only_the_shared_margin():
    quoted = (
        "        def run(self):\n            return self.loop.run_until_complete(self.main(self.arguments))"
    )
    assert clean_quote(quoted, "pkg/app.py") == (
        "def run(self):\n    return self.loop.run_until_complete(self.main(self.arguments))"
    )
