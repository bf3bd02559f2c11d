"""The event record produced from an engine's output, and helpers that keep it small.

Payloads are stored and broadcast, so they must be JSON-serialisable and bounded:
a 20 MB tool output must never be copied into one. Pure Python, no Django imports.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from core.text import clip as text_clip

EXPANDABLE = "expandable"
PRIMARY = "primary"

DETAIL_CHARS = 100
PREVIEW_CHARS = 500
STRING_CHARS = 500
TEXT_PAYLOAD_CHARS = 100_000
_MAX_ITEMS = 50
_MAX_DEPTH = 5

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
# In a str every surrogate is a lone one: json.loads joins a valid pair.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


@dataclass(slots=True)
class StreamEvent:
    """One progress event: what the timeline shows (``detail``) and the data behind it."""

    kind: str
    stage: str
    detail: str
    phase: str = ""
    step: int | None = None
    total: int | None = None
    payload: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "stage": self.stage,
            "detail": self.detail,
            "phase": self.phase,
            "step": self.step,
            "total": self.total,
            "payload": self.payload,
        }


def clip(text: object, limit: int = DETAIL_CHARS) -> str:
    """``core.text.clip``: one line, at the stream's detail length unless told."""
    return text_clip(text, limit)


def strip_ansi(text: str) -> str:
    """Remove terminal colour/cursor codes and other control characters."""
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    return _CONTROL.sub("", text)


def truncate(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut to ``limit`` characters, and whether it was cut."""
    if len(text) <= limit:
        return text, False
    return text[:limit], True


def clean_text(text: str) -> str:
    """``text`` made storable: NUL characters and lone surrogates replaced by U+FFFD.

    An engine's JSON can spell both ("\\u0000", "\\udc80"), but PostgreSQL
    refuses them in text and jsonb columns and a websocket needs valid UTF-8.
    The one place text from an engine is cleaned before it is stored or sent."""
    if "\x00" not in text:
        if text.isascii():  # most text: constant time
            return text
        try:  # in C, several times faster than the regex; only a lone surrogate fails it
            text.encode("utf-8")  # pragma: no mutate: 'UTF-8' names the same codec
        except UnicodeEncodeError:
            pass
        else:
            return text
    return _UNSTORABLE.sub("\ufffd", text)


def compact(value: Any, *, max_str: int = STRING_CHARS, depth: int = 0) -> Any:
    """A bounded, JSON-safe copy: long strings cut (marked "…[N chars]"), long lists/dicts trimmed."""
    return _compact(value, max_str, depth)


def _compact(value: Any, max_str: int, depth: int) -> Any:
    kind = type(value)
    if kind is str:
        if len(value) > max_str:
            value = f"{value[:max_str]}…[{len(value):,} chars]"
        return clean_text(value)
    if value is None or kind is bool or kind is int:
        return value
    if kind is float:
        # NaN/Infinity are accepted by json.loads but rejected by strict JSON stores.
        return value if math.isfinite(value) else None
    if depth >= _MAX_DEPTH:
        return "…"
    # The containers of a parsed line hold mostly short ASCII strings, ints and
    # None: those are taken as they are right here (what the recursive call
    # would return for them), the rest goes through the call.
    child = depth + 1
    if kind is dict:
        out: dict[str, Any] = {}
        n = 0
        for key, item in value.items():
            if n >= _MAX_ITEMS:
                out["…"] = f"{len(value) - _MAX_ITEMS} more keys"
                break
            n += 1
            # Not mutated: compact's fast path: the recursive call returns the same value
            # pragma: no mutate start
            if type(key) is not str or len(key) > 100 or not key.isascii() or "\x00" in key:
                # pragma: no mutate end
                key = clean_text(str(key)[:100])
            item_kind = type(item)  # pragma: no mutate: compact's fast path: the same value
            if item_kind is str:
                # Not mutated: compact's fast path: the recursive call returns the same value
                if len(item) > max_str or not item.isascii() or "\x00" in item:  # pragma: no mutate
                    item = _compact(item, max_str, child)  # pragma: no mutate: a string's depth is unread
            # Not mutated: compact's fast path: the recursive call returns the same value
            elif not (item is None or item_kind is int or item_kind is bool):  # pragma: no mutate
                item = _compact(item, max_str, child)
            out[key] = item
        return out
    if kind is list or kind is tuple:
        items = []
        for item in value[:_MAX_ITEMS]:
            item_kind = type(item)  # pragma: no mutate: compact's fast path: the same value
            if item_kind is str:
                # Not mutated: compact's fast path: the recursive call returns the same value
                if len(item) > max_str or not item.isascii() or "\x00" in item:  # pragma: no mutate
                    item = _compact(item, max_str, child)  # pragma: no mutate: a string's depth is unread
            # Not mutated: compact's fast path: the recursive call returns the same value
            elif not (item is None or item_kind is int or item_kind is bool):  # pragma: no mutate
                item = _compact(item, max_str, child)
            items.append(item)
        if len(value) > _MAX_ITEMS:
            items.append(f"… {len(value) - _MAX_ITEMS} more items")
        return items
    if isinstance(value, str | int | float | dict | list):  # subclasses: normalise to the base type
        return _compact(_base(value), max_str, depth)
    return clip(repr(value), max_str)


def _base(value: Any) -> Any:
    for base in (bool, int, float, str, dict, list):
        if isinstance(value, base):
            return base(value)
    return value


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_str(value: Any) -> str:
    return value if isinstance(value, str) else ""
