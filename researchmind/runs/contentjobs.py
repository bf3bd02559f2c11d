"""Where content ingests run, and who runs each one.

An ingest is a *job*: a JSON file in the session's private state
(``ingest/<item>.json``: what to add, where its spooled upload is, and which
process queued it), so any process that shares the state folder can run it —
a pool worker of the web process that queued it, or a Celery worker. The
process that takes a job creates ``ingest/<item>.claim`` (exclusively: a job
runs once) holding its ``host:pid``, and touches it while it works, so a
claim whose process died (same host) or that went stale (another host) is
found by the recovery in ``researchmind/services.py``.

In the embedded default the web process runs jobs in a bounded pool
(``INGEST_WORKERS`` workers; more jobs wait in its queue and their item shows
"Queued"): threads, or processes when ``INGEST_POOL = "process"``
(docs/ARCHITECTURE.md says which and why).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import queue
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from multiprocessing import get_context
from pathlib import Path

from django.conf import settings
from django.db import close_old_connections

from researchmind import poolworker
from researchmind.runs.lease import _pid_alive

log = logging.getLogger(__name__)

JOB_DIR = "ingest"
CLAIM_RENEW_SECONDS = 10
CLAIM_STALE_SECONDS = 60  # a claim untouched this long belongs to a process that is gone
QUEUED_BY_CELERY = "celery"


def this_process() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def job_path(state_path: Path, item_id) -> Path:
    return Path(state_path) / JOB_DIR / f"{item_id}.json"


def claim_path(state_path: Path, item_id) -> Path:
    return Path(state_path) / JOB_DIR / f"{item_id}.claim"


def write_job(state_path: Path, item_id, spec: dict, *, queued_by: str) -> None:
    """Write the job whole (a temporary file renamed into place)."""
    path = job_path(state_path, item_id)
    partial = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}")
    payload = json.dumps({"spec": spec, "queued_by": queued_by})
    _in_job_dir(path, lambda: (partial.write_text(payload, encoding="utf-8"), os.replace(partial, path)))


def _in_job_dir(path: Path, write: Callable[[], object]):
    """Run ``write`` with the job folder there: ``release`` removes it when it
    empties, perhaps between our ``mkdir`` and our write."""
    for _attempt in range(5):
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            return write()
        except FileNotFoundError:
            continue
    return write()


def read_job(state_path: Path, item_id) -> dict | None:
    try:
        return json.loads(job_path(state_path, item_id).read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return None


def claim(state_path: Path, item_id) -> bool:
    """Take the job: True for exactly one caller until ``release``."""
    path = claim_path(state_path, item_id)
    try:
        fd = _in_job_dir(path, lambda: os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        return False
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(this_process())
    return True


def claim_owner(state_path: Path, item_id) -> tuple[str, float] | None:
    """``(host:pid, seconds since it was last touched)`` of the job's claim, if any."""
    path = claim_path(state_path, item_id)
    try:
        return path.read_text(encoding="utf-8").strip(), time.time() - path.stat().st_mtime
    except FileNotFoundError:
        return None


def release(state_path: Path, item_id) -> None:
    for path in (job_path(state_path, item_id), claim_path(state_path, item_id)):
        path.unlink(missing_ok=True)
    with contextlib.suppress(OSError):  # the folder goes when its last job does
        job_path(state_path, item_id).parent.rmdir()


def process_gone(owner: str, *, idle: float | None = None) -> bool:
    """Whether the process ``host:pid`` is known to be gone: it was on this host
    and is not running, or (``idle`` seconds since its last sign of life) it
    has been silent longer than ``CLAIM_STALE_SECONDS``."""
    host, _, pid = owner.rpartition(":")
    if host == socket.gethostname() and pid.isdigit():
        return not _pid_alive(int(pid)) or _zombie(int(pid))
    return idle is not None and idle > CLAIM_STALE_SECONDS


def _zombie(pid: int) -> bool:
    """A process that has exited but is not reaped yet (a pool's killed worker) still has its pid."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[:1] == ["Z"]


@contextlib.contextmanager
def renewing(state_path: Path, item_id) -> Iterator[None]:
    """Touch the job's claim every ``CLAIM_RENEW_SECONDS`` while the body runs."""
    path = claim_path(state_path, item_id)
    done = threading.Event()

    def beat() -> None:
        while not done.wait(CLAIM_RENEW_SECONDS):
            with contextlib.suppress(OSError):
                os.utime(path)

    beater = threading.Thread(target=beat, name=f"ingest-claim-{item_id}", daemon=True)
    beater.start()
    try:
        yield
    finally:
        done.set()


# The pool -----------------------------------------------------------------


class ThreadPool:
    """``workers`` daemon threads taking jobs in order from one queue. Daemon
    threads: a server stopping does not wait for an ingest (the recovery
    marks an ingest the stop cut short)."""

    def __init__(self, workers: int) -> None:
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        for index in range(workers):
            threading.Thread(target=self._work, name=f"ingest-{index}", daemon=True).start()

    def submit(self, fn: Callable[..., object], *args) -> None:
        self._jobs.put((fn, args))  # no future: a thread pool never breaks

    def _work(self) -> None:
        while True:
            fn, args = self._jobs.get()
            pooled(fn, *args)


def pooled(fn: Callable[..., object], *args) -> None:
    """Run one job in a pool worker: never let an error kill the worker, and
    give the database connection back after it."""
    try:
        fn(*args)
    except Exception:
        log.exception("Ingest job %s failed outside its item", args)
    finally:
        close_old_connections()


_pool: ThreadPool | ProcessPoolExecutor | None = None
_pool_lock = threading.Lock()


def _get_pool() -> ThreadPool | ProcessPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            workers = max(1, int(settings.INGEST_WORKERS))
            if settings.INGEST_POOL == "process":
                # spawn, not fork: the web process has threads and an event loop. A
                # spawned worker starts with nothing imported: it lowers its priority
                # and sets Django up (before this module is unpickled in it).
                _pool = ProcessPoolExecutor(
                    workers,
                    mp_context=get_context("spawn"),
                    initializer=poolworker.start,
                    initargs=(int(settings.INGEST_NICE),),
                )
            else:
                _pool = ThreadPool(workers)
        return _pool


def warm() -> None:
    """Start the pool's processes now (the web process calls this at startup),
    so the first ingest does not wait for them to import Django."""
    pool = _get_pool()
    if isinstance(pool, ProcessPoolExecutor):
        for _ in range(max(1, int(settings.INGEST_WORKERS))):
            pool.submit(os.getpid)


def submit(fn: Callable[..., object], *args) -> None:
    """Queue ``fn(*args)`` on this process's ingest pool (``fn`` a module-level
    function: a process pool pickles it by name)."""
    pool = _get_pool()
    try:
        future = pool.submit(pooled, fn, *args)
    except BrokenProcessPool:
        _forget(pool)
        submit(fn, *args)
        return
    if future is not None:
        future.add_done_callback(partial(_after, pool, fn, args))


def _after(pool: ProcessPoolExecutor, fn: Callable[..., object], args: tuple, future: Future) -> None:
    """A pool worker process that died (a crash in a converter, the OOM killer)
    breaks its pool and every job queued in it: queue them again on a new pool.
    The job that was running keeps its claim, whose dead owner the recovery
    finds; its new delivery finds it taken. (This runs in the broken pool's
    own thread, which holds its locks: it must not shut that pool down.)"""
    if isinstance(future.exception(), BrokenProcessPool):
        _forget(pool)
        submit(fn, *args)


def _forget(pool: ProcessPoolExecutor) -> None:
    global _pool
    with _pool_lock:
        if _pool is pool:
            _pool = None
