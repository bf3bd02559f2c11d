"""The text words are looked for in (``unjoined.Unjoined``): lower-cased,
without the markup that may join two words, and mapped back to the raw
offsets exactly, from either end and across the blocks a large text is
made in."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.citations.verification import unjoined
from core.citations.verification.lines import LineIndex
from core.citations.verification.needle import make_needle
from core.citations.verification.search import search_any
from core.citations.verification.unjoined import JOINING, Unjoined

_PIECES = st.sampled_from(
    ["Alpha", "beta", "port", "a", "ble", "*", "**", "_", "`", "#", ">", "[", "]", "!", " ", "\n"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, min_size=1, max_size=80), st.sampled_from([2, 3, 7, 64]), st.data())
def test_every_kept_character_maps_back_to_its_raw_offset(pieces, block, data):
    """For every character of the text, ``raw_of`` gives the raw offset it
    came from and ``kept_before`` gives it back, whatever order the
    offsets are asked in and however small the blocks are."""
    raw = "".join(pieces).encode("ascii")
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(unjoined, "BLOCK", block)
        words = Unjoined(raw, len(raw))
        assert words.text == raw.lower().translate(None, JOINING)
        order = data.draw(st.permutations(range(len(words.text))))
        for offset in order:
            at = words.raw_of(offset)
            assert raw[at : at + 1].lower() == words.text[offset : offset + 1]
            assert words.kept_before(at) == offset
            assert words.kept_before(at + 1) == offset + 1


def test_a_text_cut_short_keeps_only_its_start():
    """Made from the first ``size`` characters only, as the search does for
    an excerpt bounded by its verbatim text."""
    words = Unjoined(b"Alpha_Beta gamma", 10)
    assert words.text == b"alphabeta"
    assert words.raw_of(5) == 6
    assert words.kept_before(10) == 9


def test_a_latin1_file_is_mapped_byte_for_character():
    """A Latin-1 file's bytes are its characters: its offsets are its text's."""
    raw = "café *noir*\nrien".encode("latin-1")
    words = Unjoined(raw, len(raw))
    assert words.text == "café noir\nrien".encode("latin-1")
    assert words.raw_of(5) == 6


def test_a_word_written_across_markup_in_a_late_block_is_found(monkeypatch):
    """In a text made of many blocks, a word written across markup far from
    its start is found on its line wherever the blocks' edges fall in it."""
    monkeypatch.setattr(unjoined, "BLOCK", 64)
    filler = b"".join(b"line %d of plain filler text\n" % n for n in range(1, 200))
    needle = make_needle("the most portable version")
    found = []
    for pad in range(16):  # the word's markup moved across a block's edge
        data = filler + b" " * pad + b"the most port*a*ble version\n" + filler
        (lines,), _ = search_any(data, LineIndex(data), 1, [needle], [False], None)
        found.append(lines)
    assert found == [{(200, 200)}] * 16
