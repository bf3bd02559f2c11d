from __future__ import annotations

import io
import os

import pytest

from core.ingest import IngestError, Limits, clean_filename, ingest_files

HOSTILE_NAMES = [
    ("../../etc/passwd", "passwd"),
    ("/abs/path.txt", "path.txt"),
    ("a\\b.txt", "b.txt"),
    ("C:\\Users\\me\\notes.md", "notes.md"),
    ("evil\x00.txt", "evil.txt"),
    ("..", "unnamed"),
    (".bashrc", "bashrc"),
    ("...", "unnamed"),
    ("", "unnamed"),
    ("folder/../x.txt", "x.txt"),
    ("\uff0e\uff0e\uff0fsecret", "secret"),  # fullwidth "../"
    ("line\nbreak.txt", "linebreak.txt"),
    ("\ud800lone.txt", "lone.txt"),
]


@pytest.mark.parametrize(("raw", "expected"), HOSTILE_NAMES)
def test_hostile_upload_name_is_reduced_to_safe_basename(raw, expected):
    """Traversal, absolute, backslash, NUL and dot names become a plain base name."""
    assert clean_filename(raw) == expected


def test_hostile_uploads_land_inside_content_folder(dest, sandbox, leftovers):
    """Every hostile upload is stored as a plain file directly in the content folder."""
    uploads = [(raw, io.BytesIO(b"data")) for raw, _ in HOSTILE_NAMES]
    result = ingest_files(dest, uploads)
    assert result.file_count == len(HOSTILE_NAMES)
    assert sorted(os.listdir(dest)) == sorted(result.files)
    for name in result.files:
        assert "/" not in name and not name.startswith(".")
        assert (dest / name).read_bytes() == b"data"
    assert all(entry.split("/")[0] == dest.name for entry in leftovers())


def test_very_long_name_is_shortened_keeping_extension(dest):
    """A thousand-character name is cut to fit the filesystem, extension kept."""
    result = ingest_files(dest, [("é" * 1000 + ".csv", io.BytesIO(b"x"))])
    (name,) = result.files
    assert name.endswith(".csv") and len(name.encode()) <= 200


def test_duplicate_names_are_numbered(dest):
    """Two uploads with the same name (in any case) are both kept."""
    result = ingest_files(
        dest, [("a.txt", io.BytesIO(b"1")), ("dir/a.txt", io.BytesIO(b"2")), ("A.txt", io.BytesIO(b"3"))]
    )
    assert result.files == ["a.txt", "a-2.txt", "A-3.txt"]
    assert (dest / "a-2.txt").read_bytes() == b"2"


def test_file_over_size_cap_is_refused_while_streaming(dest, leftovers):
    """A file larger than the per-file limit is cut off and nothing is left behind."""
    uploads = [("ok.txt", io.BytesIO(b"fine")), ("big.bin", io.BytesIO(b"x" * 5000))]
    with pytest.raises(IngestError, match=r"big\.bin is larger than the limit"):
        ingest_files(dest, uploads, limits=Limits(max_file_bytes=1000))
    assert leftovers() == []


def test_total_size_cap_is_refused(dest, leftovers):
    """Files that together exceed the total limit are refused."""
    uploads = [(f"{n}.txt", io.BytesIO(b"x" * 600)) for n in range(3)]
    with pytest.raises(IngestError, match="larger than the limit"):
        ingest_files(dest, uploads, limits=Limits(max_total_bytes=1000))
    assert leftovers() == []


def test_too_many_files_is_refused(dest, leftovers):
    """More files than the limit are refused."""
    uploads = [(f"{n}.txt", io.BytesIO(b"x")) for n in range(4)]
    with pytest.raises(IngestError, match="Too many files"):
        ingest_files(dest, uploads, limits=Limits(max_files=3))
    assert leftovers() == []


def test_no_files_is_refused(dest, leftovers):
    """An empty upload is refused with a clear message."""
    with pytest.raises(IngestError, match="No files"):
        ingest_files(dest, [])
    assert leftovers() == []


def test_upload_reports_progress(dest):
    """Each saved file is reported to the progress callback."""
    calls = []
    ingest_files(
        dest, [("a", io.BytesIO(b"1")), ("b", io.BytesIO(b"2"))], progress=lambda *a: calls.append(a)
    )
    assert calls[-1] == (2, 2, "Files saved")
    assert any("Saving a" in message for _, _, message in calls)


PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\x00" * 64


def test_binary_uploads_are_skipped_and_named(dest):
    """Files that are not text (a NUL byte in their first 8 KB, as git and the
    engines judge) are left out, and the result says which."""
    true_binary = b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 100
    result = ingest_files(
        dest,
        [
            ("notes.md", io.BytesIO(b"# Notes\n")),
            ("true", io.BytesIO(true_binary)),
            ("logo.png", io.BytesIO(PNG)),
        ],
    )
    assert result.files == ["notes.md"] and result.skipped == ["true", "logo.png"]
    assert result.file_count == 1 and result.byte_size == len(b"# Notes\n")
    assert sorted(p.name for p in dest.iterdir()) == ["notes.md"]
    assert result.note == "2 files are not text and were skipped: true, logo.png."


def test_only_binary_uploads_fail_clearly(dest, leftovers):
    with pytest.raises(IngestError, match=r"None of the 2 files is text \(a\.png, b\.png\)"):
        ingest_files(dest, [("a.png", io.BytesIO(PNG)), ("b.png", io.BytesIO(PNG))])
    assert leftovers() == []
