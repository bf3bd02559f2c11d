"""Real text on this machine for the speed benches: the README, documentation
and source files of the packages installed in the virtualenv, and Debian's
``/usr/share/doc`` (gzipped files unpacked), copied into a sandbox content
folder per origin. Only text is kept (valid UTF-8 or Latin-1 without NUL
bytes, at most 4 MB a file), duplicates by content dropped, and the files
taken in sorted path order, alternating between the two origins so both are
in any prefix, until the total is reached: the same machine gives the same
corpus.

    .venv/bin/python -m bench.perf.text_corpus [--mb 55]   # sums up what the benches would read
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import itertools
import sysconfig
import tempfile
import uuid
from pathlib import Path

DEBIAN_DOC = Path("/usr/share/doc")
SUFFIXES = {".md", ".rst", ".txt", ".py", ".pyi", ".html", ".toml", ".cfg", ".c", ".h", ".js", ".css"}
NAMES = {"README", "METADATA", "LICENSE", "NEWS", "CHANGES", "AUTHORS", "copyright", "changelog"}
MAX_FILE = 4_000_000


def packages_root() -> Path:
    return Path(sysconfig.get_paths()["purelib"])


def _wanted(path: Path) -> bool:
    name = path.name[:-3] if path.name.endswith(".gz") else path.name
    stem = name.split(".", 1)[0]
    return Path(name).suffix.lower() in SUFFIXES or stem in NAMES or stem.upper() in NAMES


def candidates(root: Path) -> list[Path]:
    """Files of ``root`` that may be text, symlinks skipped, in sorted path order."""
    if not root.is_dir():
        return []
    return sorted(p for p in root.rglob("*") if _wanted(p) and p.is_file() and not p.is_symlink())


def text_of(path: Path) -> bytes | None:
    """The file's bytes (unpacked if gzipped) when they are text, else ``None``."""
    try:
        if path.stat().st_size > MAX_FILE:
            return None
        data = path.read_bytes()
        if path.suffix == ".gz":
            data = gzip.decompress(data)
    except (OSError, EOFError, gzip.BadGzipFile):
        return None
    if not data or len(data) > MAX_FILE or b"\0" in data:
        return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        if sum(b < 32 and b not in b"\t\n\r\f" for b in data[:4096]) > 8:  # control bytes: not text
            return None
    return data


def build(folder: Path, megabytes: float) -> list[str]:
    """Copy the corpus into ``folder`` (a sandbox root: one UUID content
    folder per origin); the sandbox-relative paths of the files, in order."""
    origins = [("site-packages", packages_root()), ("usr-share-doc", DEBIAN_DOC)]
    lists = []
    for name, root in origins:
        content = folder / str(uuid.uuid5(uuid.NAMESPACE_URL, f"bench-corpus/{name}"))
        lists.append([(content, root, path) for path in candidates(root)])
    seen: set[bytes] = set()
    written: list[str] = []
    total = 0
    for entry in itertools.chain.from_iterable(itertools.zip_longest(*lists)):
        if entry is None:
            continue
        content, root, path = entry
        data = text_of(path)
        if data is None:
            continue
        digest = hashlib.sha256(data).digest()
        if digest in seen:
            continue
        seen.add(digest)
        relative = path.relative_to(root)
        if path.suffix == ".gz":
            relative = relative.with_name(relative.name[:-3])
        target = content / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        written.append(f"{content.name}/{relative.as_posix()}")
        total += len(data)
        if total >= megabytes * 1e6:
            break
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--mb", type=float, default=55)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        files = build(root, args.mb)
        sizes = [(root / rel).stat().st_size for rel in files]
        ascii_only = sum((root / rel).read_bytes().isascii() for rel in files)
        digest = hashlib.sha256("\n".join(files).encode()).hexdigest()[:16]
        print(f"{len(files)} files, {sum(sizes) / 1e6:.1f} MB, {len(files) - ascii_only} not pure ASCII")
        print(f"largest {max(sizes) / 1e6:.2f} MB; file list digest {digest}")


if __name__ == "__main__":
    main()
