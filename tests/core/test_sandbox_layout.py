"""The sandbox's layout: the manifest as written and read, the agent
instructions listing the content, the private state's place, and the move of an
older version's private folder out of the sandbox."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

import pytest

from core.sandbox import (
    MANIFEST_NAME,
    SandboxError,
    default_state_dir,
    ensure_layout,
    instructions_text,
    is_private,
    move_legacy_state,
    read_manifest,
    resolve_in_sandbox,
    write_manifest,
)


def test_manifest_is_sorted_indented_json(tmp_path):
    """The manifest is written with sorted keys and a two-space indent (stable and readable by a
    person and by the agent), values that are not JSON (a datetime) as text."""
    items = {"b": {"title": "B", "added_at": dt.datetime(2026, 1, 2, 3, 4, 5)}, "a": {"title": "A"}}
    path = write_manifest(tmp_path / "new" / "sandbox", items)
    assert path.read_text(encoding="utf-8") == (
        '{\n  "a": {\n    "title": "A"\n  },\n'
        '  "b": {\n    "added_at": "2026-01-02 03:04:05",\n    "title": "B"\n  }\n}\n'
    )
    assert os.listdir(path.parent) == [MANIFEST_NAME]  # no temporary file left behind


def test_manifest_that_is_not_an_object_reads_as_empty(tmp_path):
    """A manifest holding a JSON list (or a number) reads as empty, like a broken one, instead of
    raising; entries that are not objects are skipped."""
    (tmp_path / MANIFEST_NAME).write_text("[1, 2]")
    assert read_manifest(tmp_path) == {}
    (tmp_path / MANIFEST_NAME).write_text('{"a": {"title": "A"}, "b": 3}')
    assert read_manifest(tmp_path) == {"a": {"title": "A"}}


def test_ensure_layout_creates_missing_parents(tmp_path):
    """The sandbox folder is created with any missing parents, and creating it twice is fine."""
    root = tmp_path / "x" / "y" / "sandbox"
    assert ensure_layout(root) == root
    assert ensure_layout(root).is_dir()


def test_instructions_list_each_item_with_its_title_kind_and_url():
    """Each content item is one line: its folder, title, kind and, when it has one, its source URL;
    a missing title reads "Untitled" and a missing kind "content"."""
    text = instructions_text(
        {
            "id-1": {"title": "Notes", "kind": "text", "source_url": "https://example.org/n"},
            "id-2": {"title": "", "source_url": ""},
        }
    )
    assert "- `id-1/` — Notes (text), from https://example.org/n\n- `id-2/` — Untitled (content)\n" in text
    assert '"source_file": "id-1/notes.md"' in text  # the example cites the first item


def test_instructions_without_content_say_so():
    """With no content the list says "(no content yet)" and the example uses a placeholder id."""
    text = instructions_text({})
    assert "## Contents\n\n(no content yet)\n" in text
    assert "`3f2a9c1e-0000-0000-0000-000000000000/notes.md` lines 45-52" in text


def test_default_state_dir_is_beside_the_sandbox(tmp_path):
    """Without a configured state root, a sandbox's private state goes to ``<parent>/.state/<name>``."""
    assert default_state_dir(tmp_path / "sessions" / "s1") == tmp_path / "sessions" / ".state" / "s1"


def test_is_private_only_for_the_private_folder():
    """Only paths under ``.researchmind/`` are private; a name that merely starts the same is not."""
    assert is_private(".researchmind/index.json")
    assert is_private(".researchmind/runs/a.log")
    assert is_private(".researchmind")
    assert not is_private(".researchmind-notes/a.md")
    assert not is_private("item/.researchmind/x")


def test_symlink_leading_out_is_refused_with_its_reason(tmp_path):
    """A name that resolves, through a symlink, outside the sandbox is refused as leading outside."""
    root = tmp_path / "sandbox"
    root.mkdir()
    (root / "out").symlink_to(tmp_path)
    with pytest.raises(SandboxError, match=r"^The path leads outside the sandbox\.$"):
        resolve_in_sandbox(root, "out/secret")


def _legacy(root: Path) -> Path:
    legacy = root / ".researchmind"
    (legacy / "runs").mkdir(parents=True)
    (legacy / "runs" / "old.log").write_text("old run\n")
    (legacy / "runs" / "both.log").write_text("legacy copy\n")
    (legacy / "index.json").write_text("{}")
    return legacy


def test_move_legacy_state_merges_folders_and_keeps_what_is_there(tmp_path):
    """The legacy folder's entries move into the state folder (created with its parents); a folder
    present in both is merged child by child, and what the state folder already holds wins."""
    root, state = tmp_path / "sandbox", tmp_path / "state" / "s1"
    legacy = _legacy(root)
    (state / "runs").mkdir(parents=True)
    (state / "runs" / "both.log").write_text("current\n")
    assert move_legacy_state(root, state) is True
    assert not legacy.exists()
    assert sorted(p.relative_to(state).as_posix() for p in state.rglob("*")) == [
        "index.json",
        "runs",
        "runs/both.log",
        "runs/old.log",
    ]
    assert (state / "runs" / "both.log").read_text() == "current\n"
    assert (state / "runs" / "old.log").read_text() == "old run\n"


def test_move_legacy_state_creates_the_state_folder(tmp_path):
    """A state folder whose parents do not exist yet is created to receive the legacy entries."""
    root, state = tmp_path / "sandbox", tmp_path / "state-root" / "sessions" / "s1"
    _legacy(root)
    assert move_legacy_state(root, state) is True
    assert (state / "runs" / "old.log").read_text() == "old run\n"


def test_move_legacy_state_keeps_an_existing_file(tmp_path):
    """A file already in the state folder is not replaced by the legacy one of the same name."""
    root, state = tmp_path / "sandbox", tmp_path / "state"
    _legacy(root)
    state.mkdir()
    (state / "index.json").write_text('{"kept": true}')
    assert move_legacy_state(root, state) is True
    assert json.loads((state / "index.json").read_text()) == {"kept": True}


def test_move_legacy_state_ignores_a_symlinked_or_missing_folder(tmp_path):
    """Nothing to move when there is no legacy folder, or when it is a symlink (never followed)."""
    root, state = tmp_path / "sandbox", tmp_path / "state"
    root.mkdir()
    assert move_legacy_state(root, state) is False
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "runs").mkdir(parents=True)
    (root / ".researchmind").symlink_to(elsewhere)
    assert move_legacy_state(root, state) is False
    assert (elsewhere / "runs").is_dir()
    assert not state.exists()
