"""Every reader of user content and of git's output runs in linear time on
hostile shapes, and keeps what it should.

Growth is a ratio between two input sizes measured in the same test (16x the
input: about 16x the work if linear, about 256x if quadratic), never seconds.
Work is measured where it happens (tests/growth.py): Python steps (lines,
loop turns, calls) counted, where the reader's loop is Python; this process's CPU time where the
scanning is inside C (the regex engine, ``str`` and ``bytes`` methods), which
no Python line shows. A reader doing both is held to both."""

from __future__ import annotations

import io

import pytest

from core.ingest import IngestError, clean_filename, html_to_markdown
from core.ingest.gitrepo import _PROGRESS, MAX_STDERR_LINE, stderr_lines
from core.ingest.gitsource import classify
from core.ingest.text import ingest_text
from tests.growth import GROWTH, LIMIT, cpu_growth, step_growth

SMALL = 4_000
# git's output is read in 4 KB chunks: enough of them that re-reading earlier ones would show.
SMALL_GIT = 64_000


def _git_progress(text: str) -> None:
    for line in stderr_lines(io.BytesIO(text.encode())):
        _PROGRESS.match(line)


def _classify(text: str) -> None:
    try:
        classify(text, allow_local=False)
    except IngestError:
        pass


def _web_page(html: str) -> None:
    html_to_markdown(html, base_url="https://example.org/")


# shape: (reader, input of size n, the smaller size, what the reader's work is measured in)
BOTH, IN_C = ("steps", "cpu"), ("cpu",)
SHAPES = {
    # A Python loop per 4 KB chunk and per line; splitting and the progress regex run in C.
    "git: one endless line": (_git_progress, lambda n: "x" * n, SMALL_GIT, BOTH),
    "git: remote and spaces": (_git_progress, lambda n: "remote:" + " " * n + "\n", SMALL_GIT, BOTH),
    "git: a phase of spaces": (_git_progress, lambda n: "Receiving" + " " * n + "x\n", SMALL_GIT, BOTH),
    "git: carriage returns": (
        _git_progress,
        lambda n: "Receiving objects:  1% (1/9)\r" * (n // 30),
        SMALL_GIT,
        BOTH,
    ),
    # A fixed number of Python steps whatever the name: normalising, splitting, regexes in C.
    "file name: separators": (clean_filename, lambda n: "/" * n + "a.txt", SMALL, IN_C),
    "file name: unsafe characters": (clean_filename, lambda n: '"<>|' * (n // 4) + ".txt", SMALL, IN_C),
    "file name: dots": (clean_filename, lambda n: "." * n, SMALL, IN_C),
    "repository address: colons": (_classify, lambda n: "a" + ":" * n, SMALL, IN_C),
    "repository address: scheme letters": (_classify, lambda n: "a" * n + "://x", SMALL, IN_C),
    # The HTML parser and the Markdown converter walk the tags in Python; text is joined in C.
    "web page: blank lines": (
        _web_page,
        lambda n: "<p>a</p>" + "<br>" * (n // 4) + "<p>b</p>",
        SMALL,
        BOTH,
    ),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_reading_grows_linearly(shape):
    """16x the input costs well under 16x4 the work for every hostile shape."""
    read, make, size, measures = SHAPES[shape]
    small, large = make(size), make(size * GROWTH)
    if "steps" in measures:
        growth = step_growth(read, small, large)
        assert growth < LIMIT, f"{shape}: {growth:.0f}x the Python steps for {GROWTH}x the input"
    if "cpu" in measures:
        growth = cpu_growth(read, small, large)
        assert growth < LIMIT, f"{shape}: {growth:.0f}x the CPU time for {GROWTH}x the input"


def test_git_stderr_lines_are_cut_not_lost():
    """An endless stderr line is cut to its head; the lines around it survive whole."""
    text = "Cloning into 'x'...\n" + "y" * 1_000_000 + "\rReceiving objects:  50% (1/2)\nfatal: done\n"
    lines = list(stderr_lines(io.BytesIO(text.encode())))
    assert lines[0] == "Cloning into 'x'..."
    assert lines[1] == "y" * MAX_STDERR_LINE
    assert lines[2:] == ["Receiving objects:  50% (1/2)", "fatal: done"]


def test_git_progress_after_remote_and_spaces():
    """`remote:` then spaces then a phase is still read as progress."""
    match = _PROGRESS.match("remote:     Counting objects: 100% (12/12)")
    assert (match["phase"], match["done"], match["total"]) == ("Counting objects", "12", "12")


def test_twenty_five_megabyte_line_is_kept(tmp_path):
    """A pasted text that is one 25 MB line is stored byte for byte."""
    line = "word " * 5_000_000
    dest = tmp_path / "item"
    ingest_text(dest, title="One line", markdown=line, staging_root=tmp_path / "staging")
    stored = [path for path in dest.rglob("*") if path.is_file()]
    assert len(stored) == 1
    assert line.strip() in stored[0].read_text()
