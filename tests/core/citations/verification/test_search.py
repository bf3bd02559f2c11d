"""The whole-file search (``search.search_any``) at the edges its fast paths
take: which lines an excerpt is found on, which occurrence comes first, and
the encoding a buffer is read with."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.citations.verification import search
from core.citations.verification.lines import LineIndex
from core.citations.verification.needle import make_needle
from core.citations.verification.search import search_any
from core.citations.verification.unjoined import Unjoined
from core.citations.verification.window import Window
from tests.core.citations.verification.conftest import SMALL


def _search(data: bytes, excerpt: str, *, first_only: bool = False, first_line: int = 1):
    (found,), encoding = search_any(
        data, LineIndex(data), first_line, [make_needle(excerpt)], [first_only], None
    )
    return found, encoding


def test_latin1_buffer_is_searched_as_decoded_text():
    """A buffer that is not UTF-8 is read as latin-1 and its excerpt found on its line."""
    data = "un café noir\nrien\nle café au lait\n".encode("latin-1")
    assert _search(data, "le café au lait") == ({(3, 3)}, "latin-1")


def test_first_occurrence_on_a_last_line_without_newline():
    """An excerpt that is the file's last line, with no newline after it, is
    found there when only its first occurrence is asked for."""
    data = b"alpha\nbeta gamma delta"
    assert _search(data, "beta gamma delta", first_only=True) == ({(2, 2)}, "utf-8")


def test_verbatim_text_inside_a_role_does_not_bound_the_search():
    """The excerpt's bytes inside a reST role (which renders without "cls:")
    are not the excerpt: its first occurrence is the plain one further down."""
    data = b":cls:`Page` text\nfiller\ncls:Page text\n"
    assert _search(data, "cls:`Page` text", first_only=True) == ({(3, 3)}, "utf-8")


def test_first_occurrence_starting_the_file_comes_before_a_verbatim_one():
    """An occurrence at the very start of the file (its emphasis keeps it from
    being verbatim) is the first, not the verbatim one far below it."""
    filler = b"".join(b"filler line number %d\n" % n for n in range(2, 60))
    data = b"alpha **beta** gamma\n" + filler + b"alpha beta gamma\n"
    assert _search(data, "alpha beta gamma", first_only=True) == ({(1, 1)}, "utf-8")


def test_first_occurrence_at_offset_0_found_through_its_rarest_word():
    """Every word of the excerpt is somewhere before its verbatim text, and its
    rarest word starts the file: the occurrence there is the first."""
    filler = b"".join(b"beta and gamma on line %d\n" % n for n in range(2, 200))
    data = b"alpha **beta** gamma\n" + filler + b"alpha beta gamma\n"
    assert _search(data, "alpha beta gamma", first_only=True) == ({(1, 1)}, "utf-8")


def test_elided_pieces_far_apart_are_found():
    """Two pieces elided with "..." and a thousand characters apart (within the
    allowed gap) are found together, from the first piece's line to the last's."""
    between = b"".join(b"some unrelated words on line %d\n" % n for n in range(2, 40))
    after = b"".join(b"more unrelated words on line %d\n" % n for n in range(40, 200))
    data = b"alpha beta\n" + between + b"gamma delta\n" + after
    assert _search(data, "alpha beta ... gamma delta") == ({(1, 40)}, "utf-8")


_PARTS = st.sampled_from(
    ["alpha", "beta", "Gamma", "déjà", "Straße", "strasse", "ﬁle", "file", "™", "tm", "İstanbul", "istanbul",
     "日本語", "😀", "\u00a0", " ", " ", "\n", "\n\n", "  - ", " ** ", " [x](https://a.b/c...d) ", "--", "²", "2"]
)  # fmt: skip
# Markup stands apart from words: glued to one ("alpha**beta"), the words it joins once
# normalised are in no raw text, which the search does not handle in ASCII text either.


@settings(max_examples=300, deadline=None)
@given(st.lists(_PARTS, min_size=1, max_size=60), st.data())
def test_non_ascii_utf8_is_searched_as_bytes_with_every_occurrence_the_whole_text_holds(parts, data):
    """UTF-8 text with accents, CJK, emoji and characters that spell a word only once
    normalised ("ß", "ﬁ", "™", "İ", "²"), searched as bytes around words and those characters,
    finds exactly the occurrences (as lines) that normalising the whole text finds."""
    text = "".join(parts)
    start = data.draw(st.integers(0, len(parts) - 1))
    excerpt = "".join(parts[start : data.draw(st.integers(start + 1, len(parts)))])
    needle = make_needle(excerpt)
    if needle is None or len(needle.pieces) > 1:
        return
    found, encoding = _search(text.encode("utf-8"), excerpt)
    assert found == set(Window.from_text(text, 1).occurrences(needle)), (text, excerpt)
    assert encoding == "utf-8"


_SMALL_PARTS = st.sampled_from(
    ["alpha", "beta", "Gamma", "déjà", "Straße", "strasse", "ﬁle", "file", "™", "tm", "İstanbul", "istanbul",
     "😀", "\u00a0", " ", "\n", "\r\n", "\n\n", "  - ", "1. ", " ** ", " `code` ", " [x](https://a.b/c...d) ",
     "--", " — ", "²", "2", "…"]
)  # fmt: skip


def _both_ways(monkeypatch, data: bytes, needles, first_only):
    """search_any as shipped (small buffers normalised whole) and through spans."""
    monkeypatch.setattr(search, "SMALL", SMALL)
    whole = search_any(data, LineIndex(data), 3, needles, first_only, None)
    monkeypatch.setattr(search, "SMALL", 0)
    spans = search_any(data, LineIndex(data), 3, needles, first_only, None)
    return whole, spans


@settings(max_examples=400, deadline=None)
@given(st.lists(_SMALL_PARTS, min_size=1, max_size=50), st.data())
def test_small_buffer_searched_whole_finds_what_the_spans_find(parts, data):
    """A buffer of at most ``SMALL`` bytes is normalised whole at once: for ASCII,
    UTF-8 with ligatures and other characters that spell words once normalised,
    Latin-1, CRLF line ends and excerpts elided with "...", it finds the same
    occurrences as the search around words and spans, and the same first one."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        text = "".join(parts)
        encoding = data.draw(st.sampled_from(["utf-8", "latin-1"]))
        try:
            raw = text.encode(encoding)
        except UnicodeEncodeError:
            raw = text.encode("utf-8")
        if len(raw) > SMALL:
            return
        excerpts = []
        for _ in range(data.draw(st.integers(1, 3))):
            start = data.draw(st.integers(0, len(parts) - 1))
            excerpt = "".join(parts[start : data.draw(st.integers(start + 1, len(parts)))])
            if data.draw(st.booleans()):  # elided: a second stretch after "..."
                later = data.draw(st.integers(start, len(parts) - 1))
                excerpt += " ... " + "".join(parts[later : later + 2])
            excerpts.append(excerpt)
        needles = [n for n in map(make_needle, excerpts) if n is not None]
        if not needles:
            return
        first_only = [data.draw(st.booleans()) for _ in needles]
        (whole, used), (spans, expected) = _both_ways(monkeypatch, raw, needles, first_only)
        assert used == expected
        for found, wanted, first in zip(whole, spans, first_only, strict=True):
            if first:  # only the first occurrence is asked for
                assert min(found, default=None) == min(wanted, default=None), (text, excerpts)
            else:
                assert found == wanted, (text, excerpts)


def test_small_buffer_takes_the_whole_text_path(monkeypatch):
    """The small-buffer path is the one taken: a buffer of ``SMALL`` bytes is
    searched without spans around its words (so a word glued to markup the
    normalisation drops is found); one byte over it, through the spans, the
    same line is found around the markup."""
    spans = []
    real = Unjoined.spans
    monkeypatch.setattr(Unjoined, "spans", lambda *args: spans.append(args) or real(*args))
    monkeypatch.setattr(search, "SMALL", SMALL)
    line = b"key = StashKey[str]()\n"
    data = line + b"x" * (SMALL - len(line) - 1) + b"\n"
    assert len(data) == SMALL
    assert _search(data, "key = StashKey[str]()")[0] == {(1, 1)}
    assert spans == []
    monkeypatch.setattr(search, "SMALL", SMALL - 1)
    assert _search(data, "key = StashKey[str]()")[0] == {(1, 1)}
    assert len(spans) == 1


class _Finds(bytes):
    """Bytes that note each word looked for in them."""

    def find(self, sub, *args) -> int:  # type: ignore[override]
        self.words.append(bytes(sub))
        return super().find(sub, *args)


def _finds(data: bytes) -> _Finds:
    made = _Finds(data)
    made.words = []
    return made


def test_a_word_found_once_anchors_the_search_at_once():
    """The first word of the excerpt with a single hit in the text anchors
    the search: no other word is looked for through the text."""
    low = _finds(b"alpha beta\nbeta gamma\nbeta delta\nbeta alpha\nepsilon\n")
    assert search._pick_anchor(low, [b"beta", b"gamma", b"epsilon"], len(low)) == (b"gamma", [16])
    assert b"epsilon" not in low.words


def test_a_word_found_once_still_finds_nothing_when_another_is_absent():
    """Anchored on a word found once, an excerpt whose other word is nowhere
    in the text is not found there."""
    text = b"".join(b"line %d of filler text\n" % n for n in range(200)) + b"the unique marker here\n"
    assert len(text) > SMALL
    assert _search(text, "the unique marker nowhere") == (set(), "utf-8")
    assert _search(text, "the unique marker here") == ({(201, 201)}, "utf-8")
