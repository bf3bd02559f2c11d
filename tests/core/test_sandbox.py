"""The one sandbox resolver: nothing outside the sandbox is ever returned."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.ingest import clean_filename
from core.sandbox import (
    MANIFEST_NAME,
    SandboxError,
    SandboxResolver,
    check_name,
    default_state_dir,
    ensure_layout,
    instructions_text,
    is_private,
    move_legacy_state,
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


# The sandbox's layout: the manifest as written and read, the agent
# instructions listing the content, the private state's place, and the move of an
# older version's private folder out of the sandbox.


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


def _outcome(resolve, path):
    try:
        return resolve(path)
    except SandboxError as error:
        return str(error)


def _symlinked_tree(root, tmp_path):
    """A sub-folder and symlinks of every kind in the sandbox's item: to a file and a folder
    out of the sandbox, to a file and a folder inside it, a chain, a dangling one, a relative one."""
    (root / "item" / "sub").mkdir()
    (root / "item" / "sub" / "deep.md").write_text("deep\n")
    (tmp_path / "secret.txt").write_text("secret\n")
    os.symlink(tmp_path / "secret.txt", root / "item" / "out.txt")
    os.symlink(tmp_path / "secret-dir", root / "item" / "outdir")
    os.symlink(root / "item" / "notes.md", root / "item" / "alias.md")
    os.symlink(root / "item" / "sub", root / "item" / "subalias")
    os.symlink(root / "item" / "out.txt", root / "item" / "chain.txt")
    os.symlink(root / "item" / "gone.md", root / "item" / "dangling.md")
    os.symlink("../item/sub/deep.md", root / "item" / "sub" / "rel.md")


def test_resolving_many_paths_at_once_answers_as_one_at_a_time(root, tmp_path):
    """One SandboxResolver, reused for every path (its folders resolved once), returns what
    resolve_in_sandbox returns and refuses what it refuses, with the same message: hostile
    paths, missing files, files and folders symlinked inside the sandbox or out of it."""
    _symlinked_tree(root, tmp_path)
    paths = [
        *HOSTILE,
        "item/notes.md",
        "item/./notes.md",
        "item//notes.md",
        "item/missing.md",
        "missing/folder/x.md",
        "item/notes.md/x",
        "item",
        "item/out.txt",
        "item/outdir/key",
        "item/outdir",
        "item/alias.md",
        "item/subalias/deep.md",
        "item/chain.txt",
        "item/sub/rel.md",
        "item/sub/deep.md",
    ]
    resolver = SandboxResolver(root)
    for path in paths + paths:  # the second time from resolved folders
        assert _outcome(resolver.resolve, path) == _outcome(lambda p: resolve_in_sandbox(root, p), path), path
        # The string it gives verification is that path's text, refused alike.
        expected = _outcome(lambda p: str(resolve_in_sandbox(root, p)), path)
        assert _outcome(resolver.real_path, path) == expected, path


def test_real_file_answers_as_real_path_then_isfile(root, tmp_path):
    """SandboxResolver.real_file gives real_path's answer (or its refusal, with the same
    message) and whether os.path.isfile holds there, from one lstat: for files, folders,
    missing paths, and symlinks to files and folders inside the sandbox, dangling, or out."""
    _symlinked_tree(root, tmp_path)
    paths = [
        *HOSTILE,
        "item/notes.md",
        "item//notes.md",
        "item/missing.md",
        "item/notes.md/x",
        "item",
        "item/sub",
        "item/out.txt",
        "item/alias.md",
        "item/subalias",
        "item/subalias/deep.md",
        "item/dangling.md",
        "item/sub/rel.md",
    ]
    resolver = SandboxResolver(root)
    for path in paths + paths:  # the second time from resolved folders
        real = _outcome(resolver.real_path, path)  # the real path, or the refusal's message
        answer = _outcome(resolver.real_file, path)
        refused = isinstance(answer, str)
        assert answer == (real if refused else (real, os.path.isfile(real))), path
    assert resolver.real_file("item/notes.md")[1] is True
    assert resolver.real_file("item/alias.md")[1] is True
    assert resolver.real_file("item/sub")[1] is False
    assert resolver.real_file("item/missing.md")[1] is False
    assert resolver.real_file("item/dangling.md")[1] is False
