"""Where a text's characters may spell a word once normalised (``hiding_places``): every
offset, whether the character's last byte is rare in the text or everywhere in it."""

from __future__ import annotations

from core.citations.verification.spelling import hiding_places
from tests.core.citations.builders import installed_file


def _offsets(data: bytes, char: str) -> list[int]:
    """Every offset of ``char`` in UTF-8 ``data``, the plain way."""
    encoded = char.encode("utf-8")
    return [at for at in range(len(data)) if data.startswith(encoded, at)]


def _german() -> bytes:
    return installed_file("django", "conf/locale/de/LC_MESSAGES/django.po").read_bytes()


def test_every_sharp_s_of_real_german_text_is_a_hiding_place():
    """Django's German translations: each "ß" (its last byte rare there) is found."""
    data = _german()
    assert _offsets(data, "ß")
    assert hiding_places(data) == _offsets(data, "ß")


def test_a_character_whose_last_byte_is_everywhere_is_found_all_the_same():
    """The same text with "ğ" (whose last byte "ß" shares) after every word: each "ß"
    is still found, and none of the look-alike bytes is taken for one."""
    data = _german().replace(b" ", " ğ ".encode())
    assert data.count(b"\x9f") > 2 * data.count("ß".encode())
    assert hiding_places(data) == _offsets(data, "ß")


def test_offsets_of_several_characters_come_in_order():
    """Places of different characters ("ß", "ﬁ", "²") are merged into one ascending list."""
    data = "x² der Fluß ﬁndet ß\n".encode() * 50
    assert hiding_places(data) == sorted(_offsets(data, "ß") + _offsets(data, "ﬁ") + _offsets(data, "²"))
