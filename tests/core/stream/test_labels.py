"""The exact words a person reads for each tool call and engine line, and where they are cut.

Every label here is what the timeline shows; a changed word, a lost fallback or a
clip one character off is a visible change, so each is pinned at its boundary.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.stream.details import other_detail, result_detail, system_detail
from core.stream.events import clip
from core.stream.steps import describe_tool, display_path, result_preview

CID = "3f2a9c1e-5b7d-4e8f-9a01-23456789abcd"
OTHER = "0b9c8d7e-6f5a-4b3c-9d2e-1f0a9b8c7d6e"
SESSION = "7d1e5a20-4c3b-4a2b-8c3d-5e6f708192a3"
SANDBOX = f"/srv/researchmind/sandboxes/{SESSION}"
TITLES = {CID: "Auth Guide"}


# -- describe_tool: one wording per tool ---------------------------------------------


@pytest.mark.parametrize(
    ("name", "tool_input", "step"),
    [
        ("Read", {"file_path": f"{SANDBOX}/{CID}/auth.md"}, "Reading Auth Guide/auth.md"),
        ("Read", {"path": f"{CID}/auth.md"}, "Reading Auth Guide/auth.md"),
        ("Read", {"file_path": "", "path": f"{CID}/tokens.md"}, "Reading Auth Guide/tokens.md"),
        ("Read", {}, "Reading a file"),
        ("Read", {"file_path": "a.md", "offset": 1, "limit": 40}, "Reading a.md (lines 1–40)"),
        ("Read", {"file_path": "a.md", "offset": 5, "limit": 1}, "Reading a.md (lines 5–5)"),
        ("Read", {"file_path": "a.md", "offset": 5, "limit": 0}, "Reading a.md (from line 5)"),
        ("Read", {"file_path": "a.md", "offset": 2}, "Reading a.md (from line 2)"),
        ("Read", {"file_path": "a.md", "offset": 1}, "Reading a.md"),
        ("Read", {"file_path": "a.md", "offset": "5", "limit": 10}, "Reading a.md"),
        ("Read", {"file_path": "a.md", "limit": 10}, "Reading a.md"),
        ("Grep", {"pattern": "JWT", "path": f"{CID}/docs"}, "Searching for `JWT` in Auth Guide/docs"),
        ("Grep", {"pattern": "refresh", "glob": "*.md"}, "Searching for `refresh` in *.md"),
        ("Grep", {"pattern": "x", "path": f"{CID}", "glob": "*.md"}, "Searching for `x` in Auth Guide"),
        ("Grep", {"pattern": "x", "glob": ""}, "Searching for `x`"),
        ("Grep", {}, "Searching for ``"),
        ("Glob", {"pattern": "**/*.md", "path": f"{CID}"}, "Finding files `**/*.md` in Auth Guide"),
        ("Glob", {"pattern": "*.py"}, "Finding files `*.py`"),
        ("LS", {"path": f"{CID}/docs"}, "Listing Auth Guide/docs"),
        ("LS", {}, "Listing the sandbox"),
        ("WebFetch", {}, "Fetching a web page"),
        ("WebFetch", {"url": ""}, "Fetching a web page"),
        ("WebSearch", {"query": "jwt expiry"}, "Searching the web for `jwt expiry`"),
        ("Task", {"description": "Survey", "subagent_type": "research", "prompt": "p"}, "Sub-agent: Survey"),
        ("Task", {"subagent_type": "research", "prompt": "p"}, "Sub-agent: research"),
        ("Agent", {"prompt": "Read the tokens file"}, "Sub-agent: Read the tokens file"),
        ("Agent", {}, "Sub-agent: task"),
        ("Bash", {"command": "  grep -rn JWT .\nwc -l"}, "Running `grep -rn JWT .`"),
        ("Bash", {}, "Running ``"),
        ("Edit", {"file_path": f"{CID}/auth.md"}, "Editing Auth Guide/auth.md"),
        ("MultiEdit", {"file_path": "notes.md"}, "Editing notes.md"),
        ("NotebookEdit", {"notebook_path": "a.ipynb"}, "Editing a.ipynb"),
        ("Write", {"path": "out.md"}, "Writing out.md"),
        ("Write", {}, "Writing a file"),
        ("Edit", {}, "Editing a file"),
        ("TodoWrite", {"todos": []}, "Updating the plan"),
        ("mcp__vector", {}, "Using vector"),
        ("mcp__vector__", {}, "Using vector"),
        ("mcp__vector__search__code", {}, "Using search__code (vector)"),
        ("", {}, "Using a tool"),
        (None, None, "Using a tool"),
        ("read", {"file_path": "a.md"}, "Using read"),
    ],
)
def test_each_tool_reads_as_its_own_step(name, tool_input, step):
    """Each tool call becomes the sentence a person reads in the timeline."""
    assert describe_tool(name, tool_input, TITLES, SANDBOX) == step


def test_tool_input_that_is_not_an_object_reads_without_details():
    """An input that is a list or text is ignored; the tool's wording stays."""
    assert describe_tool("Read", ["a.md"]) == "Reading a file"
    assert describe_tool("Grep", "JWT") == "Searching for ``"


class _Unprintable:
    def __str__(self) -> str:
        raise RuntimeError("no text")


def test_a_description_that_fails_falls_back_to_the_tool_name():
    """A value that cannot be shown still gives "Using <tool>", never an exception."""
    assert describe_tool("Read", {"file_path": _Unprintable()}) == "Using Read"
    assert describe_tool(7, {"file_path": _Unprintable()}) == "Using 7"


@pytest.mark.parametrize(
    ("name", "key", "room"),
    [("Grep", "pattern", 50), ("Glob", "pattern", 50), ("WebSearch", "query", 60)],
)
def test_patterns_and_queries_are_clipped_at_their_width(name, key, room):
    """A value exactly as wide as its room is kept; one character more is cut with "…"."""
    fits, over = "p" * room, "p" * (room + 1)
    assert f"`{fits}`" in describe_tool(name, {key: fits})
    assert f"`{'p' * (room - 1)}…`" in describe_tool(name, {key: over})


def test_glob_filter_is_clipped_at_30():
    assert describe_tool("Grep", {"pattern": "x", "glob": "g" * 30}) == "Searching for `x` in " + "g" * 30
    assert (
        describe_tool("Grep", {"pattern": "x", "glob": "g" * 31}) == "Searching for `x` in " + "g" * 29 + "…"
    )


def test_url_is_clipped_at_85():
    url = "https://example.com/" + "a" * 65
    assert describe_tool("WebFetch", {"url": url}) == f"Fetching {url}"
    assert describe_tool("WebFetch", {"url": url + "b"}) == f"Fetching {url[:84]}…"


@pytest.mark.parametrize(("name", "key"), [("Task", "description"), ("Bash", "command")])
def test_sub_agent_and_command_are_clipped_at_80(name, key):
    label = describe_tool(name, {key: "w" * 80})
    assert "w" * 80 in label and "…" not in label
    assert "w" * 79 + "…" in describe_tool(name, {key: "w" * 81})


def test_whole_step_is_clipped_at_100():
    """The step itself, path included, is never wider than 100 characters."""
    step = describe_tool("Grep", {"pattern": "p" * 50, "path": "d" * 90})
    assert len(step) == 100
    assert step.endswith("…")
    assert step.startswith("Searching for `" + "p" * 50 + "` in …")


# -- display_path -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        (f"{SANDBOX}/{CID}/docs/auth.md", "Auth Guide/docs/auth.md"),
        (f"{SANDBOX}/", ""),
        (SANDBOX, ""),
        (f"{SANDBOX}/.", ""),
        (f"{SANDBOX}/./{CID}//a.md", "Auth Guide/a.md"),
        (f"{SANDBOX}/notes/a.md", "notes/a.md"),
        (f"{SANDBOX}x/a.md", f"{SANDBOX}x/a.md"),
        ("/etc/hosts", "/etc/hosts"),
        ("/", "/"),
        ("./a.md", "./a.md"),
        ("  a.md  ", "a.md"),
        (f"{CID}\\docs\\a.md", "Auth Guide/docs/a.md"),
        (f"{CID.upper()}/a.md", "Auth Guide/a.md"),
        (f"{CID}", "Auth Guide"),
        (f"{CID}/", "Auth Guide"),
        (f"{OTHER}/a.md", "0b9c8d7e…/a.md"),
        # Relative: the content folder comes first; absolute: it is the innermost id.
        (f"{OTHER}/{SESSION}/a.md", "0b9c8d7e…/7d1e5a20-4c3b-4a2b-8c3d-5e6f708192a3/a.md"),
        (f"/x/{SESSION}/{OTHER}/a.md", "0b9c8d7e…/a.md"),
        # A known content id wins wherever it is.
        (f"/x/{CID}/{OTHER}/a.md", f"Auth Guide/{OTHER}/a.md"),
        (f"{OTHER}/{CID}/a.md", "Auth Guide/a.md"),
        (None, ""),
        ("", ""),
        (7, "7"),
    ],
)
def test_display_path(path, shown):
    """Sandbox prefix removed, the content folder named by its title or its first 8 hex digits."""
    assert display_path(path, TITLES, SANDBOX) == shown


def test_display_path_sandbox_written_with_a_trailing_slash():
    assert display_path(f"{SANDBOX}/{CID}/a.md", TITLES, SANDBOX + "/") == "Auth Guide/a.md"
    assert display_path(f"{SANDBOX}/{CID}/a.md", TITLES, "/") == "Auth Guide/a.md"


def test_display_path_titles_keyed_by_the_id_as_written():
    """A titles table keyed in capitals still names the folder written in capitals."""
    upper = CID.upper()
    assert display_path(f"{upper}/a.md", {upper: "Upper"}) == "Upper/a.md"
    assert display_path(f"{CID}/a.md", {upper: "Upper"}) == "3f2a9c1e…/a.md"


def test_blank_or_missing_titles_fall_back_to_the_short_id():
    assert display_path(f"{CID}/a.md", {CID: "   "}) == "3f2a9c1e…/a.md"
    assert display_path(f"{CID}/a.md", {CID: 5}) == "3f2a9c1e…/a.md"  # type: ignore[dict-item]
    assert display_path(f"{CID}/a.md", {}) == "3f2a9c1e…/a.md"
    assert display_path(f"{CID}/a.md", None) == "3f2a9c1e…/a.md"


def test_title_is_clipped_at_40():
    assert display_path(f"{CID}/a.md", {CID: "T" * 40}) == "T" * 40 + "/a.md"
    assert display_path(f"{CID}/a.md", {CID: "T" * 41}) == "T" * 39 + "…/a.md"


def test_long_path_keeps_its_end():
    """A path longer than its room keeps its last characters after "…"."""
    path = "d/" * 40 + "file.md"  # 87 characters
    assert display_path(path) == "…" + path[-79:]
    assert display_path(path[-80:]) == path[-80:]
    assert display_path(path, room=10) == "…" + path[-9:]
    assert display_path("abc", room=1) == "…"
    assert display_path("abc", room=2) == "…c"
    assert display_path("ab", room=2) == "ab"


def test_path_after_the_title_gets_the_room_left():
    """After "<title>/" the rest gets the room left (at least 10 characters)."""
    rest = "r" * 100
    assert display_path(f"{CID}/{rest}", TITLES) == "Auth Guide/…" + "r" * 68
    assert display_path(f"{CID}/{'r' * 69}", TITLES) == "Auth Guide/" + "r" * 69
    assert display_path(f"{CID}/{rest}", TITLES, room=12) == "Auth Guide/…" + "r" * 9
    assert display_path(f"{CID}/{rest}", TITLES, room=30) == "Auth Guide/…" + "r" * 18


@given(st.lists(st.sampled_from(["a", "docs", "x.md", ".", "", CID, OTHER]), min_size=1, max_size=30))
def test_display_path_is_bounded_and_keeps_the_file_name(parts):
    """Whatever the path, the shown form fits its room and ends as the path does."""
    path = "/".join([*parts, "end.md"])
    shown = display_path(path, TITLES)
    assert len(shown) <= 80
    assert shown.endswith("end.md")


# -- result_preview -----------------------------------------------------------------


def test_result_preview_of_text_at_the_limit():
    assert result_preview("y" * 500) == ("y" * 500, False)
    assert result_preview("y" * 501) == ("y" * 500, True)


def test_result_preview_of_blocks():
    """Text blocks are joined by newlines, other blocks show their type, anything else as text."""
    content = [
        {"type": "text", "text": "one"},
        {"kind": "x"},
        {"type": ""},
        "two",
        3,
        {"type": "tool_reference"},
    ]
    assert result_preview(content) == ("one\n[block]\n[block]\ntwo\n3\n[tool_reference]", False)


def test_result_preview_of_a_long_text_block():
    assert result_preview([{"type": "text", "text": "y" * 500}]) == ("y" * 500, False)
    assert result_preview([{"type": "text", "text": "y" * 501}]) == ("y" * 500, True)
    assert result_preview(["y" * 501]) == ("y" * 500, True)


def test_result_preview_stops_reading_blocks_once_full():
    """Blocks past the first 500 characters are not read; the preview says it was cut."""
    blocks = [{"type": "text", "text": "a" * 300}, {"type": "text", "text": "b" * 201}]
    assert result_preview(blocks) == ("a" * 300 + "\n" + "b" * 199, True)
    blocks = [{"type": "text", "text": "a" * 250}, {"type": "text", "text": "b" * 250}]
    assert result_preview(blocks) == ("a" * 250 + "\n" + "b" * 249, True)
    blocks = [{"type": "text", "text": "a" * 250}, {"type": "text", "text": "b" * 249}]
    assert result_preview(blocks) == ("a" * 250 + "\n" + "b" * 249, False)
    # 501 characters read already: the next block is not read, but counts as cut.
    blocks = [{"type": "text", "text": "a" * 501}, {"type": "text", "text": "b"}]
    assert result_preview(blocks) == ("a" * 500, True)


def test_result_preview_stops_after_more_than_500_characters_of_small_blocks():
    blocks = [{"type": "text", "text": "a" * 100}] * 5 + [{"type": "text", "text": "b"}]
    text, cut = result_preview(blocks)
    assert cut is True
    assert text == "\n".join(["a" * 100] * 5)[:500]
    blocks = [{"type": "text", "text": "a" * 101}] * 5 + [{"type": "text", "text": "z"}]
    assert "z" not in result_preview(blocks)[0]
    assert result_preview(blocks)[1] is True


def test_result_preview_of_other_values():
    assert result_preview(None) == ("", False)
    assert result_preview(42) == ("42", False)
    assert result_preview({"a": 1}) == ("{'a': 1}", False)
    assert result_preview("a\x00b") == ("a\ufffdb", False)
    assert result_preview([]) == ("", False)


# -- system, other and result lines -------------------------------------------------


@pytest.mark.parametrize(
    ("data", "subtype", "detail"),
    [
        (
            {"model": "claude-sonnet-4-5", "tools": ["Read", "Grep"]},
            "init",
            "Engine started · claude-sonnet-4-5 · 2 tools",
        ),
        ({"model": "m", "tools": []}, "init", "Engine started · m · 0 tools"),
        ({"tools": "Read"}, "init", "Engine started"),
        ({"model": 3, "tools": ["Read"]}, "init", "Engine started · 1 tools"),
        ({}, "init", "Engine started"),
        (
            {"hook_name": "SessionStart:startup", "hook_event": "SessionStart"},
            "hook_started",
            "Hook started: SessionStart:startup",
        ),
        ({"hook_event": "SessionStart"}, "hook_progress", "Hook running: SessionStart"),
        ({}, "hook_progress", "Hook running: hook"),
        ({"hook_name": "Stop", "outcome": "success"}, "hook_response", "Hook Stop: success"),
        ({"hook_name": "Stop"}, "hook_response", "Hook Stop: done"),
        ({}, "hook_response", "Hook hook: done"),
        ({"status": "requesting"}, "status", "Status: requesting"),
        ({"status": None}, "status", "Status: idle"),
        ({"compact_metadata": {"trigger": "manual"}}, "compact_boundary", "Context compacted (manual)"),
        ({"compact_metadata": "x"}, "compact_boundary", "Context compacted (auto)"),
        (
            {"error": "overloaded", "attempt": 1, "max_retries": 10, "retry_delay_ms": 600},
            "api_retry",
            "API error (overloaded), retry 1/10 in 0.6 s",
        ),
        ({"error_status": 529, "retry_delay_ms": 1250.0}, "api_retry", "API error (529), retry ?/? in 1.2 s"),
        ({"retry_delay_ms": True}, "api_retry", "API error (unknown), retry ?/?"),
        ({"retry_delay_ms": "600"}, "api_retry", "API error (unknown), retry ?/?"),
        ({"content": "Compacting…"}, "informational", "Compacting…"),
        ({"content": "ls output"}, "local_command_output", "ls output"),
        ({}, "informational", "Engine notice"),
        (
            {"description": "Survey", "summary": "s", "task_id": "t1"},
            "task_started",
            "Sub-agent started: Survey",
        ),
        ({"summary": "Reading files", "task_id": "t1"}, "task_progress", "Sub-agent working: Reading files"),
        ({"task_id": "t1", "status": "completed"}, "task_notification", "Sub-agent completed: t1"),
        ({}, "task_notification", "Sub-agent notification: task"),
        ({"estimated_tokens": 1200}, "thinking_tokens", "Thinking… (~1200 tokens)"),
        ({"estimated_tokens": True}, "thinking_tokens", "Thinking…"),
        ({"estimated_tokens": 12.5}, "thinking_tokens", "Thinking…"),
        ({}, "files_persisted", "System event: files_persisted"),
        ({}, "", "System event: unknown"),
    ],
)
def test_system_detail(data, subtype, detail):
    """Each system subtype has its own line; missing fields have a readable fallback."""
    assert system_detail(data, subtype) == detail


def test_system_details_are_clipped_to_100():
    long = "n" * 200
    for data, subtype in [
        ({"model": long}, "init"),
        ({"hook_name": long}, "hook_started"),
        ({"hook_name": long}, "hook_response"),
        ({"status": long}, "status"),
        ({"compact_metadata": {"trigger": long}}, "compact_boundary"),
        ({"error": long}, "api_retry"),
        ({"content": long}, "informational"),
        ({"description": long}, "task_started"),
        ({"estimated_tokens": 10**120}, "thinking_tokens"),
        ({}, long),
    ]:
        detail = system_detail(data, subtype)
        assert len(detail) == 100 and detail.endswith("…"), subtype


@pytest.mark.parametrize(
    ("data", "kind", "detail"),
    [
        ({"rate_limit_info": {"status": "allowed"}}, "rate_limit_event", "Rate limit status: allowed"),
        ({"rate_limit_info": []}, "rate_limit_event", "Rate limit status: unknown"),
        ({"tool_name": "Task", "elapsed_time_seconds": 4.4}, "tool_progress", "Still running Task (4 s)"),
        ({"tool_name": "Bash", "elapsed_time_seconds": 61}, "tool_progress", "Still running Bash (61 s)"),
        ({"elapsed_time_seconds": True}, "tool_progress", "Still running a tool"),
        ({"elapsed_time_seconds": "4"}, "tool_progress", "Still running a tool"),
        ({"summary": "Read 2 files"}, "tool_use_summary", "Read 2 files"),
        ({}, "tool_use_summary", "Tool summary"),
        ({}, "keep_alive", "Engine event: keep_alive"),
        ({}, "", "Engine event: untyped line"),
    ],
)
def test_other_detail(data, kind, detail):
    assert other_detail(data, kind) == detail


def test_other_details_are_clipped_to_100():
    long = "n" * 200
    for data, kind in [
        ({"rate_limit_info": {"status": long}}, "rate_limit_event"),
        ({"tool_name": long}, "tool_progress"),
        ({"summary": long}, "tool_use_summary"),
        ({}, long),
    ]:
        detail = other_detail(data, kind)
        assert len(detail) == 100 and detail.endswith("…"), kind


@pytest.mark.parametrize(
    ("args", "detail"),
    [
        ((False, 18_200, 3, 0.0421, [], "answer", "success"), "Completed in 18.2 s · 3 turns · $0.0421"),
        ((False, None, None, None, [], None, "success"), "Completed"),
        ((False, 950, 0, None, [], None, "success"), "Completed in 0.9 s · 0 turns"),
        ((False, None, 2, 0.5, [], None, "success"), "Completed · 2 turns · $0.5000"),
        ((True, 10, 1, 0.1, ["Reached maximum number of turns (1)", "b"], "t", "error_max_turns"),
         "Failed: Reached maximum number of turns (1)"),
        ((True, 10, 1, 0.1, [], "Invalid API key", "success"), "Failed: Invalid API key"),
        ((True, None, None, None, [], None, "error_during_execution"), "Failed: error_during_execution"),
        ((True, None, None, None, [], "", ""), "Failed: unknown error"),
    ],
)  # fmt: skip
def test_result_detail(args, detail):
    assert result_detail(*args) == detail


def test_result_detail_is_clipped_to_100():
    assert result_detail(True, None, None, None, ["e" * 200], None, "") == "Failed: " + "e" * 91 + "…"
    assert len(result_detail(False, 10**120, 1, None, [], None, "success")) == 100


# -- clip ---------------------------------------------------------------------------


def test_clip_at_its_limit():
    assert clip("x" * 100) == "x" * 100
    assert clip("x" * 101) == "x" * 99 + "…"
    assert clip("x" * 10, 10) == "x" * 10
    assert clip("x" * 11, 10) == "x" * 9 + "…"
    assert clip("abcd efgh", 6) == "abcd…"  # no blank before the "…"
    assert clip(12345, 3) == "12…"


def test_clip_reads_only_four_times_its_limit():
    """Whitespace far past the limit is not scanned: the cut is made on the first 4×limit characters."""
    assert clip("a" + " " * 38 + "b", 10) == "a b"
    assert clip("a" + " " * 39 + "b", 10) == "a"


# -- lines that are not JSON, and payloads ---------------------------------------------


def test_banner_detail_comes_from_the_first_1000_characters():
    """A plain-text line is labelled from its first 1000 characters, colour codes removed."""
    from core.stream import StreamInterpreter

    colours = "\x1b[0m" * 250  # 1000 characters that show nothing
    (event,) = StreamInterpreter().feed(colours + "Banner")
    assert event.detail == "…"
    (event,) = StreamInterpreter().feed(colours[4:] + "Banner")
    assert event.detail == "Bann"
    assert event.payload["text"] == colours[4:] + "Banner"


def test_compact_turns_subclasses_into_plain_json_values():
    """Values of subclasses (an IntEnum, an OrderedDict, a str subclass) come out as the plain type."""
    import enum
    from collections import OrderedDict

    from core.stream.events import compact

    class Level(enum.IntEnum):
        HIGH = 3

    class Name(str):
        pass

    out = compact({"level": Level.HIGH, "order": OrderedDict(a=1), "name": Name("x" * 600), "flag": True})
    assert out == {"level": 3, "order": {"a": 1}, "name": "x" * 500 + "…[600 chars]", "flag": True}
    assert type(out["level"]) is int
    assert type(out["order"]) is dict


THIRD = "c0ffee00-1234-4abc-8def-0123456789ab"


@pytest.mark.parametrize(
    ("path", "titles", "sandbox", "shown"),
    [
        # The sandbox written with a trailing slash is still the sandbox.
        (f"{SANDBOX}/notes/a.md", TITLES, SANDBOX + "/", "notes/a.md"),
        # A sandbox whose name ends in a capital letter.
        ("/tmp/research-X/notes.md", None, "/tmp/research-X", "notes.md"),
        # A folder whose name starts with a capital X stays whole.
        (f"{SANDBOX}/XML/schema.md", None, SANDBOX, "XML/schema.md"),
        # A known content id written in capitals is found after an unknown one.
        (f"{OTHER}/{CID.upper()}/a.md", TITLES, None, "Auth Guide/a.md"),
        # Three ids in an absolute path, none known: the innermost is the content folder.
        (f"/x/{SESSION}/{OTHER}/{THIRD}/a.md", None, None, "c0ffee00…/a.md"),
        # Two ids in a relative path, none known: the first is.
        (f"{THIRD}/{OTHER}/a.md", None, None, f"c0ffee00…/{OTHER}/a.md"),
    ],
)
def test_display_path_finds_the_sandbox_and_the_content_folder(path, titles, sandbox, shown):
    assert display_path(path, titles, sandbox) == shown


def test_retry_delay_in_seconds():
    assert (
        system_detail({"retry_delay_ms": 100_000}, "api_retry") == "API error (unknown), retry ?/? in 100.0 s"
    )


def test_task_started_and_progress_say_so_whatever_their_status():
    data = {"description": "Survey", "status": "running"}
    assert system_detail(data, "task_started") == "Sub-agent started: Survey"
    assert system_detail(data, "task_progress") == "Sub-agent working: Survey"
    assert system_detail(data, "task_notification") == "Sub-agent running: Survey"


def test_result_preview_of_a_long_object_is_cut_at_500():
    content = {"k": "v" * 600}
    assert result_preview(content) == (repr(content)[:500], True)


# -- compact: the bounded copy of a line kept in payloads --------------------------------------


def test_compact_cuts_strings_at_their_limit():
    from core.stream.events import compact

    assert compact("s" * 500) == "s" * 500
    assert compact("s" * 501) == "s" * 500 + "…[501 chars]"
    assert compact("s" * 11, max_str=10) == "s" * 10 + "…[11 chars]"
    assert compact(["s" * 11], max_str=10) == ["s" * 10 + "…[11 chars]"]
    assert compact({"k": {"k": "s" * 11}}, max_str=10) == {"k": {"k": "s" * 10 + "…[11 chars]"}}
    assert compact("a\x00b") == "a\ufffdb"


def test_compact_keeps_50_items_and_says_how_many_more():
    from core.stream.events import compact

    assert compact(list(range(50))) == list(range(50))
    assert compact(list(range(51))) == [*range(50), "… 1 more items"]
    assert compact(tuple(range(3))) == [0, 1, 2]
    keys = {f"k{i}": i for i in range(50)}
    assert compact(keys) == keys
    assert compact({**keys, "k50": 50, "k51": 51}) == {**keys, "…": "2 more keys"}


def test_compact_cuts_keys_at_100_characters():
    from core.stream.events import compact

    assert compact({"k" * 101: 1, 7: 2}) == {"k" * 100: 1, "7": 2}


def test_compact_stops_at_depth_5():
    from core.stream.events import compact

    assert compact([[[[["bottom"]]]]]) == [[[[["bottom"]]]]]
    assert compact([[[[[["bottom"]]]]]]) == [[[[["…"]]]]]
    assert compact({"a": {"b": {"c": {"d": {"e": {"f": 1}}}}}}) == {"a": {"b": {"c": {"d": {"e": "…"}}}}}
    # Scalars are kept at any depth; only containers are cut.
    assert compact([[[[[1, None, True, 2.5]]]]]) == [[[[[1, None, True, 2.5]]]]]


def test_compact_values_that_are_not_json():
    from core.stream.events import compact

    assert compact(float("inf")) is None
    assert compact(1.5) == 1.5
    assert compact(b"raw") == "b'raw'"
    assert compact(object.__new__(_Long)) == "L" * 499 + "…"


class _Long:
    def __repr__(self) -> str:
        return "L" * 600


def test_result_duration_in_seconds():
    assert result_detail(False, 100_000, None, None, [], None, "success") == "Completed in 100.0 s"


def test_compact_of_subclasses_keeps_the_limits_it_was_given():
    from collections import OrderedDict

    from core.stream.events import compact

    class Name(str):
        pass

    assert compact([Name("x" * 11)], max_str=10) == ["x" * 10 + "…[11 chars]"]
    assert compact([[[[OrderedDict(a=[1])]]]]) == [[[[{"a": "…"}]]]]


# -- parse_line: every field of the parsed line, for each kind of line -------------------------

from core.stream.lines import ParsedLine, parse_line  # noqa: E402


@pytest.mark.parametrize(
    ("line", "parsed"),
    [
        ("plain text", ParsedLine("", "", None, "plain text")),
        ("[SandboxDebug] seccomp", ParsedLine("", "", None, "[SandboxDebug] seccomp")),
        ("[1, 2", ParsedLine("", "", None, "[1, 2")),
        ('  {"type": "system"}', ParsedLine("system", "", {"type": "system"}, '  {"type": "system"}')),
        ('\ufeff {"type": "x"}\r', ParsedLine("x", "", {"type": "x"}, ' {"type": "x"}')),
        ("tail\r", ParsedLine("", "", None, "tail")),
        ("tail \r\n", ParsedLine("", "", None, "tail ")),
        (
            '{"a": 1} x',
            ParsedLine(
                "",
                "",
                None,
                '{"a": 1} x',
                "The line starts with '{' but is not valid JSON (Extra data, character 8).",
            ),
        ),
        ("[1]", ParsedLine("", "", None, "[1]", "The line is JSON but not an object (it is a list).")),
        (
            "[" * 100_000,
            ParsedLine("", "", None, "[" * 100_000, "The line is JSON nested too deeply to parse."),
        ),
        (None, ParsedLine("", "", None, "")),
        (5, ParsedLine("", "", None, "5")),
        (bytearray(b'{"type": "user"}'), ParsedLine("user", "", {"type": "user"}, '{"type": "user"}')),
    ],
)
def test_parse_line_fields(line, parsed):
    assert parse_line(line) == parsed


def test_parse_line_of_a_number_too_long_to_read():
    line = '{"n": ' + "9" * 5000 + "}"
    parsed = parse_line(line)
    assert (parsed.type, parsed.subtype, parsed.data, parsed.raw) == ("", "", None, line)
    assert parsed.error.startswith("The line could not be parsed as JSON (Exceeds the limit")


def test_parse_line_of_a_value_that_cannot_be_read():
    assert parse_line(_Unprintable()) == ParsedLine(
        "", "", None, "", "The line could not be read (RuntimeError)."
    )
