"""A sandbox of one session beside another session's and its private state,
for the OpenAI-compatible engine's tests: real folders, a real index."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from core.sandbox import write_instructions, write_manifest

CONTENT_ID = "3f2a9c1e-1111-4222-8333-444455556666"
OTHER_ID = "9d8c7b6a-5555-4444-8333-222211110000"
NOTES = """# Token lifetimes

Access tokens expire after 15 minutes.
Refresh tokens live for 30 days and rotate on every use.
"""
SECRET = "TOP-SECRET-4711"


@dataclass
class Sessions:
    sandbox: Path  # this session's sandbox
    state: Path  # its private state folder
    other: Path  # another session's sandbox
    outside: Path  # a file beside every sandbox

    @property
    def notes_line(self) -> int:
        return NOTES.splitlines().index("Access tokens expire after 15 minutes.") + 1


@pytest.fixture
def sessions(tmp_path) -> Sessions:
    sandbox = tmp_path / "sandboxes" / "session-a"
    (sandbox / CONTENT_ID).mkdir(parents=True)
    (sandbox / CONTENT_ID / "notes.md").write_text(NOTES, encoding="utf-8")
    items = {CONTENT_ID: {"title": "Auth notes", "kind": "text", "source_url": "", "added_at": ""}}
    write_manifest(sandbox, items)
    write_instructions(sandbox, items)
    other = tmp_path / "sandboxes" / "session-b"
    (other / OTHER_ID).mkdir(parents=True)
    (other / OTHER_ID / "secret.md").write_text(f"The vault code is {SECRET}.\n", encoding="utf-8")
    state = tmp_path / "state" / "session-a"
    state.mkdir(parents=True)
    (state / "secret.txt").write_text(f"{SECRET}\n", encoding="utf-8")
    outside = tmp_path / "outside.md"
    outside.write_text(f"Access tokens {SECRET}\n", encoding="utf-8")
    return Sessions(sandbox, state, other, outside)
