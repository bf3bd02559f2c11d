"""The staging folder: an ingest is written outside the sandbox, in a state
folder, and appears in the sandbox whole or not at all, also when the state
folder is on another filesystem."""

from __future__ import annotations

import io
import os
import shutil
import tempfile
import zipfile
from pathlib import Path

import pytest

from core.ingest import IngestError, ingest_text, ingest_zip, staging
from core.sandbox import default_state_dir


@pytest.fixture
def other_filesystem(tmp_path):
    """A staging root on a different filesystem than the sandbox (tmpfs), or skip."""
    if not Path("/dev/shm").is_dir():
        pytest.skip("no /dev/shm here")
    folder = Path(tempfile.mkdtemp(prefix="rm-staging-", dir="/dev/shm"))
    try:
        if folder.stat().st_dev == tmp_path.stat().st_dev:
            pytest.skip("/dev/shm is on the same filesystem as the test folder")
        yield folder / "staging"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_staging_happens_in_the_given_state_folder(tmp_path, sandbox, dest, leftovers):
    """While the content is written it sits under staging_root, not in the sandbox; afterwards only dest remains."""
    staging_root = tmp_path / "state" / "staging"
    with staging(dest, staging_root=staging_root) as folder:
        assert folder.parent == staging_root.resolve()
        assert os.listdir(sandbox) == []
        (folder / "notes.md").write_text("hello\n")
    assert (dest / "notes.md").read_text() == "hello\n"
    assert os.listdir(staging_root) == []
    assert leftovers() == [dest.name, f"{dest.name}/notes.md"]


def test_staging_defaults_to_a_state_folder_beside_the_sandbox(sandbox, dest):
    """Without staging_root the folder is under .state/<sandbox name>/staging, outside the sandbox."""
    with staging(dest) as folder:
        assert folder.parent == (default_state_dir(sandbox) / "staging").resolve()
        assert os.listdir(sandbox) == []


def test_failed_write_leaves_nothing_in_either_place(tmp_path, dest, leftovers):
    """An error while writing removes the staging folder; dest never appears."""
    staging_root = tmp_path / "state" / "staging"
    with pytest.raises(RuntimeError), staging(dest, staging_root=staging_root) as folder:
        (folder / "half.md").write_text("half\n")
        raise RuntimeError("stop")
    assert not dest.exists()
    assert os.listdir(staging_root) == []
    assert leftovers() == []


def test_ingest_functions_take_a_staging_root(tmp_path, sandbox, leftovers):
    """ingest_text and ingest_zip stage under staging_root and leave it empty."""
    staging_root = tmp_path / "state" / "staging"
    text = sandbox / "text-item"
    ingest_text(text, title="Notes", markdown="Body\n", staging_root=staging_root)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("a/b.md", b"zipped\n")
    buffer.seek(0)
    archive = sandbox / "zip-item"
    ingest_zip(archive, buffer, staging_root=staging_root)
    assert (text / "notes.md").is_file() and (archive / "a/b.md").read_bytes() == b"zipped\n"
    assert os.listdir(staging_root) == []
    assert leftovers() == ["text-item", "text-item/notes.md", "zip-item", "zip-item/a", "zip-item/a/b.md"]


def test_staging_on_another_filesystem_is_copied_into_place(other_filesystem, dest, leftovers):
    """When rename fails across filesystems (EXDEV) the content is copied; nothing is left behind."""
    with staging(dest, staging_root=other_filesystem) as folder:
        (folder / "sub").mkdir()
        (folder / "sub" / "notes.md").write_text("across\n")
    assert (dest / "sub" / "notes.md").read_text() == "across\n"
    assert os.listdir(other_filesystem) == []
    assert leftovers() == [dest.name, f"{dest.name}/sub", f"{dest.name}/sub/notes.md"]


def test_failed_copy_across_filesystems_leaves_no_half_folder(other_filesystem, dest, leftovers):
    """A copy that fails part way (a named pipe cannot be copied) leaves neither dest nor a partial copy."""
    with (
        pytest.raises(
            IngestError, match=r"Could not move the content into place: 1 file\(s\) could not be copied"
        ),
        staging(dest, staging_root=other_filesystem) as folder,
    ):
        (folder / "a.md").write_text("copied first\n")
        os.mkfifo(folder / "pipe")
    assert not dest.exists()
    assert os.listdir(other_filesystem) == []
    assert leftovers() == []
