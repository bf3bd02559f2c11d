"""Real PDFs on this machine for the document benches: the PDFs that Debian's
documentation packages ship (`make bench-documents` installs enough for 50 MB),
gzipped ones unpacked into a folder, duplicates dropped.

    .venv/bin/python -m bench.perf.pdf_corpus [--mb 55]   # lists what the benches would read
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import tempfile
from pathlib import Path

ROOTS = [Path("/usr/share/doc"), Path("/usr/share/R/doc")]


def found() -> list[Path]:
    """Every PDF (or .pdf.gz) file under ``ROOTS``, symlinks skipped, largest first."""
    paths = {
        path
        for root in ROOTS
        if root.is_dir()
        for pattern in ("*.pdf", "*.pdf.gz")
        for path in root.rglob(pattern)
        if path.is_file() and not path.is_symlink()
    }
    return sorted(paths, key=lambda p: (-p.stat().st_size, str(p)))


def corpus(folder: Path, megabytes: float) -> list[Path]:
    """The largest distinct PDFs until they add up to ``megabytes`` (unpacked into ``folder``)."""
    seen, chosen, total = set(), [], 0
    for path in found():
        data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        # Size and the first megabyte: R ships its reference manual twice, differing only in a trailer ID.
        digest = (len(data), hashlib.sha256(data[:1_000_000]).hexdigest())
        if not data.startswith(b"%PDF") or digest in seen:
            continue
        seen.add(digest)
        if path.suffix == ".gz":
            target = folder / f"{len(chosen):03d}-{path.name[:-3]}"
            target.write_bytes(data)
            path = target
        chosen.append(path)
        total += len(data)
        if total >= megabytes * 1e6:
            break
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=55)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        paths = corpus(Path(tmp), args.mb)
        print(f"{len(paths)} PDFs, {sum(p.stat().st_size for p in paths) / 1e6:.1f} MB")
        for path in paths:
            print(f"{path.stat().st_size / 1e6:8.2f} MB  {path}")


if __name__ == "__main__":
    main()
