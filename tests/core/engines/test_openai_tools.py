"""The read-only tools the OpenAI-compatible engine offers a model: what they
return, their bounds, and every way out of the content refused with no secret
in the result (``..``, absolute paths, symlinks out, the private state folder,
another session, the sandbox's own files, a folder outside the scope)."""

from __future__ import annotations

import json
import os

import pytest

from core.engines.openai.tools import (
    LIST_FILES,
    MAX_LISTED,
    MAX_READ_LINES,
    READ_LINES,
    SEARCH_TEXT,
    TOOLS,
    ContentTools,
)
from tests.core.engines.conftest import CONTENT_ID, OTHER_ID, SECRET


def call(tools: ContentTools, name: str, **arguments):
    return tools.run(name, json.dumps(arguments))


def test_only_three_read_only_tools_are_offered():
    assert [tool["function"]["name"] for tool in TOOLS] == [LIST_FILES, SEARCH_TEXT, READ_LINES]
    assert all(tool["type"] == "function" for tool in TOOLS)


def test_read_lines_numbers_each_line_and_is_shown_as_a_read(sessions):
    tools = ContentTools(sessions.sandbox, state=sessions.state)
    done = call(tools, READ_LINES, path=f"{CONTENT_ID}/notes.md", start_line=3, end_line=4)
    assert not done.is_error
    assert done.result.splitlines() == [
        f"{CONTENT_ID}/notes.md (lines 3-4)",
        "     3→Access tokens expire after 15 minutes.",
        "     4→Refresh tokens live for 30 days and rotate on every use.",
    ]
    assert (done.shown_as, done.shown_input) == (
        "Read",
        {"file_path": f"{CONTENT_ID}/notes.md", "offset": 3, "limit": 2},
    )


def test_search_text_returns_passages_with_paths_and_line_numbers(sessions):
    tools = ContentTools(sessions.sandbox, state=sessions.state)
    done = call(tools, SEARCH_TEXT, query="refresh tokens rotate")
    assert not done.is_error
    assert f"{CONTENT_ID}/notes.md (lines " in done.result
    assert "     4→Refresh tokens live for 30 days and rotate on every use." in done.result
    assert done.shown_as == "Grep" and done.shown_input["pattern"] == "refresh tokens rotate"


def test_list_files_names_content_files_only(sessions):
    tools = ContentTools(sessions.sandbox, state=sessions.state)
    done = call(tools, LIST_FILES)
    assert done.result.splitlines() == ["1 file", f"{CONTENT_ID}/notes.md"]


def test_listing_a_folder_names_its_files_only_and_no_symlink(sessions, tmp_path):
    folder = sessions.sandbox / CONTENT_ID
    (folder / "guide" / "deep").mkdir(parents=True)
    (folder / "guide" / "a.md").write_text("a\n", encoding="utf-8")
    (folder / "guide" / "deep" / "b.md").write_text("b\n", encoding="utf-8")
    (tmp_path / "outside.md").write_text(SECRET, encoding="utf-8")
    (folder / "guide" / "link.md").symlink_to(tmp_path / "outside.md")
    tools = ContentTools(sessions.sandbox, state=sessions.state)
    listed = call(tools, LIST_FILES, folder=f"{CONTENT_ID}/guide").result.splitlines()
    assert listed == ["2 files", f"{CONTENT_ID}/guide/a.md", f"{CONTENT_ID}/guide/deep/b.md"]
    everything = call(tools, LIST_FILES, folder="").result.splitlines()
    assert everything[0] == "3 files" and f"{CONTENT_ID}/notes.md" in everything
    refused = call(tools, LIST_FILES, folder=f"{CONTENT_ID}/../../state")
    assert refused.is_error and SECRET not in refused.result


def test_results_are_bounded(sessions):
    folder = sessions.sandbox / CONTENT_ID
    (folder / "long.txt").write_text("".join(f"line {n}\n" for n in range(1, 1001)), encoding="utf-8")
    many = folder / "many"
    many.mkdir()
    for n in range(MAX_LISTED + 5):
        (many / f"f{n:03}.txt").write_text("x\n", encoding="utf-8")
    tools = ContentTools(sessions.sandbox, state=sessions.state)
    read = call(tools, READ_LINES, path=f"{CONTENT_ID}/long.txt", start_line=1, end_line=1000)
    assert len(read.result.splitlines()) == 1 + MAX_READ_LINES
    listed = call(tools, LIST_FILES).result.splitlines()
    assert len(listed) == 1 + MAX_LISTED + 1 and listed[-1].startswith("… and ")


@pytest.mark.parametrize(
    "path",
    [
        "../session-b/" + OTHER_ID + "/secret.md",  # another session
        f"{CONTENT_ID}/../../session-b/{OTHER_ID}/secret.md",
        "../../state/session-a/secret.txt",  # the private state folder
        "../../outside.md",
        "/etc/passwd",  # absolute
        "CLAUDE.md",  # the sandbox's own files are not content
        "_content_manifest.json",
        ".researchmind/secret.txt",
        f"{CONTENT_ID}%2F..%2F..%2Foutside.md",
        f"{CONTENT_ID}\\..\\..\\outside.md",
    ],
)
def test_paths_out_of_the_content_are_refused_without_a_secret(sessions, path):
    private = sessions.sandbox / ".researchmind"
    private.mkdir(exist_ok=True)
    (private / "secret.txt").write_text(SECRET, encoding="utf-8")
    tools = ContentTools(sessions.sandbox, state=sessions.state)
    for done in (
        call(tools, READ_LINES, path=path),
        call(tools, LIST_FILES, folder=path),
        call(tools, SEARCH_TEXT, query="vault code", folder=path),
    ):
        assert done.is_error and done.result.startswith("Refused: ")
        assert SECRET not in done.result and str(sessions.sandbox.parent) not in done.result


def test_a_symlink_out_of_the_sandbox_is_refused(sessions):
    os.symlink(sessions.outside, sessions.sandbox / CONTENT_ID / "link.md")
    os.symlink(sessions.state, sessions.sandbox / CONTENT_ID / "state")
    tools = ContentTools(sessions.sandbox, state=sessions.state)
    for path in (f"{CONTENT_ID}/link.md", f"{CONTENT_ID}/state/secret.txt"):
        done = call(tools, READ_LINES, path=path)
        assert done.is_error and SECRET not in done.result
    assert SECRET not in call(tools, SEARCH_TEXT, query="access tokens").result
    assert "link.md" not in call(tools, LIST_FILES).result


def test_a_folder_outside_the_scope_is_refused(sessions):
    second = "0a0b0c0d-0000-4000-8000-000000000002"
    (sessions.sandbox / second).mkdir()
    (sessions.sandbox / second / "other.md").write_text(f"Access tokens {SECRET}\n", encoding="utf-8")
    tools = ContentTools(sessions.sandbox, folders=(CONTENT_ID,), state=sessions.state)
    assert call(tools, READ_LINES, path=f"{second}/other.md").is_error
    assert SECRET not in call(tools, SEARCH_TEXT, query="access tokens").result
    assert second not in call(tools, LIST_FILES).result


def test_a_malformed_call_is_a_result_the_model_reads(sessions):
    tools = ContentTools(sessions.sandbox, state=sessions.state)
    assert tools.run(READ_LINES, "{not json").result == "Refused: The arguments must be a JSON object."
    assert call(tools, READ_LINES, path=f"{CONTENT_ID}/notes.md", start_line="x").is_error
    assert call(tools, "write_file", path="x").result.startswith(
        "Refused: There is no tool called 'write_file'"
    )
    assert call(tools, READ_LINES, path=f"{CONTENT_ID}/missing.md").is_error
