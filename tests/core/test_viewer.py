"""The sandbox file viewer (core/viewer.py): windows, highlighting,
escaping and every refusal."""

from __future__ import annotations

import html as html_lib
import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.viewer import NOT_FOUND, ViewerError, open_window, raw_text


def make_sandbox(tmp_path: Path) -> Path:
    root = tmp_path / "sandbox"
    (root / "c0ffee00" / "docs").mkdir(parents=True)
    (root / ".researchmind").mkdir()
    return root


def write_lines(path: Path, count: int, template: str = "line {n}") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(template.format(n=n) + "\n" for n in range(1, count + 1)), encoding="utf-8")
    return path


def plain(fragment: str) -> str:
    """The text a browser shows for a line's HTML."""
    return html_lib.unescape(re.sub(r"<[^>]*>", "", fragment))


class Balance(HTMLParser):
    """Tracks open tags to check that a fragment is well-formed."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.ok = True

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack.append(tag)
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        self.ok = self.ok and bool(self.stack) and self.stack.pop() == tag


def assert_safe_line(fragment: str) -> None:
    parser = Balance()
    parser.feed(fragment)
    parser.close()
    assert parser.ok and parser.stack == [], fragment
    for tag, attrs in parser.tags:
        assert tag == "span" and set(attrs) <= {"class"}, (tag, attrs)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_sandbox(tmp_path)


def test_window_around_cited_range(root: Path) -> None:
    """A range opens with `context` lines either side, the range highlighted."""
    write_lines(root / "c0ffee00/notes.md", 1000)
    window = open_window(root, "c0ffee00/notes.md", line_start=500, line_end=505, context=10)
    assert (window.first, window.last, window.total_lines) == (490, 515, 1000)
    assert [line.number for line in window.lines if line.highlighted] == list(range(500, 506))
    assert (window.highlight_start, window.highlight_end) == (500, 505)
    assert window.has_before and window.has_after
    assert plain(window.lines[10].html) == "line 500"


def test_window_at_start_of_file(root: Path) -> None:
    """A range near the top starts at line 1 with nothing before."""
    write_lines(root / "c0ffee00/notes.md", 50)
    window = open_window(root, "c0ffee00/notes.md", line_start=2, line_end=3, context=5)
    assert (window.first, window.last, window.has_before, window.has_after) == (1, 8, False, True)


def test_window_without_range_shows_top(root: Path) -> None:
    """No range: the first 2 × context + 1 lines, nothing highlighted."""
    write_lines(root / "c0ffee00/notes.md", 50)
    window = open_window(root, "c0ffee00/notes.md", context=5)
    assert (window.first, window.last) == (1, 11)
    assert not any(line.highlighted for line in window.lines)


def test_first_line_pages_through_file(root: Path) -> None:
    """`first_line` opens the next page ("more") keeping the highlight."""
    write_lines(root / "c0ffee00/notes.md", 100)
    window = open_window(root, "c0ffee00/notes.md", line_start=12, line_end=12, context=5, first_line=15)
    assert (window.first, window.last) == (15, 25)
    assert window.highlight_start == 12 and not any(line.highlighted for line in window.lines)


def test_range_past_end_shows_end_without_highlight(root: Path) -> None:
    """A range beyond the last line shows the end of the file, unhighlighted."""
    write_lines(root / "c0ffee00/notes.md", 30)
    window = open_window(root, "c0ffee00/notes.md", line_start=90, line_end=95, context=5)
    assert (window.first, window.last, window.has_after) == (20, 30, False)
    assert window.highlight_start is None and not any(line.highlighted for line in window.lines)


def test_reversed_range_is_sorted(root: Path) -> None:
    """`line_end` before `line_start` is read as the same range."""
    write_lines(root / "c0ffee00/notes.md", 30)
    window = open_window(root, "c0ffee00/notes.md", line_start=12, line_end=10, context=0)
    assert [line.number for line in window.lines] == [10, 11, 12]


def test_unverified_range_is_centred_not_highlighted(root: Path) -> None:
    """`highlight=False` centres the window but highlights nothing."""
    write_lines(root / "c0ffee00/notes.md", 100)
    window = open_window(root, "c0ffee00/notes.md", line_start=50, line_end=51, context=3, highlight=False)
    assert (window.first, window.last) == (47, 54)
    assert window.highlight_start is None and not any(line.highlighted for line in window.lines)


def test_large_file_returns_only_window(root: Path) -> None:
    """A 100,000-line file yields only the window and its exact line count."""
    write_lines(root / "c0ffee00/big.py", 100_000, "x_{n} = {n}")
    window = open_window(root, "c0ffee00/big.py", line_start=50_000, line_end=50_009)
    assert len(window.lines) == 410
    assert window.total_lines == 100_000
    assert plain(window.lines[200].html) == "x_50000 = 50000"
    deep = open_window(root, "c0ffee00/big.py", line_start=99_990, line_end=99_999, context=5)
    assert [plain(line.html) for line in deep.lines][5] == "x_99990 = 99990"
    assert (deep.last, deep.has_after) == (100_000, False)


def test_count_stops_at_byte_budget(root: Path) -> None:
    """Past `max_bytes` the total is unknown (None) but the window is shown."""
    write_lines(root / "c0ffee00/big.txt", 10_000)
    window = open_window(root, "c0ffee00/big.txt", line_start=5, line_end=5, context=2, max_bytes=1000)
    assert window.total_lines is None and window.has_after
    assert [line.number for line in window.lines] == [3, 4, 5, 6, 7]


def test_range_beyond_byte_budget_is_refused(root: Path) -> None:
    """Lines deeper than `max_bytes` are refused with a clear reason."""
    write_lines(root / "c0ffee00/big.txt", 10_000)
    with pytest.raises(ViewerError) as error:
        open_window(root, "c0ffee00/big.txt", line_start=9000, context=2, max_bytes=1000)
    assert error.value.reason == "too_large"


def test_binary_file_is_refused(root: Path) -> None:
    """A NUL byte in the first 8 KB refuses the file as binary."""
    (root / "c0ffee00/image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    with pytest.raises(ViewerError) as error:
        open_window(root, "c0ffee00/image.png")
    assert error.value.reason == "binary" and "binary" in str(error.value)


@pytest.mark.parametrize(
    "path",
    [
        "../outside.txt",
        "c0ffee00/../../outside.txt",
        "/etc/passwd",
        "c0ffee00/missing.md",
        "c0ffee00/docs",
        ".researchmind/index.txt",
        "./.researchmind/index.txt",
        "c0ffee00/escape.txt",
        "c0ffee00/private-link.txt",
        "c0ffee00/dir-link/outside.txt",
        "c0ffee00\\..\\..\\outside.txt",
        "c0ffee00/%2e%2e/%2e%2e/outside.txt",
        "c0ffee00/\x00.md",
        "c0ffee00/fifo",
    ],
)
def test_refusals_are_one_generic_not_found(root: Path, path: str) -> None:
    """Outside, traversal, symlink escapes, private, missing, directories and
    FIFOs all give the same message, naming nothing."""
    outside = root.parent / "outside.txt"
    outside.write_text("secret\n")
    (root / ".researchmind/index.txt").write_text("private\n")
    (root / "c0ffee00/escape.txt").symlink_to(outside)
    (root / "c0ffee00/private-link.txt").symlink_to(root / ".researchmind/index.txt")
    (root / "c0ffee00/dir-link").symlink_to(root.parent)
    os.mkfifo(root / "c0ffee00/fifo")
    with pytest.raises(ViewerError) as error:
        open_window(root, path)
    assert str(error.value) == NOT_FOUND and error.value.reason == "not_found"
    with pytest.raises(ViewerError):
        raw_text(root, path)


def test_symlink_inside_sandbox_is_followed(root: Path) -> None:
    """A symlink to another file of the sandbox opens that file."""
    write_lines(root / "c0ffee00/real.md", 3)
    (root / "c0ffee00/alias.md").symlink_to(root / "c0ffee00/real.md")
    assert plain(open_window(root, "c0ffee00/alias.md").lines[0].html) == "line 1"


def test_utf8_bom_is_stripped(root: Path) -> None:
    """A UTF-8 BOM is not shown and does not shift the first line."""
    (root / "c0ffee00/bom.txt").write_bytes(b"\xef\xbb\xbfcaf\xc3\xa9\nsecond\n")
    window = open_window(root, "c0ffee00/bom.txt")
    assert [plain(line.html) for line in window.lines] == ["café", "second"]
    assert window.encoding == "utf-8-sig"


def test_latin1_fallback(root: Path) -> None:
    """Bytes that are not UTF-8 are read as latin-1."""
    (root / "c0ffee00/old.txt").write_bytes(b"caf\xe9\n")
    window = open_window(root, "c0ffee00/old.txt")
    assert plain(window.lines[0].html) == "café" and window.encoding == "latin-1"


def test_line_endings_keep_numbering(root: Path) -> None:
    """CRLF, a lone CR and a missing final newline do not shift numbers."""
    (root / "c0ffee00/crlf.txt").write_bytes(b"one\r\ntwo\rstill two\r\nthree")
    window = open_window(root, "c0ffee00/crlf.txt")
    assert [(line.number, plain(line.html)) for line in window.lines] == [
        (1, "one"),
        (2, "twostill two"),
        (3, "three"),
    ]
    assert window.total_lines == 3


def test_empty_file(root: Path) -> None:
    """An empty file opens with no lines."""
    (root / "c0ffee00/empty.md").write_bytes(b"")
    window = open_window(root, "c0ffee00/empty.md", line_start=1)
    assert (window.lines, window.total_lines, window.has_after) == ([], 0, False)


def test_overlong_line_is_truncated(root: Path) -> None:
    """A minified 1 MB line is cut for display and flagged; numbering holds."""
    (root / "c0ffee00/min.js").write_bytes(b"var a=1;" * 131072 + b"\nnext\n")
    window = open_window(root, "c0ffee00/min.js")
    assert window.lines[0].truncated and len(plain(window.lines[0].html)) <= 10_000
    assert (window.lines[1].number, plain(window.lines[1].html)) == (2, "next")


def test_language_from_filename(root: Path) -> None:
    """The lexer comes from the file name; unknown names are plain text."""
    write_lines(root / "c0ffee00/a.py", 1, "def f(): pass")
    write_lines(root / "c0ffee00/a.unknownext", 1)
    assert open_window(root, "c0ffee00/a.py").language == "Python"
    assert open_window(root, "c0ffee00/a.unknownext").language == "Text only"


def test_multiline_tokens_give_balanced_lines(root: Path) -> None:
    """A docstring spanning lines is split into well-formed per-line HTML."""
    source = 'def f():\n    """Doc\n    <b>more</b>\n    end"""\n    return "<x>"\n'
    (root / "c0ffee00/doc.py").write_text(source)
    window = open_window(root, "c0ffee00/doc.py", line_start=3, line_end=3, context=0)
    assert [line.number for line in window.lines] == [3]
    for line in open_window(root, "c0ffee00/doc.py").lines:
        assert_safe_line(line.html)
    assert plain(window.lines[0].html) == "    <b>more</b>"


HOSTILE = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    "</span><script>alert(1)</script><span>",
    '"><svg onload=alert(1)>',
    "<!-- <a href='javascript:alert(1)'>x</a> -->",
    "```\n<iframe src=javascript:alert(1)>\n```",
    "<div hx-get='/admin/' hx-trigger='load'>",
    "&lt;script&gt; &amp; &#x3c;",
]


@pytest.mark.parametrize("suffix", [".html", ".md", ".py", ".js", ".txt", ".unknownext", ".svg"])
def test_hostile_content_is_escaped(root: Path, suffix: str) -> None:
    """Markup in file content is shown as text by every lexer: each line is
    only balanced class-only spans and reads back exactly as written."""
    content = "\n".join(HOSTILE) + "\n"
    (root / f"c0ffee00/hostile{suffix}").write_text(content)
    window = open_window(root, f"c0ffee00/hostile{suffix}")
    for line in window.lines:
        assert_safe_line(line.html)
    assert [plain(line.html) for line in window.lines] == content.splitlines()


def test_hostile_file_name_is_harmless(root: Path) -> None:
    """A file name with markup opens; the name is returned as plain data."""
    name = "<img src=x onerror=alert(1)>.py"
    write_lines(root / "c0ffee00" / name, 2)
    window = open_window(root, f"c0ffee00/{name}")
    assert window.filename == name
    assert all("<img" not in line.html for line in window.lines)


def test_raw_text_returns_bytes_and_name(root: Path) -> None:
    """The download is the file's exact bytes and its name."""
    (root / "c0ffee00/docs/a.md").write_bytes(b"\xef\xbb\xbfhi\r\n")
    assert raw_text(root, "c0ffee00/docs/a.md") == (b"\xef\xbb\xbfhi\r\n", "a.md")


def test_raw_text_refuses_binary_and_large(root: Path) -> None:
    """Binary files and files over `max_bytes` are not downloadable."""
    (root / "c0ffee00/bin.dat").write_bytes(b"a\x00b")
    write_lines(root / "c0ffee00/big.txt", 100)
    with pytest.raises(ViewerError) as binary:
        raw_text(root, "c0ffee00/bin.dat")
    with pytest.raises(ViewerError) as large:
        raw_text(root, "c0ffee00/big.txt", max_bytes=10)
    assert (binary.value.reason, large.value.reason) == ("binary", "too_large")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lines=st.lists(
        st.text(
            alphabet=st.characters(blacklist_characters="\n\r\x00", blacklist_categories=["Cs"]), max_size=40
        ),
        max_size=30,
    ),
    suffix=st.sampled_from([".py", ".md", ".html", ".txt"]),
)
def test_any_text_reads_back_line_for_line(root: Path, lines: list[str], suffix: str) -> None:
    """Whatever the content, the window shows each line, numbered in order,
    as balanced escaped HTML whose text is the original line."""
    path = root / f"c0ffee00/prop{suffix}"
    path.write_bytes("".join(line + "\n" for line in lines).encode("utf-8"))
    window = open_window(root, f"c0ffee00/prop{suffix}", context=50)
    assert [line.number for line in window.lines] == list(range(1, len(lines) + 1))
    for rendered, original in zip(window.lines, lines, strict=True):
        assert_safe_line(rendered.html)
        # A leading U+FEFF on line 1 is a BOM in the file's bytes: not shown.
        expected = original.removeprefix("\ufeff") if rendered.number == 1 else original
        assert plain(rendered.html) == expected


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lines=st.lists(st.text(alphabet="ab \t<&é", max_size=12), min_size=1, max_size=40),
    final_newline=st.booleans(),
    start=st.integers(min_value=1, max_value=45),
    chunk=st.integers(min_value=1, max_value=16),
)
def test_skipping_across_chunk_boundaries(
    root: Path, monkeypatch: pytest.MonkeyPatch, lines: list[str], final_newline: bool, start: int, chunk: int
) -> None:
    """Whatever the chunk size, the window holds exactly the right lines and
    the total counts a last line without its newline."""
    import core.viewer as viewer

    monkeypatch.setattr(viewer, "_CHUNK", chunk)
    text = "\n".join(lines) + ("\n" if final_newline else "")
    (root / "c0ffee00/chunks.txt").write_bytes(text.encode("utf-8"))
    window = open_window(root, "c0ffee00/chunks.txt", line_start=start, line_end=start, context=2)
    total = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
    assert window.total_lines == total
    if total == 0:
        assert window.lines == []
        return
    expected_first = max(1, start - 2) if start <= total else max(1, total - 4)
    assert window.first == expected_first
    for rendered in window.lines:
        assert plain(rendered.html) == lines[rendered.number - 1]
    assert window.last == min(total, start + 2) if start <= total else window.last == total


def test_paging_bounds_for_more_links(root: Path) -> None:
    """`before_start`/`after_end` give the neighbouring pages, clipped to the file."""
    write_lines(root / "c0ffee00/notes.md", 100)
    window = open_window(root, "c0ffee00/notes.md", line_start=50, line_end=50, context=5)
    assert (window.before_start, window.first, window.last, window.after_end) == (34, 45, 55, 66)
    tail = open_window(root, "c0ffee00/notes.md", line_start=97, line_end=97, context=5)
    assert tail.after_end == 100
