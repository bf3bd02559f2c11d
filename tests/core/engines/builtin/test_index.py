"""The built-in engine's FTS5 index: what it reads, how it chunks, how it
stays up to date, and that questions never become FTS syntax."""

from __future__ import annotations

import os
import shutil
import sqlite3
import sys
from pathlib import Path

import pytest

# pytest-django puts the project on sys.path; these pure tests also run with
# `-p no:django`, so do it here.
sys.path.insert(0, str(Path(__file__).resolve().parents[4]))

from core.engines.builtin import build_index, reindex, search
from core.engines.builtin.chunking import chunk_lines
from core.engines.builtin.index import ensure_fresh, index_path, invalidate
from core.engines.builtin.scoped import ensure_index, scoped_files, scoped_hits
from core.sandbox import default_state_dir, write_instructions, write_manifest

CID = "3f2a9c1e-1111-2222-3333-444455556666"
OTHER = "9b8c7d6e-aaaa-bbbb-cccc-ddddeeeeffff"


def make_sandbox(root: Path, files: dict[str, str | bytes]) -> Path:
    """A sandbox with a manifest, CLAUDE.md and the given content files."""
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, str):
            path.write_text(data, encoding="utf-8")
        else:
            path.write_bytes(data)
    items = {CID: {"title": "Auth notes", "source_url": "", "kind": "file", "added_at": "2026-01-01"}}
    write_manifest(root, items)
    write_instructions(root, items)
    return root


def tree(root: Path) -> dict[str, tuple[int, int]]:
    """Every entry under ``root`` (hidden ones included) with its size and mtime."""
    found = {}
    for folder, dirs, names in os.walk(root):
        for name in dirs + names:
            path = Path(folder, name)
            st = path.lstat()
            found[path.relative_to(root).as_posix()] = (st.st_size, st.st_mtime_ns)
    return found


def bump_mtime(path: Path) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))


def test_first_build_indexes_every_content_file(tmp_path):
    """A fresh index holds every text file under the content folders."""
    make_sandbox(
        tmp_path, {f"{CID}/a.md": "alpha\n", f"{CID}/sub/b.txt": "beta\n", f"{OTHER}/c.md": "gamma\n"}
    )
    stats = build_index(tmp_path)
    assert stats.added == [f"{CID}/a.md", f"{CID}/sub/b.txt", f"{OTHER}/c.md"]
    assert index_path(tmp_path).exists()


def test_index_lives_in_the_state_folder_and_nothing_is_written_in_the_sandbox(tmp_path):
    """build_index(root, state=s) puts the index at s/index.sqlite3 and leaves the sandbox exactly as it was."""
    root = make_sandbox(tmp_path / "sandbox", {f"{CID}/a.md": "alpha\n", f"{OTHER}/b.md": "beta\n"})
    state = tmp_path / "state" / "session"
    before = tree(root)
    assert build_index(root, state=state).added == [f"{CID}/a.md", f"{OTHER}/b.md"]
    assert (state / "index.sqlite3").is_file() and index_path(root, state) == state / "index.sqlite3"
    assert search(root, "alpha", 5, state=state)[0].path == f"{CID}/a.md"
    assert reindex(root, full=True, state=state).added == [f"{CID}/a.md", f"{OTHER}/b.md"]
    assert tree(root) == before
    assert not default_state_dir(root).exists()  # the default folder is not touched either


def test_index_without_a_state_folder_goes_beside_the_sandbox(tmp_path):
    """With no state folder the index is in .state/<sandbox name> beside the sandbox, never inside it."""
    root = make_sandbox(tmp_path / "sandbox", {f"{CID}/a.md": "alpha\n"})
    before = tree(root)
    build_index(root)
    assert index_path(root) == tmp_path / ".state" / "sandbox" / "index.sqlite3"
    assert index_path(root).is_file()
    assert tree(root) == before


def test_each_state_folder_has_its_own_index(tmp_path):
    """Two state folders for one sandbox hold separate indexes; searches read only the one they are given."""
    root = make_sandbox(tmp_path / "sandbox", {f"{CID}/a.md": "alpha\n"})
    first, second = tmp_path / "one", tmp_path / "two"
    ensure_index(root, state=first)
    assert scoped_files(root, [CID], state=first) == [f"{CID}/a.md"]
    assert scoped_files(root, [CID], state=second) == []
    assert scoped_hits(root, "alpha", [CID], state=second) == []
    ensure_index(root, state=second)
    assert scoped_hits(root, "alpha", [CID], state=second)[0].path == f"{CID}/a.md"
    assert not (root / ".researchmind").exists()


def test_unchanged_sandbox_reindexes_nothing(tmp_path):
    """A second build with no change reads no file."""
    make_sandbox(tmp_path, {f"{CID}/a.md": "alpha\n", f"{CID}/b.md": "beta\n"})
    build_index(tmp_path)
    stats = build_index(tmp_path)
    assert stats.reindexed == [] and stats.removed == [] and stats.unchanged == 2


def test_added_changed_and_removed_files_are_the_only_ones_reindexed(tmp_path):
    """Adding, changing and removing one file each touches just those three."""
    make_sandbox(
        tmp_path, {f"{CID}/keep.md": "keep\n", f"{CID}/edit.md": "old words\n", f"{CID}/gone.md": "bye\n"}
    )
    build_index(tmp_path)
    (tmp_path / CID / "edit.md").write_text("new wording entirely\n")
    bump_mtime(tmp_path / CID / "edit.md")
    (tmp_path / CID / "gone.md").unlink()
    (tmp_path / CID / "new.md").write_text("fresh\n")
    stats = build_index(tmp_path)
    assert stats.added == [f"{CID}/new.md"]
    assert stats.changed == [f"{CID}/edit.md"]
    assert stats.removed == [f"{CID}/gone.md"]
    assert stats.unchanged == 1
    assert search(tmp_path, "wording", 5)[0].path == f"{CID}/edit.md"
    assert search(tmp_path, "old", 5) == []
    assert search(tmp_path, "bye", 5) == []


def test_touched_but_identical_file_is_not_reindexed(tmp_path):
    """A new mtime with the same bytes only updates the stored stat."""
    make_sandbox(tmp_path, {f"{CID}/a.md": "alpha\n"})
    build_index(tmp_path)
    bump_mtime(tmp_path / CID / "a.md")
    stats = build_index(tmp_path)
    assert stats.reindexed == [] and stats.unchanged == 1


def test_binary_file_is_skipped(tmp_path):
    """A NUL byte in the first 8 KB marks a file binary: recorded, not searchable."""
    make_sandbox(tmp_path, {f"{CID}/img.png": b"\x89PNG\x00\x00 secretword", f"{CID}/a.md": "text\n"})
    stats = build_index(tmp_path)
    assert stats.skipped == {f"{CID}/img.png": "binary"}
    assert search(tmp_path, "secretword", 5) == []


def test_private_folder_instructions_and_manifest_are_skipped(tmp_path):
    """Nothing under a (legacy) .researchmind/ folder, nor CLAUDE.md or the manifest, is indexed."""
    make_sandbox(tmp_path, {f"{CID}/a.md": "alpha\n", ".researchmind/notes.md": "privateword\n"})
    (tmp_path / "stray.md").write_text("strayword\n")
    stats = build_index(tmp_path)
    assert stats.added == [f"{CID}/a.md"]
    assert search(tmp_path, "privateword", 5) == []
    assert search(tmp_path, "sandbox answer cite", 5) == []  # words of CLAUDE.md


def test_symlinks_are_not_followed(tmp_path):
    """A symlink inside content (it could point outside the sandbox) is ignored."""
    outside = tmp_path / "outside.md"
    outside.write_text("leakedword\n")
    root = make_sandbox(tmp_path / "sb", {f"{CID}/a.md": "alpha\n"})
    (root / CID / "link.md").symlink_to(outside)
    assert build_index(root).added == [f"{CID}/a.md"]
    assert search(root, "leakedword", 5) == []


def test_oversized_file_is_skipped(tmp_path):
    """Files over the size cap are recorded as skipped without being read."""
    make_sandbox(tmp_path, {f"{CID}/big.txt": "word " * 1000})
    stats = build_index(tmp_path, max_file_bytes=100)
    assert stats.skipped[f"{CID}/big.txt"].startswith("larger than")


def test_bom_and_latin1_files_are_decoded(tmp_path):
    """UTF-8 with a BOM and latin-1 text are both searchable."""
    make_sandbox(
        tmp_path,
        {
            f"{CID}/bom.md": "\ufeffbomword here\n".encode(),
            f"{CID}/old.txt": "café résumé naïveté\n".encode("latin-1"),
        },
    )
    build_index(tmp_path)
    assert search(tmp_path, "bomword", 5)[0].text == "bomword here"
    assert search(tmp_path, "naivete", 5)[0].path == f"{CID}/old.txt"


def test_chunk_line_ranges_match_the_file_exactly(tmp_path):
    """Each chunk's text is exactly its lines of the file, and chunks cover every non-blank line."""
    lines = []
    for section in range(5):
        lines.append(f"## Section {section}")
        lines += [f"Line {section}-{n} talks about topic {n}." for n in range(37)]
        lines.append("")
    text = "\n".join(lines) + "\n"
    chunks = chunk_lines(text)
    file_lines = text.split("\n")
    covered = set()
    for chunk in chunks:
        assert chunk.text == "\n".join(file_lines[chunk.line_start - 1 : chunk.line_end])
        assert chunk.line_end - chunk.line_start + 1 <= 40
        covered.update(range(chunk.line_start, chunk.line_end + 1))
    assert {n for n, line in enumerate(file_lines, 1) if line.strip()} <= covered


def test_headings_start_chunks_and_name_their_section(tmp_path):
    """A Markdown heading opens a new chunk whose section is that heading, named
    with the document's title; '#' in code fences is not a heading."""
    text = "# Intro\nhello\n```\n# not a heading\n```\n## Setup\nstep one\n"
    chunks = chunk_lines(text)
    assert [(c.line_start, c.line_end, c.heading) for c in chunks] == [
        (1, 5, "Intro"),
        (6, 7, "Intro › Setup"),
    ]


def test_search_hits_carry_exact_lines_and_heading(tmp_path):
    """A hit names the file, its line range and the section it sits in."""
    make_sandbox(tmp_path, {f"{CID}/auth.md": "# Title\nintro\n\n## Tokens\nJWT tokens expire daily.\n"})
    build_index(tmp_path)
    hit = search(tmp_path, "When do JWT tokens expire?", 5)[0]
    assert (hit.path, hit.line_start, hit.line_end, hit.heading) == (f"{CID}/auth.md", 4, 5, "Title › Tokens")
    assert hit.content_id == CID


def test_chunks_deep_in_a_section_match_its_heading_but_return_exact_lines(tmp_path):
    """A chunk far below its heading is found by the heading's words; its text is still just its own lines."""
    body = "\n".join(f"Line {n} says nothing in particular." for n in range(1, 121))
    text = f"## Retention policy\n{body}\n"
    make_sandbox(tmp_path, {f"{CID}/policy.md": text})
    build_index(tmp_path)
    hits = search(tmp_path, "retention", 10)
    file_lines = text.split("\n")
    assert len(hits) > 1
    for hit in hits:
        assert hit.heading == "Retention policy"
        assert hit.text == "\n".join(file_lines[hit.line_start - 1 : hit.line_end])


@pytest.mark.parametrize(
    "question",
    [
        'what about "tokens',
        "tokens NEAR(expire, 2)",
        "token* OR -expire",
        "(tokens AND) expire)",
        "text: tokens ^ expire {a b}",
        "NOT AND OR",
        "\"\" '' ;--",
        "",
    ],
)
def test_fts_syntax_in_questions_is_harmless(tmp_path, question):
    """Quotes, NEAR, *, -, parentheses and FTS keywords in a question never raise."""
    make_sandbox(tmp_path, {f"{CID}/auth.md": "JWT tokens expire daily.\n"})
    build_index(tmp_path)
    hits = search(tmp_path, question, 5)
    assert all(h.path == f"{CID}/auth.md" for h in hits)


def test_search_without_index_finds_nothing(tmp_path):
    """Searching a sandbox that was never indexed returns no hits instead of failing."""
    assert search(tmp_path, "anything", 5) == []


def test_full_reindex_rebuilds_from_scratch(tmp_path):
    """reindex(full=True) drops the index and indexes every file again."""
    make_sandbox(tmp_path, {f"{CID}/a.md": "alpha\n"})
    build_index(tmp_path)
    assert reindex(tmp_path).reindexed == []
    assert reindex(tmp_path, full=True).added == [f"{CID}/a.md"]


def test_progress_callback_can_stop_the_build_and_keep_finished_files(tmp_path):
    """Raising from the progress callback stops the build; the next one carries on."""
    make_sandbox(tmp_path, {f"{CID}/{n}.md": f"word{n}\n" for n in range(4)})

    def stop_after_two(progress):
        if progress.files_done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build_index(tmp_path, stop_after_two)
    assert len(build_index(tmp_path).added) == 2


def test_fresh_index_is_not_walked_again(tmp_path):
    """Right after a walk, with no content folder added or removed, an answer's
    freshness check looks at no file."""
    make_sandbox(tmp_path, {f"{CID}/a.md": "alpha\n"})
    assert ensure_fresh(tmp_path).added == [f"{CID}/a.md"]
    assert ensure_fresh(tmp_path) is None


def test_added_and_removed_content_folders_are_seen_at_once(tmp_path):
    """A content folder moved into the sandbox (as every ingest does) or removed
    changes the sandbox's signature: the next check indexes or drops it."""
    make_sandbox(tmp_path, {f"{CID}/a.md": "alpha\n"})
    ensure_fresh(tmp_path)
    staged = tmp_path.parent / "staged"
    (staged / "docs").mkdir(parents=True)
    (staged / "docs" / "b.md").write_text("betaword\n")
    staged.rename(tmp_path / OTHER)
    assert ensure_fresh(tmp_path).added == [f"{OTHER}/docs/b.md"]
    assert search(tmp_path, "betaword", 5)[0].path == f"{OTHER}/docs/b.md"
    shutil.rmtree(tmp_path / OTHER)
    assert ensure_fresh(tmp_path).removed == [f"{OTHER}/docs/b.md"]


def test_files_edited_behind_the_apps_back_are_seen_by_the_sweep(tmp_path):
    """An in-place edit deep in a content folder is picked up once the sweep
    interval has passed, or at once after ``invalidate``."""
    make_sandbox(tmp_path, {f"{CID}/sub/a.md": "alpha\n"})
    ensure_fresh(tmp_path)
    (tmp_path / CID / "sub" / "a.md").write_text("gammaword\n")
    bump_mtime(tmp_path / CID / "sub" / "a.md")
    assert ensure_fresh(tmp_path) is None  # within the sweep interval: not walked
    assert ensure_fresh(tmp_path, sweep_seconds=0).changed == [f"{CID}/sub/a.md"]
    (tmp_path / CID / "sub" / "a.md").write_text("deltaword\n")
    bump_mtime(tmp_path / CID / "sub" / "a.md")
    invalidate(tmp_path)
    assert ensure_fresh(tmp_path).changed == [f"{CID}/sub/a.md"]
    assert search(tmp_path, "deltaword", 5)[0].path == f"{CID}/sub/a.md"


def test_a_first_build_is_published_whole_in_wal_mode(tmp_path):
    """A first build writes a private file (no WAL, nobody reads it yet) and
    puts it in place when done: the state folder then holds the index alone,
    in WAL mode so questions read while later builds write; a build stopped
    midway publishes what it finished."""
    root = make_sandbox(tmp_path / "sandbox", {f"{CID}/{n}.md": f"word{n}\n" for n in range(3)})
    state = tmp_path / "state"

    def stop_after_one(progress):
        if progress.files_done == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build_index(root, stop_after_one, state=state)
    assert sorted(p.name for p in state.iterdir()) == ["index.sqlite3"]
    conn = sqlite3.connect(state / "index.sqlite3")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("SELECT count(*) FROM files").fetchone()[0] == 1
    conn.close()
    assert len(build_index(root, state=state).added) == 2
