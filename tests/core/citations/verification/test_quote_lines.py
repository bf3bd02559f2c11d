"""read_lines: each span's lines of a sandbox file, as reading it a line at a time gives them."""

from __future__ import annotations

import pytest

from core.citations.verification import quote
from core.citations.verification.quote import MAX_LINE_CHARS, read_lines
from core.sandbox import SandboxResolver

FILES = {
    "trailing.txt": b"one\ntwo\nthree\n",
    "no-trailing.txt": b"one\ntwo\nthree",
    "crlf.txt": b"one\r\ntwo\r\n\r\nfour\r\n",
    "bom.txt": b"\xef\xbb\xbfone\ntwo\n",
    "broken.txt": b"caf\xc3\nna\xefve\n\xff\n",
    "empty.txt": b"",
    "blank-end.txt": b"one\n\n\n",
    "long.txt": b"x" * (MAX_LINE_CHARS + 5) + b"\nshort\n",
}
SPANS = [(1, 1), (2, 3), (1, 4), (3, 3), (4, 4), (5, 6), (0, 1), (3, 2)]


def line_at_a_time(path, spans) -> dict:
    """What read_lines gave before it read in blocks: the file's lines as iterating it yields them."""
    with open(path, "rb") as handle:
        lines = [raw.decode("utf-8", errors="replace").rstrip("\r\n")[:MAX_LINE_CHARS] for raw in handle]
    if lines:
        lines[0] = lines[0].removeprefix("\ufeff")
    return {(s, e): lines[s - 1 : e] for s, e in spans if 0 < s <= e <= len(lines)}


@pytest.fixture
def sandbox(tmp_path):
    for name, data in FILES.items():
        (tmp_path / name).write_bytes(data)
    return tmp_path


@pytest.mark.parametrize("name", FILES)
def test_each_span_is_the_lines_a_line_at_a_time_reading_gives(sandbox, name):
    assert read_lines(sandbox, name, SPANS) == line_at_a_time(sandbox / name, SPANS)


@pytest.mark.parametrize("name", FILES)
def test_lines_read_across_blocks_are_the_same(sandbox, name, monkeypatch):
    """A line cut by a block's end is joined again (blocks of 3 bytes here)."""
    monkeypatch.setattr(quote, "_READ_BLOCK", 3)
    assert read_lines(sandbox, name, SPANS) == line_at_a_time(sandbox / name, SPANS)


def test_a_resolver_gives_what_the_root_gives(sandbox):
    resolver = SandboxResolver(sandbox)
    for name in FILES:
        assert read_lines(resolver, name, SPANS) == read_lines(sandbox, name, SPANS)


def test_a_path_out_of_the_sandbox_or_missing_gives_nothing(sandbox):
    assert read_lines(SandboxResolver(sandbox), "../outside.txt", [(1, 1)]) == {}
    assert read_lines(sandbox, "missing.txt", [(1, 1)]) == {}
