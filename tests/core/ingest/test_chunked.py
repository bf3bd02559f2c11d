"""Resumable chunked uploads on disk (core/ingest/chunked.py): chunks land at
their offset, a wrong offset or a chunk cut short changes nothing, the size
limit holds as chunks arrive, a full disk removes the upload, old ones are swept."""

from __future__ import annotations

import fcntl
import io
import os
import time

import pytest

from core.ingest import chunked

LIMIT = 1_000_000


def start(state, size=10, name="notes.md"):
    return chunked.upload_create(state, name=name, size=size, limit=LIMIT, max_open=4)


def send(state, upload_id, offset, data, *, length=None, max_chunk=1000):
    return chunked.upload_append(
        state,
        upload_id,
        offset=offset,
        length=len(data) if length is None else length,
        read=io.BytesIO(data).read,
        max_chunk=max_chunk,
    )


def test_chunks_in_order_assemble_the_file(tmp_path):
    upload = start(tmp_path, size=10)
    assert send(tmp_path, upload.id, 0, b"0123").received == 4
    done = send(tmp_path, upload.id, 4, b"456789")
    assert done.complete and done.received == 10
    assert chunked.upload_complete(tmp_path, upload.id).path.read_bytes() == b"0123456789"
    assert upload.path.parent.parent == tmp_path / "chunked"


def test_a_chunk_at_the_wrong_offset_is_refused_and_names_the_right_one(tmp_path):
    upload = start(tmp_path)
    send(tmp_path, upload.id, 0, b"0123")
    for wrong in (0, 2, 8):
        with pytest.raises(chunked.OffsetMismatch) as refused:
            send(tmp_path, upload.id, wrong, b"xx")
        assert refused.value.offset == 4
    assert chunked.upload_status(tmp_path, upload.id).path.read_bytes() == b"0123"


def test_a_chunk_cut_short_is_dropped_whole_and_the_upload_resumes(tmp_path):
    upload = start(tmp_path)
    send(tmp_path, upload.id, 0, b"0123")
    with pytest.raises(chunked.ChunkCutShort):
        send(tmp_path, upload.id, 4, b"45", length=6)  # six announced, two arrived
    status = chunked.upload_status(tmp_path, upload.id)
    assert status.received == 4
    send(tmp_path, status.id, status.received, b"456789")
    assert chunked.upload_complete(tmp_path, upload.id).path.read_bytes() == b"0123456789"


def test_the_size_limit_holds_at_the_start_and_as_chunks_arrive(tmp_path):
    with pytest.raises(chunked.UploadTooLarge):
        start(tmp_path, size=LIMIT + 1)
    upload = start(tmp_path, size=10)
    with pytest.raises(chunked.UploadTooLarge):
        send(tmp_path, upload.id, 0, b"x" * 11)  # past the declared size
    with pytest.raises(chunked.UploadTooLarge):
        send(tmp_path, upload.id, 0, b"x" * 6, max_chunk=5)
    assert chunked.upload_status(tmp_path, upload.id).received == 0


def test_an_empty_or_nameless_file_is_refused(tmp_path):
    with pytest.raises(chunked.UploadError, match="empty"):
        start(tmp_path, size=0)
    with pytest.raises(chunked.UploadError, match="Name"):
        start(tmp_path, name="  ")


def test_unfinished_uploads_per_session_are_capped(tmp_path):
    for _ in range(4):
        start(tmp_path)
    with pytest.raises(chunked.UploadError, match="4 unfinished uploads"):
        start(tmp_path)


def test_an_incomplete_upload_cannot_be_finished(tmp_path):
    upload = start(tmp_path)
    send(tmp_path, upload.id, 0, b"01")
    with pytest.raises(chunked.UploadIncomplete, match="2 of its 10 bytes"):
        chunked.upload_complete(tmp_path, upload.id)


def test_one_chunk_at_a_time(tmp_path):
    upload = start(tmp_path)
    with upload.path.open("rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(chunked.UploadBusy):
            send(tmp_path, upload.id, 0, b"01")
    assert send(tmp_path, upload.id, 0, b"01").received == 2


def test_a_full_disk_removes_the_whole_upload(tmp_path):
    upload = start(tmp_path)
    upload.path.unlink()
    upload.path.symlink_to("/dev/full")  # every write there fails with ENOSPC
    with pytest.raises(chunked.UploadDiskFull, match="disk is full"):
        send(tmp_path, upload.id, 0, b"0123")
    assert not upload.path.parent.exists()
    assert os.path.exists("/dev/full")


def test_ids_that_are_not_upload_ids_name_nothing(tmp_path):
    start(tmp_path)
    for bad in ("../../etc", "", "A" * 32, "0" * 31, "/tmp"):
        with pytest.raises(chunked.UploadNotFound):
            chunked.upload_status(tmp_path, bad)
    with pytest.raises(chunked.UploadNotFound):
        chunked.upload_status(tmp_path, "0" * 32)


def test_uploads_untouched_for_long_are_swept(tmp_path):
    state_root = tmp_path / "state"
    old = start(state_root / "s1")
    fresh = start(state_root / "s2")
    long_ago = time.time() - 7200
    os.utime(old.path, (long_ago, long_ago))
    os.utime(old.path.parent, (long_ago, long_ago))
    assert chunked.uploads_sweep(state_root, max_age=3600) == 1
    assert not old.path.parent.exists() and fresh.path.exists()
