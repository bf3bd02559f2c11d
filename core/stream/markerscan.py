"""Finding where an open ``<!-- PROGRESS: …`` or ``<!-- CITATIONS: …`` marker ends.

A PROGRESS marker ends at the first ``-->``. A CITATIONS body is a JSON array whose
excerpts may themselves contain ``-->`` (quoted HTML), so it is scanned JSON-aware:
the block ends at the first ``-->`` after the array closes. Scanning is incremental
across deltas and bounded, so work stays linear. Pure Python, no Django imports.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from core.answer_markers import CLOSER, PROGRESS

_JSON_TOKENS = re.compile(r'["\[\]{}]')
_STRING_END = re.compile(r'["\\]')
_raw_decode = json.JSONDecoder().raw_decode


@dataclass(slots=True)
class OpenMarker:
    """State of a marker whose opener has been seen but whose end has not."""

    keyword: str
    parts: list[str] = field(default_factory=list)
    size: int = 0
    # JSON-aware scanning of a CITATIONS body, so an excerpt containing "-->" does not end it.
    started: bool = False
    json_mode: bool = False
    json_done: bool = False
    depth: int = 0
    in_string: bool = False
    escaped: bool = False
    tail: str = ""
    # Text held (in ``parts`` too) but not yet scanned: deltas without a ">".
    unscanned: list[str] = field(default_factory=list)


def marker_body(raw: str) -> str:
    """The text between "KEYWORD:" and "-->", stripped."""
    body = raw[raw.find(":") + 1 :]
    return body[: -len(CLOSER)].strip() if body.endswith(CLOSER) else body.strip()


def find_marker_end(block: OpenMarker, buf: str, pos: int, stop: int) -> int:
    """Return the index just past the closing ``-->`` in ``buf[pos:stop]``, or -1."""
    if block.keyword == PROGRESS:
        return _find_closer(block, buf, pos, stop)
    i = pos
    if not block.started:
        while i < stop and buf[i] in " \t\r\n":
            i += 1
        if i == stop:
            return -1  # pragma: no mutate: callers test end >= 0: -2 is -1
        block.started = True
        block.json_mode = buf[i] in "[{"
        if block.json_mode:
            # Usually the whole body is already here (a complete text block, or a
            # large delta) and valid: the C decoder finds its end in one call. If
            # not, the token scan below takes over from the start of the body.
            try:
                end = _raw_decode(buf, i)[1]
            except (ValueError, RecursionError):
                end = -1  # pragma: no mutate: -2 fails 0 <= end like -1
            if 0 <= end <= stop:  # pragma: no mutate: speed only; raw_decode never ends at 0
                block.json_done = True
                block.tail = ""  # pragma: no mutate: X's: the same end
                return _find_closer(block, buf, end, stop)
    if not block.json_mode or block.json_done:
        return _find_closer(block, buf, i, stop)
    while i < stop:
        if block.in_string:
            if block.escaped:
                block.escaped = False  # pragma: no mutate: None is falsy like False
                i += 1
                continue
            m = _STRING_END.search(buf, i, stop)  # pragma: no mutate: the loop ends with -1 either way
            if m is None:
                return -1  # pragma: no mutate: callers test end >= 0: -2 is -1
            i = m.end()
            if m.group() == "\\":
                block.escaped = True
            else:
                block.in_string = False  # pragma: no mutate: None is falsy like False
            continue
        m = _JSON_TOKENS.search(buf, i, stop)  # pragma: no mutate: nothing found from there
        if m is None:
            # An unbalanced body may still end at "-->"; wait for more text (flush salvages it).
            return -1  # pragma: no mutate: callers test end >= 0: -2 is -1
        i = m.end()
        char = m.group()
        if char == '"':
            block.in_string = True
        elif char in "[{":  # pragma: no mutate: X is no JSON token character
            block.depth += 1
        else:
            block.depth -= 1
            if block.depth <= 0:
                block.json_done = True
                block.tail = ""  # pragma: no mutate: X's: the same end
                return _find_closer(block, buf, i, stop)
    return -1  # pragma: no mutate: callers test end >= 0: -2 is -1


def _find_closer(block: OpenMarker, buf: str, pos: int, stop: int) -> int:
    """Find ``-->`` in ``buf[pos:stop]``, also when it straddles the previous chunk."""
    if block.tail:
        # Not mutated: a closer wholly inside buf is found below at the same end
        joined = block.tail + buf[pos : min(pos + 2, stop)]  # pragma: no mutate
        k = joined.find(CLOSER)  # pragma: no mutate: '-->' at most once: find is rfind
        if k >= 0:
            end = pos + k + 3 - len(block.tail)
            block.tail = ""  # pragma: no mutate: the marker is dropped: tail unread
            return end
    k = buf.find(CLOSER, pos, stop)
    if k >= 0:
        block.tail = ""  # pragma: no mutate: the marker is dropped: tail unread
        return k + 3
    # Not mutated: the tail keeps its last 2 characters either way: the same end
    block.tail = (block.tail + buf[max(pos, stop - 2) : stop])[-2:]  # pragma: no mutate
    return -1  # pragma: no mutate: callers test end >= 0: -2 is -1


def salvage_citations_end(held: str) -> int:
    """For an unbalanced CITATIONS body: the first ``-->`` after which the body parses, else the first."""
    first = -1
    k = held.find(CLOSER)
    tries = 0
    # Not mutated: held starts with '<!--', so '-->' is never found at 0
    while k >= 0 and tries < 20:  # bounded: each try parses the body so far  # pragma: no mutate
        if first < 0:  # pragma: no mutate: first is -1 or >= 3
            first = k + 3
        tries += 1
        try:
            json.loads(marker_body(held[: k + 3]))
        except (ValueError, RecursionError):
            k = held.find(CLOSER, k + 3)
            continue
        return k + 3
    return first
