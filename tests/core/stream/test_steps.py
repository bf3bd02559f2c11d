from __future__ import annotations

import pytest

from core.stream.steps import describe_tool, display_path, result_preview

CID = "3f2a9c1e-5b7d-4e8f-9a01-23456789abcd"
TITLES = {CID: "Auth Guide"}
SANDBOX = "/srv/sandboxes/7d1e5a20-4c3b-4a2b-8c3d-5e6f708192a3"


def test_read_of_sandbox_path_shows_content_title():
    """An absolute sandbox path becomes "<content title>/<path>"."""
    assert describe_tool("Read", {"file_path": f"{SANDBOX}/{CID}/docs/auth.md"}, TITLES, SANDBOX) == (
        "Reading Auth Guide/docs/auth.md"
    )


def test_read_of_relative_path_shows_content_title():
    """A path relative to the sandbox maps its leading content folder to the title."""
    assert describe_tool("Read", {"file_path": f"{CID}/auth.md"}, TITLES) == "Reading Auth Guide/auth.md"


def test_absolute_path_without_sandbox_uses_the_known_content_id():
    """Without the sandbox prefix, the content id found in the titles is still recognised."""
    assert (
        describe_tool("Read", {"file_path": f"{SANDBOX}/{CID}/auth.md"}, TITLES)
        == "Reading Auth Guide/auth.md"
    )


def test_unknown_content_id_is_shortened():
    """A content folder with no known title is shown as its first 8 hex digits."""
    assert describe_tool("Read", {"file_path": f"{CID}/auth.md"}) == "Reading 3f2a9c1e…/auth.md"


def test_read_with_line_window():
    """Read offset and limit appear as a line range."""
    assert (
        describe_tool("Read", {"file_path": "a.md", "offset": 40, "limit": 20})
        == "Reading a.md (lines 40–59)"
    )


def test_grep_shows_pattern_and_path():
    """Grep becomes "Searching for `pattern` in <path>"."""
    step = describe_tool("Grep", {"pattern": "JWT", "path": f"{SANDBOX}/{CID}/docs"}, TITLES, SANDBOX)
    assert step == "Searching for `JWT` in Auth Guide/docs"
    assert describe_tool("Grep", {"pattern": "JWT"}) == "Searching for `JWT`"


def test_glob_web_task_and_bash_steps():
    """Each common tool has its own readable wording."""
    assert describe_tool("Glob", {"pattern": "**/*.md"}) == "Finding files `**/*.md`"
    assert describe_tool("WebFetch", {"url": "https://example.com/a"}) == "Fetching https://example.com/a"
    assert describe_tool("WebSearch", {"query": "jwt expiry"}) == "Searching the web for `jwt expiry`"
    assert describe_tool("Task", {"description": "Survey tokens"}) == "Sub-agent: Survey tokens"
    assert describe_tool("Agent", {"subagent_type": "research"}) == "Sub-agent: research"
    assert describe_tool("Bash", {"command": "ls -la\nrm x"}) == "Running `ls -la`"


def test_unknown_and_mcp_tools():
    """Unknown tools read "Using <name>"; MCP tools show tool and server."""
    assert describe_tool("Frobnicate", {}) == "Using Frobnicate"
    assert describe_tool("mcp__vector__search_code", {}) == "Using search_code (vector)"


@pytest.mark.parametrize(
    ("name", "tool_input"),
    [
        (None, None),
        ("Read", []),
        ("Grep", {"pattern": None, "path": 7}),
        (3, "x"),
        ("Read", {"file_path": "/"}),
    ],
)
def test_odd_inputs_never_raise(name, tool_input):
    """Whatever the engine puts in a tool call, a short description comes back."""
    step = describe_tool(name, tool_input)
    assert isinstance(step, str)
    assert 0 < len(step) <= 100


def test_long_values_are_cut_to_100_characters():
    """Very long commands and paths still give a step of at most 100 characters."""
    assert len(describe_tool("Bash", {"command": "x" * 5000})) <= 100
    step = describe_tool("Read", {"file_path": "/".join(["deep"] * 200) + "/file.md"})
    assert len(step) <= 100
    assert step.endswith("file.md")


def test_display_path_outside_sandbox_is_kept():
    """A path that is not under the sandbox is shown as written."""
    assert display_path("/etc/hosts", TITLES, SANDBOX) == "/etc/hosts"


def test_result_preview_is_bounded_and_flags_truncation():
    """Tool output previews are at most 500 characters and say when they were cut."""
    assert result_preview("short") == ("short", False)
    text, cut = result_preview("y" * 20_000_000)
    assert (len(text), cut) == (500, True)
    text, cut = result_preview([{"type": "text", "text": "a"}, {"type": "image", "source": {}}])
    assert (text, cut) == ("a\n[image]", False)


def test_sandbox_root_is_not_named():
    """A search in "." or in the sandbox root reads without a location."""
    assert describe_tool("Grep", {"pattern": "x", "path": "."}) == "Searching for `x`"
    assert (
        describe_tool("Glob", {"pattern": "*.md", "path": SANDBOX}, TITLES, SANDBOX) == "Finding files `*.md`"
    )
    assert describe_tool("LS", {"path": "."}) == "Listing the sandbox"
