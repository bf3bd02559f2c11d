"""FILE_LINE_RE's leading lookahead (a speed-up) finds what the pattern without it finds."""

from __future__ import annotations

import random
import re

from core.citations.parsing.text_forms import FILE_LINE_RE

WITHOUT_LOOKAHEAD = re.compile(FILE_LINE_RE.pattern.removeprefix(r"(?=[\w.\-])"))
ALPHABET = ["a", "b.py", ".", "-", "_", "/", ":", "@", " ", "\n", "1", "23", ",", "–", "x.md", "é", "`"]


def test_the_pattern_only_gained_its_lookahead():
    assert FILE_LINE_RE.pattern.startswith(r"(?=[\w.\-])(?<!")
    assert WITHOUT_LOOKAHEAD.pattern.startswith("(?<!")


def test_the_same_matches_on_file_line_references():
    text = "see src/app.py:12-14, 19 and x@a.py:3, but ./b.md:7, c.txt:1,2.py:5 and example.com:8080\n"
    assert [m.span() for m in FILE_LINE_RE.finditer(text)] == [
        m.span() for m in WITHOUT_LOOKAHEAD.finditer(text)
    ]
    assert FILE_LINE_RE.findall(text) == WITHOUT_LOOKAHEAD.findall(text)


def test_the_same_matches_on_random_texts():
    rng = random.Random(37)
    for _ in range(3000):
        text = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 30)))
        assert FILE_LINE_RE.findall(text) == WITHOUT_LOOKAHEAD.findall(text), text
