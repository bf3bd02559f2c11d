"""The app's private state (index, staging, spooled uploads, run logs) lives
in the session's state folder, never in its sandbox, where an engine reads
everything, hidden folders included."""

from __future__ import annotations

import io
import os
import sqlite3
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from core.sandbox import INSTRUCTIONS_NAME, MANIFEST_NAME, PRIVATE_DIR, move_legacy_state
from researchmind import services

pytestmark = pytest.mark.django_db


def make_zip(members: dict[str, str]) -> SimpleUploadedFile:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, text in members.items():
            zf.writestr(name, text)
    return SimpleUploadedFile("project.zip", buffer.getvalue())


def entries(folder) -> list[str]:
    """Every entry under ``folder``, hidden ones included, as relative paths."""
    found = []
    for parent, dirs, names in os.walk(folder):
        found += [os.path.relpath(os.path.join(parent, name), folder) for name in dirs + names]
    return sorted(found)


def test_ingests_leave_only_content_in_the_sandbox(research, settings):
    """Text, zip and file ingests through the service leave the content folders, CLAUDE.md and the
    manifest in the sandbox, and no staging folder or spooled upload behind."""
    text = services.content_add(research, "text", {"title": "Notes", "markdown": "Tokens expire daily.\n"})
    archive = services.content_add(research, "zip", {"archive": make_zip({"docs/a.md": "alpha\n"})})
    upload = services.content_add(research, "files", {"files": [SimpleUploadedFile("b.md", b"beta\n")]})
    for item in (text, archive, upload):
        item.refresh_from_db()
        assert item.status == "ready", item.error
    assert sorted(os.listdir(research.sandbox_path)) == sorted(
        [INSTRUCTIONS_NAME, MANIFEST_NAME, str(text.id), str(archive.id), str(upload.id)]
    )
    assert not [e for e in entries(research.sandbox_path) if os.path.basename(e).startswith(".")]
    assert os.listdir(research.state_path / "staging") == []
    assert os.listdir(research.state_path / "uploads") == []
    # Nothing was staged beside the sandboxes either: the service named the state folder.
    assert os.listdir(settings.SANDBOX_ROOT) == [str(research.id)]


def test_failed_zip_ingest_leaves_nothing_anywhere(research):
    """A refused archive leaves only CLAUDE.md and the manifest in the sandbox, and empty state folders."""
    item = services.content_add(research, "zip", {"archive": make_zip({"ok.md": "x", "../../evil.md": "y"})})
    item.refresh_from_db()
    assert item.status == "failed"
    assert entries(research.sandbox_path) == sorted([INSTRUCTIONS_NAME, MANIFEST_NAME])
    assert entries(research.state_path) == ["staging", "uploads"]


def test_uploads_are_spooled_into_the_state_folder(research):
    """spool_uploads copies the request's files under state_path/uploads, outside the sandbox."""
    folder = services.spool_uploads(research, [SimpleUploadedFile("a.md", b"alpha\n")])
    assert folder.parent == research.state_path / "uploads"
    assert [(name, handle.read()) for name, handle in services.spooled_files(folder)] == [
        ("a.md", b"alpha\n")
    ]
    assert entries(research.sandbox_path) == sorted([INSTRUCTIONS_NAME, MANIFEST_NAME])


def test_reindex_command_builds_the_index_in_the_state_folder(research, add_text):
    """manage.py reindex writes index.sqlite3 into the session's state folder; the sandbox is unchanged."""
    add_text(research, "Notes", "Tokens expire daily.\n")
    before = entries(research.sandbox_path)
    call_command("reindex", session=str(research.id), stdout=io.StringIO())
    with sqlite3.connect(research.state_path / "index.sqlite3") as conn:
        assert conn.execute("SELECT count(*) FROM files").fetchone()[0] == 1
    assert entries(research.sandbox_path) == before


def test_session_delete_removes_its_state_folder(research, add_text):
    """Deleting a session removes its sandbox and its state folder."""
    add_text(research, "Notes", "Tokens expire daily.\n")
    call_command("reindex", session=str(research.id), stdout=io.StringIO())
    assert research.state_path.is_dir()
    sandbox, state = research.sandbox_path, research.state_path
    services.session_delete(research)
    assert not sandbox.exists() and not state.exists()


def make_legacy_state(sandbox) -> None:
    """What an older version kept inside the sandbox."""
    legacy = sandbox / PRIVATE_DIR
    (legacy / "runs").mkdir(parents=True)
    (legacy / "index.sqlite3").write_bytes(b"old index")
    (legacy / "runs" / "1.log").write_text("raw run log\n")


def test_move_legacy_state_moves_and_removes_the_private_folder(tmp_path):
    """The index and run logs move into the state folder; entries already there win; the legacy folder goes."""
    sandbox, state = tmp_path / "sandbox", tmp_path / "state"
    make_legacy_state(sandbox)
    (state / "runs").mkdir(parents=True)
    (state / "runs" / "2.log").write_text("newer log\n")
    assert move_legacy_state(sandbox, state) is True
    assert (state / "index.sqlite3").read_bytes() == b"old index"
    assert (state / "runs" / "1.log").read_text() == "raw run log\n"
    assert (state / "runs" / "2.log").read_text() == "newer log\n"
    assert not (sandbox / PRIVATE_DIR).exists()
    assert move_legacy_state(sandbox, state) is False


@pytest.mark.django_db(transaction=True)
def test_migration_moves_every_sessions_legacy_state(make_session, make_user, settings):
    """Migration 0002 moves each session's .researchmind/ folder into STATE_ROOT/<session id>."""
    owner = make_user("migrator")
    sessions = [make_session(owner, "One"), make_session(owner, "Two")]
    for session in sessions:
        make_legacy_state(session.sandbox_path)
    # Run the real migration's operations against the database; other
    # migrations (before or after it) are left as they are.
    executor = MigrationExecutor(connection)
    migration = executor.loader.get_migration("researchmind", "0002_move_private_state")
    before = executor.loader.project_state(("researchmind", "0001_initial"))
    with connection.schema_editor(atomic=migration.atomic) as editor:
        migration.apply(before, editor)
    for session in sessions:
        assert session.state_path == settings.STATE_ROOT / str(session.id)
        assert (session.state_path / "index.sqlite3").read_bytes() == b"old index"
        assert (session.state_path / "runs" / "1.log").read_text() == "raw run log\n"
        assert entries(session.sandbox_path) == sorted([INSTRUCTIONS_NAME, MANIFEST_NAME])


@pytest.mark.django_db(transaction=True)
def test_migration_moves_web_originals_out_of_the_content_folder(research, add_text, settings):
    """Migration 0004 moves an already ingested web page's original.html and
    source.json out of its content folder; other kinds of content are untouched."""
    from researchmind.models import ContentItem

    page = ContentItem.objects.create(session=research, kind="url_scrape", source_url="https://example.org/")
    page.folder.mkdir(parents=True)
    (page.folder / "page.md").write_text("# Page\n")
    (page.folder / "original.html").write_bytes(b"<html>page</html>")
    (page.folder / "source.json").write_text("{}")
    text = add_text(research, "Notes", "# Notes\n")
    (text.folder / "source.json").write_text("a file the user added")
    executor = MigrationExecutor(connection)
    migration = executor.loader.get_migration("researchmind", "0004_move_web_originals")
    before = executor.loader.project_state(("researchmind", "0003_question_model"))
    with connection.schema_editor(atomic=migration.atomic) as editor:
        migration.apply(before, editor)
    kept = research.state_path / "originals" / str(page.id)
    assert sorted(p.name for p in page.folder.iterdir()) == ["page.md"]
    assert (kept / "original.html").read_bytes() == b"<html>page</html>" and (kept / "source.json").exists()
    assert (text.folder / "source.json").read_text() == "a file the user added"
