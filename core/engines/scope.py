"""A question's scope: the content folders it may search, told to every engine.

The line is part of the prompt, so an engine that reads prose (Claude Code,
claude-mpm) is told in words, and the built-in engine reads the same line and
limits its retrieval to those folders. Pure Python: no Django imports.
"""

from __future__ import annotations

import re

PREFIX = "Search only these content folders (the question's scope):"
_LINE = re.compile(r"^" + re.escape(PREFIX) + r"(?P<rest>.*)$", re.M)
_FOLDER = re.compile(r"(?<![\w-])([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/")


def scope_line(items: list[tuple[str, str]]) -> str:
    """The line naming each ``(content id, title)`` as ``<id>/ (title)``."""
    named = ", ".join(
        f"{content_id}/ ({' '.join(title.split())[:80] or 'untitled'})" for content_id, title in items
    )
    return f"{PREFIX} {named}. Do not search or cite other folders."


def with_scope(prompt: str, items: list[tuple[str, str]]) -> str:
    """``prompt`` with the scope line after it (unchanged when ``items`` is empty: everything)."""
    return f"{prompt}\n\n{scope_line(items)}" if items else prompt


def split_scope(prompt: str) -> tuple[str, tuple[str, ...]]:
    """``(prompt without the scope line, the folders it names)``; no line: all folders."""
    match = _LINE.search(prompt)
    if match is None:
        return prompt, ()
    folders = tuple(dict.fromkeys(_FOLDER.findall(match["rest"])))
    rest = (prompt[: match.start()] + prompt[match.end() :]).strip()
    return rest, folders
