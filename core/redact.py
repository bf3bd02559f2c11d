"""The server's own folders out of what a user sees.

An engine's refusals quote absolute paths (the sandbox root, the private
state folder, the run's scratch home), and an echoing model copies them into
its answer. What is recorded as progress and shown as an answer or error says
``<sandbox>``, ``<state>`` or ``<engine home>`` instead; the raw log keeps the
engine's bytes as they were, for the admin.

Pure Python: no Django imports.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

SANDBOX = "<sandbox>"
STATE = "<state>"
ENGINE_HOME = "<engine home>"
# The folders holding every session's sandbox and state: a link into another
# session's folder is refused with its target quoted.
SANDBOXES = "<sandboxes>"
STATES = "<states>"


class Redactor:
    """Replaces each of ``roots`` (path → neutral name) in text, the longest
    path first, so a folder inside another gets its own name. A root counts
    only as a whole folder name: ``/srv/a`` is not replaced in ``/srv/ab``."""

    def __init__(self, roots: Mapping[str | os.PathLike[str], str]) -> None:
        pairs: dict[str, str] = {}
        for root, name in roots.items():
            path = os.fspath(root).rstrip("/")
            if not path:
                continue
            pairs.setdefault(path, name)
            # The same folder reached through a symlink (e.g. /tmp on some systems).
            resolved = str(Path(path).resolve()) if os.path.isabs(path) else path
            pairs.setdefault(resolved, name)
        self.names = pairs
        ordered = sorted(pairs, key=len, reverse=True)
        self.pattern = (
            re.compile("(?:" + "|".join(re.escape(path) for path in ordered) + r")(?![\w-]|\.\w)")
            if ordered
            else None
        )

    def text(self, text: str) -> str:
        if self.pattern is None or "/" not in text:
            return text
        return self.pattern.sub(lambda match: self.names[match.group(0)], text)

    def split_tail(self, text: str) -> tuple[str, str]:
        """``text`` as (what can be shown now, what to hold for the next piece):
        for a stream cut anywhere, the tail that may be the start of a root
        ("… in /srv/sandb") waits, so a root split over two pieces is still
        found once they are joined. The first part is redacted."""
        if self.pattern is None:
            return text, ""
        longest = max(len(path) for path in self.names)
        start = max(0, len(text) - longest)
        cut = len(text)
        position = text.find("/", start)
        while position != -1:
            tail = text[position:]
            if any(path.startswith(tail) for path in self.names):
                cut = position
                break
            position = text.find("/", position + 1)
        return self.text(text[:cut]), text[cut:]

    def value(self, value: object) -> object:
        """``text`` through a payload: strings in dicts and lists, keys kept."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {key: self.value(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.value(item) for item in value]
        return value


NOTHING = Redactor({})


def run_redactor(
    sandbox: str | os.PathLike[str],
    state: str | os.PathLike[str],
    *homes: str | os.PathLike[str],
    sandboxes: str | os.PathLike[str] = "",
    states: str | os.PathLike[str] = "",
) -> Redactor:
    """The redactor of one run: its sandbox, its session's state folder, the
    engine's homes (the run's scratch folder, a persistent engine home) and
    the folders of all sessions' sandboxes and states."""
    roots: dict[str | os.PathLike[str], str] = {sandbox: SANDBOX, state: STATE}
    roots.update({home: ENGINE_HOME for home in homes if home})
    roots.update({root: name for root, name in ((sandboxes, SANDBOXES), (states, STATES)) if root})
    return Redactor(roots)
