"""Cutting text to a length: the one rule for every label, detail and title.

``clip`` makes one line (whitespace collapsed); ``shorten`` keeps the text as it
is. Both end a cut text with "…" and never exceed ``limit`` characters, the "…"
included; a text that fits is returned whole. Pure Python, no Django imports.
"""

from __future__ import annotations

ELLIPSIS = "…"


def shorten(text: str, limit: int) -> str:
    """``text`` of at most ``limit`` characters, "…" when cut."""
    if len(text) <= limit:
        return text
    return text[: limit - 1].rstrip() + ELLIPSIS


def clip(text: object, limit: int) -> str:
    """One line of at most ``limit`` characters, whitespace collapsed, "…" when cut."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    if len(text) > limit * 4:
        text = text[: limit * 4]  # no need to collapse what is cut anyway
    return shorten(" ".join(text.split()), limit)
