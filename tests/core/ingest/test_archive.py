from __future__ import annotations

import io
import stat
import struct
import zipfile

import pytest

from core.ingest import IngestError, Limits, ingest_zip

MiB = 1024 * 1024


def make_zip(members: dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED) -> io.BytesIO:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    buffer.seek(0)
    return buffer


def zip_with_info(info: zipfile.ZipInfo, data: bytes = b"x") -> io.BytesIO:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("fine.txt", b"fine")
        zf.writestr(info, data)
    buffer.seek(0)
    return buffer


def zeros_member(zf: zipfile.ZipFile, name: str, size: int) -> None:
    chunk = bytes(MiB)
    info = zipfile.ZipInfo(name)
    info.compress_type = zipfile.ZIP_DEFLATED
    with zf.open(info, "w", force_zip64=True) as out:
        for _ in range(size // MiB):
            out.write(chunk)


@pytest.fixture(scope="session")
def gigabyte_bomb() -> bytes:
    """1 GiB of zeros in one deflated member: about 1 MiB on disk."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        zeros_member(zf, "zeros.bin", 1024 * MiB)
    return buffer.getvalue()


def test_normal_zip_is_extracted(dest):
    """Files and folders of an ordinary archive arrive intact."""
    archive = make_zip({"README.md": b"# Hi\n", "src/app.py": b"print(1)\n", "docs/": b""})
    result = ingest_zip(dest, archive, title="project.zip")
    assert result.files == ["README.md", "src/app.py"]
    assert (dest / "src/app.py").read_bytes() == b"print(1)\n"
    assert (dest / "docs").is_dir()
    assert result.byte_size == 14 and result.file_count == 2 and result.title == "project.zip"


def test_a_zipped_repository_arrives_without_its_git_folder(dest):
    """.git/ is version-control state, not content: dropped, as git ingest does."""
    archive = make_zip(
        {
            "repo/README.md": b"# Repo\n",
            "repo/.git/": b"",
            "repo/.git/HEAD": b"ref: refs/heads/main\n",
            "repo/.git/objects/ab/cdef": b"x",
            ".git/config": b"[core]\n",
            "repo/.github/workflow.yml": b"on: push\n",
        }
    )
    result = ingest_zip(dest, archive, title="repo.zip")
    assert result.files == ["repo/.github/workflow.yml", "repo/README.md"]
    assert not (dest / "repo" / ".git").exists() and not (dest / ".git").exists()


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("../evil.txt", "zip-slip"),
        ("docs/../../evil.txt", "zip-slip"),
        ("/etc/cron.d/evil", "absolute name"),
        ("C:/Windows/evil.txt", "absolute name"),
        ("..\\evil.txt", "backslash"),
        ("docs\\evil.txt", "backslash"),
    ],
)
def test_hostile_member_name_is_refused(dest, leftovers, name, message):
    """Traversal, absolute and backslash names are refused, naming the member, leaving nothing."""
    archive = make_zip({"fine.txt": b"fine", name: b"pwned"})
    with pytest.raises(IngestError, match=message) as refused:
        ingest_zip(dest, archive)
    assert repr(name) in str(refused.value)
    assert leftovers() == []


def test_symlink_member_is_refused(dest, leftovers):
    """A member marked as a symbolic link is refused before extraction."""
    info = zipfile.ZipInfo("link")
    info.create_system = 3
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    with pytest.raises(IngestError, match="'link' is a symbolic link"):
        ingest_zip(dest, zip_with_info(info, b"/etc/passwd"))
    assert leftovers() == []


def test_encrypted_member_is_refused(dest, leftovers):
    """A member flagged as encrypted is refused with its name."""
    # zipfile cannot write encrypted members; set the "encrypted" flag bit
    # in both headers, as an encrypting tool would.
    data = bytearray(make_zip({"fine.txt": b"fine", "secret.txt": b"x"}).getvalue())
    local, central = data.rfind(b"PK\x03\x04"), data.rfind(b"PK\x01\x02")
    data[local + 6] |= 0x1
    data[central + 8] |= 0x1
    with pytest.raises(IngestError, match=r"'secret\.txt' is encrypted"):
        ingest_zip(dest, io.BytesIO(bytes(data)))
    assert leftovers() == []


class CountingReader(io.BytesIO):
    """An archive in memory that counts the bytes read from it."""

    bytes_read = 0

    def read(self, size=-1):
        data = super().read(size)
        self.bytes_read += len(data)
        return data


def test_gigabyte_bomb_is_refused_from_its_headers(dest, leftovers, gigabyte_bomb):
    """1 GiB in ~1 MiB is refused from its headers: its compressed data is never read."""
    assert len(gigabyte_bomb) > 512 * 1024
    archive = CountingReader(gigabyte_bomb)
    with pytest.raises(IngestError, match=r"'zeros.bin' would unpack to 1\.0 GiB"):
        ingest_zip(dest, archive)
    assert archive.bytes_read < 128 * 1024  # the end-of-archive directory; not the data
    assert leftovers() == []


def test_gigabyte_bomb_is_refused_by_ratio_under_generous_size_limits(dest, leftovers, gigabyte_bomb):
    """Even when 1 GiB would be allowed, its 1000:1 ratio gives it away, from the headers."""
    generous = Limits(max_file_bytes=2048 * MiB, max_total_bytes=2048 * MiB)
    archive = CountingReader(gigabyte_bomb)
    with pytest.raises(IngestError, match=r"'zeros\.bin' is compressed .* to 1"):
        ingest_zip(dest, archive, limits=generous)
    assert archive.bytes_read < 128 * 1024  # the end-of-archive directory; not the data
    assert leftovers() == []


def test_member_compression_ratio_is_capped(dest, leftovers):
    """A member under the size limits but compressed 1000:1 is refused as a bomb."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        zeros_member(zf, "dense.bin", 16 * MiB)
    buffer.seek(0)
    with pytest.raises(IngestError, match=r"'dense\.bin' is compressed .* to 1"):
        ingest_zip(dest, buffer)
    assert leftovers() == []


def test_archive_compression_ratio_is_capped(dest, leftovers):
    """Many small dense members, each under the per-member floor, are refused together."""
    archive = make_zip({f"part{n}.bin": bytes(512 * 1024) for n in range(8)})
    with pytest.raises(IngestError, match="archive as a whole is compressed"):
        ingest_zip(dest, archive)
    assert leftovers() == []


def test_total_declared_size_is_capped(dest, leftovers):
    """Declared sizes adding up past the total limit are refused before extraction."""
    archive = make_zip({f"{n}.txt": bytes(range(256)) * 20 for n in range(5)}, zipfile.ZIP_STORED)
    with pytest.raises(IngestError, match="would unpack to more than the limit"):
        ingest_zip(dest, archive, limits=Limits(max_total_bytes=20_000))
    assert leftovers() == []


def test_too_many_entries_is_refused(dest, leftovers):
    """More entries than the limit are refused from the end record alone."""
    archive = make_zip({f"{n}.txt": b"x" for n in range(6)})
    with pytest.raises(IngestError, match="6 entries; the limit is 5"):
        ingest_zip(dest, archive, limits=Limits(max_files=5))
    assert leftovers() == []


def _patch_sizes(data: bytearray, size: int) -> None:
    """Rewrite the uncompressed size of the last member in both headers."""
    local = data.rfind(b"PK\x03\x04")
    struct.pack_into("<L", data, local + 22, size)
    central = data.rfind(b"PK\x01\x02")
    struct.pack_into("<L", data, central + 24, size)


def test_lying_header_size_is_refused(dest, leftovers):
    """A member that declares 10 bytes but inflates to 100 KB is refused; earlier members are removed."""
    data = bytearray(make_zip({"good.txt": b"good", "liar.txt": b"A" * 100_000}).getvalue())
    _patch_sizes(data, 10)
    with pytest.raises(IngestError, match=r"'liar\.txt'"):
        ingest_zip(dest, io.BytesIO(bytes(data)))
    assert leftovers() == []


def test_header_claiming_more_than_the_data_is_refused(dest, leftovers):
    """A member that declares 100 KB but holds 10 bytes is caught by our own byte count."""
    data = bytearray(make_zip({"good.txt": b"good", "short.txt": b"A" * 10}).getvalue())
    _patch_sizes(data, 100_000)
    with pytest.raises(
        IngestError, match=r"'short\.txt' unpacked to 10 bytes but its header declares 100,000"
    ):
        ingest_zip(dest, io.BytesIO(bytes(data)))
    assert leftovers() == []


def test_duplicate_member_is_refused(dest, leftovers):
    """The same name twice would silently overwrite; it is refused."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("a.txt", b"1")
        with pytest.warns(UserWarning):
            zf.writestr("a.txt", b"2")
    buffer.seek(0)
    with pytest.raises(IngestError, match="appears twice"):
        ingest_zip(dest, buffer)
    assert leftovers() == []


def test_not_a_zip_is_refused(dest, leftovers):
    """Arbitrary bytes are refused as not an archive."""
    with pytest.raises(IngestError, match="not a zip archive"):
        ingest_zip(dest, io.BytesIO(b"%PDF-1.7 not a zip"))
    assert leftovers() == []


def test_unseekable_stream_is_accepted(dest):
    """A one-way stream (like a socket) is spooled before reading."""

    class OneWay(io.RawIOBase):
        def __init__(self, data: bytes) -> None:
            self._inner = io.BytesIO(data)

        def readable(self) -> bool:
            return True

        def seekable(self) -> bool:
            return False

        def readinto(self, buffer) -> int:
            chunk = self._inner.read(len(buffer))
            buffer[: len(chunk)] = chunk
            return len(chunk)

    result = ingest_zip(dest, io.BufferedReader(OneWay(make_zip({"a.txt": b"a"}).getvalue())))
    assert result.files == ["a.txt"]


def test_extraction_reports_progress(dest):
    """Each extracted file is reported with the total count."""
    calls = []
    ingest_zip(dest, make_zip({"a.txt": b"a", "b.txt": b"b"}), progress=lambda *a: calls.append(a))
    assert calls == [(1, 2, "Extracted a.txt"), (2, 2, "Extracted b.txt")]
