"""What keeps a built-in answer fast on a large sandbox: the Grep file count
reads a bounded number of matching chunks and says when it stopped early."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))

from core.engines.builtin import build_index, run_builtin
from core.engines.builtin.search import matching_files
from core.sandbox import write_instructions, write_manifest

CID = "3f2a9c1e-1111-2222-3333-444455556666"


def _sandbox(root: Path, files: int) -> Path:
    for n in range(files):
        path = root / CID / f"note{n:02d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# Note {n}\n\nThe alpha setting is {n} seconds.\n", encoding="utf-8")
    items = {CID: {"title": "Notes", "source_url": "", "kind": "file", "added_at": "2026-01-01"}}
    write_manifest(root, items)
    write_instructions(root, items)
    build_index(root)
    return root


def test_the_file_count_stops_early_and_says_so(tmp_path):
    root = _sandbox(tmp_path, 30)
    count, files, more = matching_files(root, "alpha setting")
    assert (count, more) == (30, False) and len(files) == 30
    count, files, more = matching_files(root, "alpha setting", cap=10)
    assert more and 1 <= count <= 10 and files == sorted(files)


def test_the_grep_step_shows_a_count_that_stopped_early(tmp_path, monkeypatch):
    root = _sandbox(tmp_path, 12)
    monkeypatch.setattr(matching_files, "__kwdefaults__", {"state": None, "folders": (), "cap": 5})
    lines = list(run_builtin(root, "What is the alpha setting?", session_id="s-1"))
    assert any('"Found 5+ files' in line for line in lines)
