"""The one sandbox resolver: nothing outside the sandbox is ever returned."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.ingest import clean_filename
from core.sandbox import (
    SandboxError,
    check_name,
    read_manifest,
    resolve_in_sandbox,
    write_instructions,
    write_manifest,
)

HOSTILE = [
    "..",
    "../etc/passwd",
    "a/../../etc/passwd",
    "a/b/../../../x",
    "/etc/passwd",
    "//etc/passwd",
    "C:/Windows/win.ini",
    "a\x00b",
    "x/\x00/y",
    "..\\..\\etc\\passwd",
    "a\\..\\b",
    "%2e%2e/%2e%2e/etc/passwd",
    "a/%2e%2e%2f%2e%2e%2fetc",
    "..%2f..%2fetc%2fpasswd",
    "．．/．．/etc/passwd",  # fullwidth full stops
    "a／..／..／etc",  # fullwidth solidus
    "‥/etc",  # two-dot leader
    "a/" + "b" * 300,
    "x/" * 600,
    "",
    ".",
    "./",
    "a/\x07bell",
]


@pytest.fixture
def root(tmp_path):
    sandbox = tmp_path / "sandbox"
    (sandbox / "item").mkdir(parents=True)
    (sandbox / "item" / "notes.md").write_text("hello\n")
    (tmp_path / "secret.txt").write_text("top secret\n")
    (tmp_path / "secret-dir").mkdir()
    (tmp_path / "secret-dir" / "key").write_text("k\n")
    return sandbox


@pytest.mark.parametrize("path", HOSTILE)
def test_hostile_paths_are_refused(root, path):
    """Traversal, absolute, NUL, backslash, encoded, look-alike and over-long paths raise SandboxError."""
    with pytest.raises(SandboxError):
        resolve_in_sandbox(root, path)


def test_plain_relative_path_resolves_inside(root):
    """An ordinary path resolves to the file below the sandbox."""
    assert resolve_in_sandbox(root, "item/notes.md") == (root / "item" / "notes.md").resolve()


def test_symlink_to_outside_file_is_refused(root, tmp_path):
    """A symlink whose target is a file outside the sandbox is refused."""
    os.symlink(tmp_path / "secret.txt", root / "item" / "link.txt")
    with pytest.raises(SandboxError):
        resolve_in_sandbox(root, "item/link.txt")


def test_symlinked_directory_escape_is_refused(root, tmp_path):
    """A symlinked directory that leads outside cannot be walked through."""
    os.symlink(tmp_path / "secret-dir", root / "item" / "dir")
    with pytest.raises(SandboxError):
        resolve_in_sandbox(root, "item/dir/key")


def test_symlink_inside_sandbox_is_allowed(root):
    """A symlink that stays inside the sandbox resolves to its real target."""
    os.symlink(root / "item" / "notes.md", root / "item" / "alias.md")
    assert resolve_in_sandbox(root, "item/alias.md") == (root / "item" / "notes.md").resolve()


def test_sandbox_root_that_is_a_symlink_still_works(tmp_path, root):
    """The root itself may be reached through a symlink (realpath on both sides)."""
    os.symlink(root, tmp_path / "root-link")
    assert resolve_in_sandbox(tmp_path / "root-link", "item/notes.md").read_text() == "hello\n"


path_chars = st.sampled_from([*"ab./\\%2e\x00．／‥:~ ", "..", "../", "%2f", "/..", "C:"])


@settings(
    max_examples=int(os.environ.get("SANDBOX_EXAMPLES", 10_000)),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.lists(path_chars, max_size=30).map("".join) | st.text(max_size=60))
def test_property_nothing_outside_is_ever_returned(root, path):
    """For any generated path, the resolver either refuses or returns a path inside the sandbox."""
    real_root = os.path.realpath(root)
    try:
        result = resolve_in_sandbox(root, path)
    except SandboxError:
        return
    assert os.path.commonpath([real_root, str(result)]) == real_root
    assert Path(result).resolve() == Path(result)


def test_manifest_round_trip(tmp_path):
    """The manifest maps content ids to their metadata and reads back the same."""
    items = {"3f2a": {"title": "Notes", "source_url": "", "kind": "text", "added_at": "2026-01-01"}}
    write_manifest(tmp_path, items)
    assert read_manifest(tmp_path) == items


def test_broken_manifest_reads_as_empty(tmp_path):
    """A corrupted manifest does not crash readers."""
    (tmp_path / "_content_manifest.json").write_text("{not json")
    assert read_manifest(tmp_path) == {}


def test_instructions_list_content_and_citation_rules(tmp_path):
    """CLAUDE.md lists every content item and asks for [cN], the CITATIONS block and PROGRESS markers."""
    write_instructions(tmp_path, {"3f2a9c1e-aaaa": {"title": "Auth notes", "kind": "text"}})
    text = (tmp_path / "CLAUDE.md").read_text()
    assert "`3f2a9c1e-aaaa/` — Auth notes" in text
    assert "<!-- CITATIONS:" in text and "<!-- PROGRESS:" in text and "[c1]" in text


def test_instructions_show_every_marker_in_fenced_code_and_the_example_parses(tmp_path):
    """Claude Code strips HTML comments from CLAUDE.md outside code: every
    <!-- … --> the model must reproduce sits in a fenced block, and the
    CITATIONS example there is one our parser reads as a citation."""
    from core.citations.parsing import parse_citations
    from core.sandbox import instructions_text

    text = instructions_text({"3f2a9c1e-aaaa-4bbb-8ccc-000000000001": {"title": "Notes", "kind": "text"}})
    outside, fences, inside = [], [], False
    for line in text.splitlines():
        if line.startswith("```"):
            inside = not inside
            fences.append([]) if inside else None
            continue
        (fences[-1] if inside else outside).append(line)
    assert not inside and len(fences) == 2
    assert "<!--" not in "\n".join(outside)
    example = "\n".join(fences[0])
    assert example.startswith("<!-- CITATIONS: [") and fences[1][0].startswith("<!-- PROGRESS: {")
    parsed = parse_citations("A claim [c1].\n\n" + example)
    (citation,) = parsed.citations
    assert citation.source_path == "3f2a9c1e-aaaa-4bbb-8ccc-000000000001/notes.md"
    assert (citation.line_start, citation.line_end, citation.relevance) == (45, 52, "direct")


@settings(max_examples=2_000, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(st.sampled_from([*'ab.%2fF5cCeE0/\\"?*: ', "%2F", "%2e%2e", "..", "%00", "é"]), max_size=20).map(
        "".join
    )
)
def test_property_every_cleaned_upload_name_is_reachable(tmp_path_factory, raw):
    """Whatever name an upload is stored under, the resolver reaches that very
    file: the viewer, the raw download and citations go through it."""
    root = tmp_path_factory.mktemp("names")
    name = clean_filename(raw)
    (root / name).write_text("x")
    assert resolve_in_sandbox(root, name) == (root / name).resolve()


@pytest.mark.parametrize("name", ["100%2F.txt", "a%2Fb.md", "50%25 off.txt", "quote%22d.txt", "%2e%2ehidden"])
def test_names_holding_percent_escapes_resolve_as_themselves(root, name):
    """A literal escape in a stored name is part of the name (repositories hold such files)."""
    (root / "item" / name).write_text("x")
    assert resolve_in_sandbox(root, f"item/{name}") == (root / "item" / name).resolve()


@pytest.mark.parametrize("raw", ["..%2Fx.txt", "%2Fetc%2Fpasswd", "a%00.txt", "%2e%2e%2fsecret"])
def test_upload_names_that_decode_outside_lose_their_percent_signs(raw):
    """An upload name that would decode into a climb or an absolute path is kept
    readable with '_' for '%', never stored unreachable."""
    name = clean_filename(raw)
    assert "%" not in name
    check_name(name)
