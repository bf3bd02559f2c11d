"""SHA-256 of the files verified, taken off the main thread.

The digest is of exactly the bytes the verifier read (no second read), and
``hashlib`` lets go of the GIL while it hashes a large buffer, so a worker
thread can hash one file while the main thread searches the next: on two
cores the hash then costs almost no wall time. The worker only needs the
GIL for a moment between buffers, which it gets while the main thread waits
on its next ``read``. Updates of one digest keep their order (one worker,
one queue); small buffers are hashed in place, as a thread would cost more
than it saves. A digest's value is read only after the worker is done.

A thread only pays when a core is idle: on a machine already busy the
worker only takes turns with the main thread, costing more than it hides
(measured), so hashing then stays in place (see ``spare_core``).
"""

from __future__ import annotations

import hashlib
import os
import queue
import threading

THREAD_MIN = 64 * 1024  # smaller buffers are hashed on the calling thread
MAX_PENDING = 4  # buffers waiting for the worker (bounds the memory held)


def spare_core() -> bool:
    """Whether another core is likely idle to hash on: fewer tasks runnable
    right now (this one included) than cores, from Linux's /proc/loadavg;
    elsewhere, a one-minute load average below the cores less one half."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    if cores < 2:
        return False
    try:
        with open("/proc/loadavg", "rb") as handle:
            running = int(handle.read().split()[3].split(b"/")[0])
        return running < cores
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.getloadavg()[0] < cores - 0.5
    except (AttributeError, OSError):
        return False


class HashingError(RuntimeError):
    """The worker thread could not hash a buffer."""


class Digest:
    """A SHA-256 being computed; ``hexdigest()`` waits for the worker."""

    __slots__ = ("_hasher", "queued", "sha")

    def __init__(self, hasher: Hasher) -> None:
        self._hasher = hasher
        self.sha = hashlib.sha256()
        self.queued = False  # once one update went to the worker, all do

    def hexdigest(self) -> str:
        if self.queued:
            self._hasher.finish()
        return self.sha.hexdigest()


class Hasher:
    """Hashes buffers in order on one worker thread, started on first need."""

    def __init__(self, threaded: bool | None = None) -> None:
        self._threaded = spare_core() if threaded is None else threaded
        self._queue: queue.Queue = queue.Queue(MAX_PENDING)
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    def start(self, data: bytes) -> Digest:
        """A new digest, fed ``data`` first."""
        digest = Digest(self)
        self.update(digest, data)
        return digest

    def update(self, digest: Digest, data: bytes) -> None:
        if digest.queued and self._thread is None and self._error is None:
            digest.queued = False  # the worker is done with every earlier update
        if digest.queued or (len(data) >= THREAD_MIN and self._start_worker()):
            digest.queued = True
            self._queue.put((digest.sha, data))
        else:
            digest.sha.update(data)

    def _start_worker(self) -> bool:
        if self._thread is not None:
            return True
        if not self._threaded:
            return False
        thread = threading.Thread(target=self._work, name="citation-hashing", daemon=True)
        try:
            thread.start()
        except RuntimeError:  # no thread to be had: hash in place
            self._threaded = False
            return False
        self._thread = thread
        return True

    def _work(self) -> None:
        while (item := self._queue.get()) is not None:
            if self._error is None:
                try:
                    item[0].update(item[1])
                except BaseException as error:  # surfaced by finish(), never lost
                    self._error = error

    def finish(self) -> None:
        """Wait until every buffer handed over is hashed; raises
        ``HashingError`` if one could not be."""
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._thread = None
            self._threaded = False  # any later update is hashed in place
        if self._error is not None:
            raise HashingError(f"A file could not be hashed: {self._error}") from self._error
