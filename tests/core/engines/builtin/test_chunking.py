"""Chunking computes each chunk's end from the text's blank, heading and fence
lines instead of visiting every line in Python; it must cut exactly where the
line-by-line reading it replaced cut (kept here as the reference), on real
installed documentation and code and on generated texts full of edge cases."""

from __future__ import annotations

import re
import sys
import sysconfig
from itertools import accumulate
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))

from core.engines.builtin.chunking import (
    _FENCE,
    MAX_CHUNK_CHARS,
    MAX_CHUNK_LINES,
    MIN_CHUNK_LINES,
    SECTION_SEPARATOR,
    Chunk,
    chunk_lines,
    is_source,
    section_of,
)

SITE = Path(sysconfig.get_paths()["purelib"])
MANUAL_HEADING = re.compile(r"( {0,3})([A-Z][A-Z0-9 /&-]{2,}[A-Z0-9])[ \t]*\r?")


def reference_chunks(text: str, headings: bool = True) -> list[Chunk]:
    """The line-by-line chunker, as it was before (``headings``: whether "#"
    lines, and a manual page's lines of capitals, may be headings; in a source
    file they are not)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lengths = list(accumulate(map(len, lines), initial=0))
    chunks: list[Chunk] = []
    heading = chunk_heading = document = None
    start = 0
    in_fence = False

    def close(end: int) -> None:
        body = "\n".join(lines[start:end])
        if body.strip():
            chunks.append(Chunk(start + 1, end, chunk_heading, body))

    manual = None
    for i, line in enumerate(lines):
        first = line[:1]
        caps = MANUAL_HEADING.fullmatch(line) if headings and not in_fence else None
        if caps:
            # a manual page's section heading ("EXIT CODES"), a subsection three columns in
            if caps.group(1):
                new_heading = f"{manual}{SECTION_SEPARATOR}{caps.group(2)}" if manual else caps.group(2)
            else:
                new_heading = manual = caps.group(2)
            if i > start:
                close(i)
                start = i
            heading = chunk_heading = new_heading
            continue
        if first and first in "`~ #":
            if first == "#":
                new_heading = None
                if not in_fence and headings:
                    new_heading, document = section_of(line, document)
                if new_heading is not None:
                    if i > start:
                        close(i)
                        start = i
                    heading = chunk_heading = new_heading
                    continue
            elif _FENCE.match(line):
                in_fence = not in_fence
        size = i - start
        if size >= MIN_CHUNK_LINES and not in_fence and not line.strip():
            close(i)
            start = i + 1
            chunk_heading = heading
        elif size >= MAX_CHUNK_LINES or lengths[i] - lengths[start] + size >= MAX_CHUNK_CHARS:
            close(i)
            start = i
            chunk_heading = heading
    if start < len(lines):
        close(len(lines))
    return chunks


def test_real_documentation_and_code_are_cut_as_before():
    files = [
        *sorted((SITE / "redis").rglob("*.py"))[:40],
        *sorted((SITE / "markdown").rglob("*.py")),
        *sorted(SITE.glob("*.dist-info/METADATA")),
        SITE / "django/conf/global_settings.py",
    ]
    checked = 0
    for path in files:
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        assert chunk_lines(text) == reference_chunks(text), path
        checked += 1
    assert checked > 50


LINES = st.sampled_from(
    [
        "",
        "   ",
        "\r",
        "\t \r",
        "text",
        "# Heading",
        "#  ",
        "#nospace",
        "## Sub #",
        "   # not a heading: indented",
        "```",
        "```python",
        "   ~~~",
        "    ```",
        "~~~~",
        "x" * 3000,
        "y" * 8100,
        "    indented code",
        "EXIT CODES",
        "   ACTIONS",
        "    NOT A HEADING: FOUR COLUMNS IN",
        "OK",
        "SEE ALSO \r",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(LINES, max_size=160), st.booleans(), st.booleans())
def test_generated_texts_are_cut_as_before(lines, final_newline, headings):
    text = "\n".join(lines) + ("\n" if final_newline else "")
    assert chunk_lines(text, headings=headings) == reference_chunks(text, headings)


def test_a_source_files_comment_lines_are_not_headings():
    """Hypothesis's files open with a licence comment: read as Markdown
    headings, it cut the file into one-line chunks and every chunk after it sat
    "under" the heading "obtain one at https://mozilla.org/MPL/2.0/."."""
    path = SITE / "hypothesis/extra/redis.py"
    if not path.is_file():
        return
    text = path.read_text(encoding="utf-8")
    chunks = chunk_lines(text, headings=not is_source(str(path)))
    assert chunks[0].line_start == 1 and chunks[0].line_end > 20
    assert all(c.heading is None for c in chunks)
    assert any(c.heading for c in chunk_lines(text))  # as a Markdown file it would have some


def test_a_long_fenced_block_and_a_heading_inside_it():
    text = "\n".join(["intro"] * 25 + ["```", "# in code", *(["code"] * 60), "```", "", "after"] + ["z"] * 30)
    assert chunk_lines(text) == reference_chunks(text)
    assert all(c.heading is None for c in chunk_lines(text))
