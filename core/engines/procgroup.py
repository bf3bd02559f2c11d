"""A child's process group: signalling it and knowing whether any of it
still runs (zombies excluded). Linux /proc; pure Python, no Django imports.
"""

from __future__ import annotations

import contextlib
import os


def signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _proc_stat(pid: str | int) -> tuple[bytes, int] | None:
    """(state, process group) of a process from /proc, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        return fields[0], int(fields[2])
    except (OSError, IndexError, ValueError):
        return None


def running(pid: int) -> bool:
    stat = _proc_stat(pid)
    return stat is not None and stat[0] not in (b"Z", b"X")


def group_alive(pgid: int) -> bool:
    """Whether any process of the group is still running.

    Zombies do not count: an orphaned grandchild is reparented to PID 1, and a
    container's PID 1 may never reap it, yet it is already dead."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    if not os.path.isdir("/proc/self"):
        return True
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and (stat := _proc_stat(entry.name)) is not None:
            if stat[1] == pgid and stat[0] not in (b"Z", b"X"):
                return True
    return False
