"""Every reader of user content and of git's output runs in linear time on
hostile shapes, and keeps what it should.

As for engine output (tests/protocols/test_linear_time.py), growth is a ratio
between two input sizes measured in the same test (16x the input: about 16x the
time if linear, about 256x if quadratic), never absolute seconds."""

from __future__ import annotations

import io
import time

import pytest

from researchmind.ingest import IngestError, clean_filename, html_to_markdown
from researchmind.ingest.gitrepo import _PROGRESS, MAX_STDERR_LINE, stderr_lines
from researchmind.ingest.gitsource import classify
from researchmind.ingest.text import ingest_text

SMALL = 4_000
GROWTH = 16


def _git_progress(text: str) -> None:
    for line in stderr_lines(io.BytesIO(text.encode())):
        _PROGRESS.match(line)


def _classify(text: str) -> None:
    try:
        classify(text, allow_local=False)
    except IngestError:
        pass


SHAPES = {
    "git: one endless line": (_git_progress, lambda n: "x" * n),
    "git: remote and spaces": (_git_progress, lambda n: "remote:" + " " * n + "\n"),
    "git: a phase of spaces": (_git_progress, lambda n: "Receiving" + " " * n + "x\n"),
    "git: carriage returns": (_git_progress, lambda n: "Receiving objects:  1% (1/9)\r" * (n // 30)),
    "file name: separators": (clean_filename, lambda n: "/" * n + "a.txt"),
    "file name: unsafe characters": (clean_filename, lambda n: '"<>|' * (n // 4) + ".txt"),
    "file name: dots": (clean_filename, lambda n: "." * n),
    "repository address: colons": (_classify, lambda n: "a" + ":" * n),
    "repository address: scheme letters": (_classify, lambda n: "a" * n + "://x"),
    "web page: blank lines": (
        lambda html: html_to_markdown(html, base_url="https://example.org/"),
        lambda n: "<p>a</p>" + "<br>" * (n // 4) + "<p>b</p>",
    ),
}


def _seconds(read, text: str) -> float:
    best = float("inf")
    for _ in range(2):
        started = time.perf_counter()
        read(text)
        best = min(best, time.perf_counter() - started)
    return best


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_reading_grows_linearly(shape):
    """16x the input costs well under 16x4 the time for every hostile shape."""
    read, make = SHAPES[shape]
    small = _seconds(read, make(SMALL))
    large = _seconds(read, make(SMALL * GROWTH))
    # A floor of 1 ms keeps timer noise on tiny inputs from reading as growth.
    assert large / max(small, 0.001) < GROWTH * 4, (shape, small, large)


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
