"""A git repository: a shallow clone with no hooks and no symlinks, then the
history is dropped and the tree is checked against the limits."""

from __future__ import annotations

import os
import queue
import re
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
import time
from collections import deque
from pathlib import Path

from .common import (
    DEFAULT_LIMITS,
    Budget,
    IngestError,
    IngestResult,
    Limits,
    Progress,
    drop_binary,
    no_progress,
    no_text_error,
    staging,
)
from .documents import documents_dir_for, kept_privately, render_documents
from .gitsource import GitSource, classify

# The phase starts with a letter, so "remote:" followed by spaces cannot be
# split between ``\s*`` and the phase in n ways (that backtracked quadratically).
_PROGRESS = re.compile(
    r"^(?:remote:\s*)?(?P<phase>[A-Za-z][A-Za-z ]*):\s+\d+% \((?P<done>\d+)/(?P<total>\d+)\)"
)
# A line of git's stderr longer than this is not progress; only its head is kept.
MAX_STDERR_LINE = 4096
# Disk used while cloning may exceed the final tree (the pack sits beside
# the checkout); beyond this multiple of the limit we stop waiting for git.
CLONE_DISK_FACTOR = 2
POLL_SECONDS = 0.25

SAFE_CONFIG = [
    "-c", "core.symlinks=false",
    "-c", "core.hooksPath=/dev/null",
    "-c", "core.fsmonitor=false",
    "-c", "submodule.recurse=false",
    "-c", "http.followRedirects=false",  # a redirect could lead to an unchecked host
    "-c", "protocol.allow=never",
    "-c", "protocol.http.allow=always",
    "-c", "protocol.https.allow=always",
    "-c", "protocol.git.allow=always",
]  # fmt: skip


def git_command(source: GitSource, target: Path) -> list[str]:
    """The argv for the clone (a list, never a shell string)."""
    file_protocol = "always" if source.is_local else "never"
    return [
        "git",
        *SAFE_CONFIG,
        "-c", f"protocol.file.allow={file_protocol}",
        *source.config,
        "clone", "--depth", "1", "--no-tags", "--single-branch", "--progress",
        "--template=",  # no hook templates copied into the clone
        "--", source.clone_from, str(target),
    ]  # fmt: skip


def _git_env(home: str) -> dict[str, str]:
    """A clean environment: no prompts, no system or user config, no proxies."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": home,
        "LC_ALL": "C",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_ASKPASS": "true",
        "SSH_ASKPASS": "true",
    }


def stderr_lines(stream):
    """Yield git's stderr split on CR/LF, each line cut to ``MAX_STDERR_LINE``
    characters. Linear in the bytes read whatever their shape: only the new
    chunk is searched for separators, and an endless line is not buffered."""
    head = bytearray()  # the current line's first MAX_STDERR_LINE bytes
    while chunk := stream.read1(4096):
        *ended, rest = re.split(rb"[\r\n]", chunk)
        for piece in ended:
            head += piece[: max(0, MAX_STDERR_LINE - len(head))]
            yield head.decode("utf-8", "replace").strip()
            head = bytearray()
        head += rest[: max(0, MAX_STDERR_LINE - len(head))]
    if head:
        yield head.decode("utf-8", "replace").strip()


def _read_stderr(stream, updates: queue.Queue, tail: deque[str]) -> None:
    """Progress lines go to the queue, the rest to the tail."""
    for line in stderr_lines(stream):
        if not line:
            continue
        match = _PROGRESS.match(line)
        if match:
            updates.put((int(match["done"]), int(match["total"]), match["phase"].strip()))
        else:
            tail.append(line)


def _disk_usage(root: Path) -> int:
    total = 0
    for folder, _dirs, names in os.walk(root):
        for name in names:
            try:
                total += os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                pass
    return total


def _stop(process: subprocess.Popen) -> None:
    """Kill git and whatever it started (its own process group)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


def _clone(source: GitSource, target: Path, limits: Limits, report: Progress) -> None:
    with tempfile.TemporaryDirectory(prefix="rm-git-home-") as home:
        process = subprocess.Popen(
            git_command(source, target),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=_git_env(home),
            cwd=home,
            start_new_session=True,
        )
        updates: queue.Queue = queue.Queue()
        tail: deque[str] = deque(maxlen=20)
        reader = threading.Thread(target=_read_stderr, args=(process.stderr, updates, tail), daemon=True)
        reader.start()
        deadline = time.monotonic() + limits.git_timeout
        next_size_check = 0.0
        try:
            while process.poll() is None:
                try:
                    done, total, phase = updates.get(timeout=POLL_SECONDS)
                    report(done, total, phase)
                except queue.Empty:
                    pass
                now = time.monotonic()
                if now > deadline:
                    raise IngestError(
                        f"Cloning took longer than the time limit ({limits.git_timeout:g} s) and was stopped."
                    )
                if now >= next_size_check:
                    next_size_check = now + 1.0
                    if _disk_usage(target) > CLONE_DISK_FACTOR * limits.max_total_bytes:
                        raise IngestError(
                            "The repository is larger than the size limit; cloning was stopped."
                        )
        finally:
            if process.poll() is None:
                _stop(process)
            reader.join(timeout=5)
            if process.stderr is not None:
                process.stderr.close()
        while not updates.empty():
            report(*updates.get_nowait())
        if process.returncode != 0:
            reason = next((line for line in reversed(tail) if line.startswith(("fatal:", "error:"))), "")
            reason = reason or (tail[-1] if tail else f"git exited with status {process.returncode}")
            raise IngestError(f"git could not clone the repository: {reason}")


def flatten_tree(root: Path, budget: Budget) -> list[str]:
    """Drop ``.git``; turn any symlink into a small text file holding its
    target (never followed); remove special files; count against the limits."""
    git_dir = root / ".git"
    if git_dir.is_symlink() or git_dir.is_file():
        git_dir.unlink()
    elif git_dir.exists():
        shutil.rmtree(git_dir)
    files: list[str] = []
    for folder, dirs, names in os.walk(root, followlinks=False):
        for name in [*dirs, *names]:
            path = Path(folder, name)
            mode = os.lstat(path).st_mode
            relative = path.relative_to(root).as_posix()
            if stat.S_ISLNK(mode):
                target = os.readlink(path)
                path.unlink()
                path.write_text(f"{target}\n", encoding="utf-8", errors="replace")
                mode = os.lstat(path).st_mode
                if name in dirs:
                    dirs.remove(name)
            elif not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                path.unlink()
                continue
            if stat.S_ISREG(mode):
                budget.add_file(relative)
                size = os.lstat(path).st_size
                budget.add_bytes(relative, size, size)
                files.append(relative)
    return sorted(files)


def ingest_git(
    dest: str | os.PathLike[str],
    url_or_path: str,
    *,
    limits: Limits = DEFAULT_LIMITS,
    progress: Progress | None = None,
    allow_local: bool = True,
    allow_loopback: bool = False,
    staging_root: str | os.PathLike[str] | None = None,
    documents_dir: str | os.PathLike[str] | None = None,
) -> IngestResult:
    """Shallow-clone ``url_or_path`` into ``dest`` without its history;
    documents in the tree become their renditions (see ``ingest_files``).

    Remote URLs must be http(s):// or git:// on a public address (loopback
    only with ``allow_loopback``); local folders only with ``allow_local``.
    """
    report = progress or no_progress
    source = classify(url_or_path, allow_local=allow_local, allow_loopback=allow_loopback)
    report(0, None, f"Cloning {source.title}")
    budget = Budget(limits)
    with (
        kept_privately(documents_dir or documents_dir_for(dest)) as private,
        staging(dest, staging_root=staging_root) as root,
    ):
        _clone(source, root, limits, report)
        files = flatten_tree(root, budget)
        files, notes = render_documents(root, files, private, limits=limits, progress=report)
        files, skipped, size = drop_binary(root, files)
        if not files:
            raise no_text_error(skipped)
    report(len(files), len(files), "Repository ready")
    return IngestResult(
        title=source.title,
        file_count=len(files),
        byte_size=size,
        source_url=None if source.is_local else url_or_path.strip(),
        files=files,
        skipped=skipped,
        notes=notes,
    )
