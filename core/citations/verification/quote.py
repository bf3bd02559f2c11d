"""The whole text a verified citation quotes: the lines of its span.

An engine may clip its excerpt (the built-in engine's are at most 200
characters; a model's may stop mid-line, "…documentation in"), while the
citation points at whole lines. What is stored and shown, and what the support
judge reads, is those lines as they are in the file (line breaks kept, so a
table, a list or code keeps its shape), never a piece shorter than the span.
A span longer than ``MAX_QUOTE_CHARS`` (a model citing a whole file for one
sentence) is narrowed to the whole lines its excerpt occupies.

Pure Python: no Django imports. Files are opened only through
``resolve_in_sandbox`` and read as far as the last line asked for.
"""

from __future__ import annotations

import bisect
import os
from collections.abc import Iterable
from dataclasses import dataclass

from core.citations.verification.needle import make_needle
from core.citations.verification.normalize import collapse, fold, matches
from core.sandbox import SandboxError, SandboxResolver, is_private, resolve_in_sandbox

MAX_QUOTE_CHARS = 4_000  # a longer span is narrowed to its excerpt's lines
MAX_LINE_CHARS = 20_000  # a minified file's line is cut, not stored whole
_BOM = "\ufeff"
_READ_BLOCK = 1 << 20  # bytes read at a time, up to the last line asked for


@dataclass(frozen=True, slots=True)
class Quote:
    """The text a citation quotes and the lines it occupies."""

    text: str
    line_start: int
    line_end: int


def read_lines(
    root: str | os.PathLike[str] | SandboxResolver, rel: str, spans: Iterable[tuple[int, int]]
) -> dict[tuple[int, int], list[str]]:
    """Each span's lines of one sandbox file (1-based, inclusive), read once
    up to the last line asked for; a span past the end, a refused or private
    path, or an unreadable file gives no entry. ``root`` may be the resolver
    of the sandbox's other cited files, its folders resolved once for them all."""
    wanted = [(s, e) for s, e in spans if 0 < s <= e]
    if not wanted or is_private(rel):
        return {}
    try:
        if isinstance(root, SandboxResolver):
            real = root.real_path(rel)
        else:
            real = resolve_in_sandbox(root, rel)
        last = max(e for _, e in wanted)
        with open(real, "rb") as handle:
            # Whole blocks up to the last line asked for: split in C, only the
            # wanted lines decoded (a line at a time cost a tenth of a finish).
            blocks, newlines = [], 0
            while newlines < last and (block := handle.read(_READ_BLOCK)):
                blocks.append(block)
                if len(block) < _READ_BLOCK:
                    break  # the end of the file: no need to count its lines
                newlines += block.count(b"\n")
    except (OSError, SandboxError, ValueError):
        return {}
    raw = b"".join(blocks).split(b"\n", last)
    # Lines 1..last when the file has them; after the last newline, a line only if not empty.
    count = last if len(raw) > last else len(raw) - (not raw[-1])
    lines: dict[int, str] = {}

    def line(number: int) -> str:
        if number not in lines:
            text = raw[number - 1].decode("utf-8", errors="replace").rstrip("\r\n")[:MAX_LINE_CHARS]
            lines[number] = text.removeprefix(_BOM) if number == 1 else text
        return lines[number]

    return {(s, e): [line(n) for n in range(s, e + 1)] for s, e in wanted if e <= count}


def whole_quote(excerpt: str, lines: list[str], line_start: int) -> Quote | None:
    """The quote of a citation whose ``excerpt`` was verified in ``lines``
    (its span, from ``line_start``): the span's text, or the whole lines the
    excerpt occupies when the span is longer than ``MAX_QUOTE_CHARS``.
    ``None`` when the excerpt is not in them (the excerpt is then kept)."""
    needle = make_needle(excerpt)
    if needle is None or not lines:
        return None
    # Each line folded on its own (markup never spans lines), joined by one space,
    # with where each line starts in the joined text.
    folded = [collapse(fold(line)) for line in lines]
    starts, parts, at = [], [], 0
    for text in folded:
        starts.append(at)
        if text:
            parts.append(text)
            at += len(text) + 1
    found = matches(" ".join(parts), needle.pieces, first_only=True)
    if not found:
        return None
    text = "\n".join(lines).strip("\n")
    if len(text) <= MAX_QUOTE_CHARS:
        return Quote(text, line_start, line_start + len(lines) - 1)
    begin, end = found[0]
    first = bisect.bisect_right(starts, begin) - 1
    last = bisect.bisect_right(starts, max(begin, end - 1)) - 1
    # An empty line shares its start with the next line: step past it.
    while first < last and not folded[first]:
        first += 1
    return Quote("\n".join(lines[first : last + 1]), line_start + first, line_start + last)
