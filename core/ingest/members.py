"""Checks on a zip archive's members from its table of contents alone,
before any byte is extracted: shared by archive ingest and by the documents
that are zip packages (.docx, .pptx, .xlsx).

Pure Python: no Django imports.
"""

from __future__ import annotations

import stat
import zipfile

from .common import IngestError, Limits, human_size

SUPPORTED = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA}


def check_kind(info: zipfile.ZipInfo) -> None:
    """Only regular files and folders; no links, devices, pipes; no encryption."""
    mode = info.external_attr >> 16
    kind = stat.S_IFMT(mode)
    if kind == stat.S_IFLNK:
        raise IngestError(f"Member {info.filename!r} is a symbolic link; links in archives are refused.")
    if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
        raise IngestError(f"Member {info.filename!r} is a special file (device, pipe or socket); refused.")
    if info.flag_bits & 0x1:
        raise IngestError(
            f"Member {info.filename!r} is encrypted; password-protected archives are not supported."
        )
    if info.compress_type not in SUPPORTED:
        raise IngestError(f"Member {info.filename!r} uses an unsupported compression method.")


def check_sizes(infos: list[zipfile.ZipInfo], limits: Limits) -> None:
    """Refuse on the declared sizes alone, before anything is extracted."""
    total = compressed = 0
    for info in infos:
        size, packed = info.file_size, max(info.compress_size, 1)
        if size > limits.max_file_bytes:
            raise IngestError(
                f"Member {info.filename!r} would unpack to {human_size(size)}, more than the limit "
                f"of {human_size(limits.max_file_bytes)} per file."
            )
        if size > limits.ratio_floor_bytes and size / packed > limits.max_ratio:
            raise IngestError(
                f"Member {info.filename!r} is compressed {size / packed:,.0f} to 1 (the limit is "
                f"{limits.max_ratio:,.0f} to 1): refused as a likely zip bomb."
            )
        total += size
        compressed += packed
        if total > limits.max_total_bytes:
            raise IngestError(
                f"The archive would unpack to more than the limit of {human_size(limits.max_total_bytes)} "
                f"(reached at member {info.filename!r})."
            )
    if total > limits.ratio_floor_bytes and total / max(compressed, 1) > limits.max_ratio:
        raise IngestError(
            f"The archive as a whole is compressed {total / compressed:,.0f} to 1 (the limit is "
            f"{limits.max_ratio:,.0f} to 1): refused as a likely zip bomb."
        )


def check_package(zf: zipfile.ZipFile, limits: Limits) -> None:
    """The archive defences for a zip that is read in place rather than
    extracted (a .docx, .pptx or .xlsx): entry count, kinds, encryption,
    declared sizes and compression ratios."""
    infos = zf.infolist()
    if len(infos) > limits.max_files:
        raise IngestError(f"The package has {len(infos):,} entries; the limit is {limits.max_files:,}.")
    for info in infos:
        check_kind(info)
    check_sizes(infos, limits)
