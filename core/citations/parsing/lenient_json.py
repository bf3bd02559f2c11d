"""A forgiving reader for the JSON that agents write in CITATIONS blocks.

Agents produce almost-JSON: trailing commas, single quotes, ``//`` and
``/* */`` comments, Python literals, unquoted keys, and blocks cut off when
the output was truncated. Rather than losing the whole block to one stray
comma, the array is split into its elements first and each element is read on
its own, so one broken citation costs only itself. Every repair is named so
the caller can report it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_BAREWORD = re.compile(r"[A-Za-z_$][\w$-]*")
_LITERALS = {"true": True, "false": False, "null": None, "True": True, "False": False, "None": None}
# Citations nest two deep (the array, an entry, its location); past this an
# element is hostile, and reading it would exhaust Python's recursion limit.
MAX_DEPTH = 100
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "/": "/", "\\": "\\", '"': '"', "'": "'"}
MISSING = object()


class LenientError(ValueError):
    """The text cannot be read as JSON even leniently."""


@dataclass(slots=True)
class Reader:
    """Recursive-descent reader over one element's text."""

    text: str
    pos: int = 0
    depth: int = 0
    truncated: bool = False
    repairs: set[str] = field(default_factory=set)

    def skip(self) -> None:
        text, n = self.text, len(self.text)
        while self.pos < n:
            ch = text[self.pos]
            if ch in " \t\r\n\ufeff":
                self.pos += 1
            elif text.startswith("//", self.pos) or ch == "#":
                self.repairs.add("comments")
                end = text.find("\n", self.pos)
                self.pos = n if end < 0 else end + 1  # pragma: no mutate: the newline is never found at 0
            elif text.startswith("/*", self.pos):
                self.repairs.add("comments")
                end = text.find("*/", self.pos + 2)
                if end < 0:  # pragma: no mutate: searched from pos + 2, so the */ is never found at 0
                    self.truncated, self.pos = True, n
                else:
                    self.pos = end + 2
            else:
                return

    def value(self) -> object:
        """Read one value; MISSING when the text ends before it is complete."""
        self.skip()
        if self.pos >= len(self.text):
            self.truncated = True
            return MISSING
        ch = self.text[self.pos]
        if ch in "{[":
            if self.depth >= MAX_DEPTH:
                raise LenientError(f"it is nested more than {MAX_DEPTH} levels deep")
            self.depth += 1
            result = self.obj() if ch == "{" else self.array()
            self.depth -= 1
            return result
        if ch in "\"'":
            return self.string()
        number = _NUMBER.match(self.text, self.pos)
        match = number or _BAREWORD.match(self.text, self.pos)
        if match is None:
            raise LenientError(f"unexpected character {ch!r}")
        self.pos = match.end()
        if self.depth and self.pos == len(self.text):
            # Cut off mid-value inside a container: "line_start": 1 may have been 12.
            self.truncated = True
            return MISSING
        word = match.group()
        if number:
            # Not mutated: a _NUMBER match holds digits, '-', '.', 'e', 'E', '+' only: never an 'X'
            return float(word) if any(c in word for c in ".eE") else int(word)  # pragma: no mutate
        if word in _LITERALS:
            if word[0].isupper():
                self.repairs.add("Python literals")
            return _LITERALS[word]
        self.repairs.add("unquoted values")
        return word

    def string(self) -> object:
        quote = self.text[self.pos]
        if quote == "'":
            self.repairs.add("single quotes")
        self.pos += 1
        out: list[str] = []
        text, n = self.text, len(self.text)
        while self.pos < n:
            ch = text[self.pos]
            if ch == quote:
                self.pos += 1
                return "".join(out)
            if ch == "\\" and self.pos + 1 < n:
                nxt = text[self.pos + 1]
                if nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", text[self.pos + 2 : self.pos + 6]):
                    out.append(chr(int(text[self.pos + 2 : self.pos + 6], 16)))
                    self.pos += 6
                    continue
                out.append(_ESCAPES.get(nxt, nxt))
                self.pos += 2
                continue
            if ch == "\n":
                self.repairs.add("line breaks inside strings")
            out.append(ch)
            self.pos += 1
        self.truncated = True
        return MISSING

    def key(self) -> object:
        ch = self.text[self.pos]
        if ch in "\"'":
            return self.string()
        match = _BAREWORD.match(self.text, self.pos)
        if not match:
            raise LenientError(f"expected a field name, found {ch!r}")
        self.repairs.add("unquoted keys")
        self.pos = match.end()
        return match.group()

    def next_member(self, closer: str) -> bool:
        """Skip blanks and stray commas: True when a member follows, False
        when the container closed or the text ended (``truncated``)."""
        while True:
            self.skip()
            if self.pos >= len(self.text):
                self.truncated = True
                return False
            ch = self.text[self.pos]
            if ch == closer:
                self.pos += 1
                return False
            if ch != ",":
                return True
            self.repairs.add("extra commas")
            self.pos += 1

    def obj(self) -> dict[str, object]:
        self.pos += 1
        result: dict[str, object] = {}
        while self.next_member("}"):
            name = self.key()
            if name is MISSING:
                return result
            self.skip()
            if self.pos >= len(self.text):
                self.truncated = True
                return result
            if self.text[self.pos] != ":":
                raise LenientError(f"expected ':' after the field name {name!r}")
            self.pos += 1
            item = self.value()
            if item is MISSING:
                return result
            result[str(name)] = item
            self.after_member("}")
        return result

    def array(self) -> list[object]:
        self.pos += 1
        result: list[object] = []
        while self.next_member("]"):
            item = self.value()
            if item is MISSING:
                return result
            result.append(item)
            self.after_member("]")
        return result

    def after_member(self, closer: str) -> None:
        self.skip()
        if self.pos >= len(self.text):
            return
        ch = self.text[self.pos]
        if ch == ",":
            self.pos += 1
            self.skip()
            if self.pos < len(self.text) and self.text[self.pos] == closer:
                self.repairs.add("trailing commas")
        elif ch != closer:
            self.repairs.add("missing commas")


@dataclass(slots=True)
class Element:
    """One top-level array element's text and where it starts in the body."""

    text: str
    offset: int


@dataclass(slots=True)
class Split:
    elements: list[Element]
    closed: bool  # the array's closing ']' was seen
    missing_commas: bool = False
    comments: bool = False  # between elements, where no element's reader sees them


def split_array(body: str) -> Split | None:
    """Cut the block's top-level array into element texts, aware of strings
    and comments; ``None`` when there is no array at all."""
    start = body.find("[")
    brace = body.find("{")
    if start < 0 or (0 <= brace < start):  # pragma: no mutate: '[' and '{' never share an index
        # A lone object (or a list whose '[' was lost) is read as its elements.
        if brace < 0:
            return None
        start = brace - 1
    elements: list[Element] = []
    depth, quote, i, n = 0, "", start + 1, len(body)
    elem_start = -1  # pragma: no mutate: only < 0 and >= 0 are tested: -2 is 'none' as -1 is
    missing = comments = False

    def close(end: int) -> None:
        nonlocal elem_start
        if elem_start >= 0 and body[elem_start:end].strip():
            elements.append(Element(body[elem_start:end], elem_start))
        elem_start = -1  # pragma: no mutate: only < 0 and >= 0 are tested: -2 is 'none' as -1 is

    while i < n:
        ch = body[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = ""  # pragma: no mutate: only tested for truth: None and '' are both false
            i += 1
            continue
        if body.startswith("//", i):
            end = body.find("\n", i)
            i, comments = (n if end < 0 else end + 1), True  # pragma: no mutate: the newline is never at 0
            continue
        if body.startswith("/*", i):
            end = body.find("*/", i + 2)
            i, comments = (n if end < 0 else end + 2), True  # pragma: no mutate: the */ is never at 0
            continue
        if ch.isspace():
            i += 1
            continue
        if elem_start < 0 and depth == 0 and ch not in ",]":
            elem_start = i
        if ch in "\"'":
            quote = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            if depth == 0:
                close(i)
                return Split(elements, closed=True, missing_commas=missing, comments=comments)
            depth -= 1
            if depth == 0:
                nxt = i + 1
                while nxt < n and body[nxt].isspace():
                    nxt += 1
                if nxt < n and body[nxt] == "{":
                    missing = True
                    close(i + 1)
        elif ch == "," and depth == 0:
            close(i)
        i += 1
    close(n)  # pragma: no mutate: body[start:None] is body[start:n] (n is len(body))
    return Split(elements, closed=False, missing_commas=missing, comments=comments)


def read_element(text: str) -> tuple[object, Reader]:
    """Read one element leniently; raises LenientError when it is unreadable."""
    reader = Reader(text)
    result = reader.value()
    reader.skip()
    if reader.pos < len(text) and not reader.truncated:
        reader.repairs.add("extra text after a citation")
    return result, reader
