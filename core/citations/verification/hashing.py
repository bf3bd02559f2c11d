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
        cores = os.cpu_count() or 1  # pragma: no mutate: sched_getaffinity exists on Linux: never runs here
    if cores < 2:  # pragma: no mutate: speed only: worker thread or not, the same digest
        return False  # pragma: no mutate: speed only: worker thread or not, the same digest
    try:
        with open("/proc/loadavg", "rb") as handle:  # pragma: no mutate: speed only: the same digest
            # Not mutated: speed only: decides whether to hash on a worker thread, never the digest
            running = int(handle.read().split()[3].split(b"/")[0])  # pragma: no mutate
        return running < cores  # pragma: no mutate: speed only: worker thread or not, the same digest
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.getloadavg()[0] < cores - 0.5  # pragma: no mutate: speed only: thread or not, same digest
    except (AttributeError, OSError):
        return False  # pragma: no mutate: speed only: worker thread or not, the same digest


class HashingError(RuntimeError):
    """The worker thread could not hash a buffer."""


class Digest:
    """A SHA-256 being computed; ``hexdigest()`` waits for the worker."""

    __slots__ = ("_hasher", "queued", "sha")

    def __init__(self, hasher: Hasher) -> None:
        self._hasher = hasher
        self.sha = hashlib.sha256()
        # Not mutated: None and False alike mean not queued (only its truth is read)
        self.queued = False  # once one update went to the worker, all do  # pragma: no mutate

    def hexdigest(self) -> str:
        if self.queued:
            self._hasher.finish()
        return self.sha.hexdigest()


class Hasher:
    """Hashes buffers in order on one worker thread, started on first need."""

    def __init__(self, threaded: bool | None = None) -> None:
        # Not mutated: speed only: None then means never threaded; the same bytes hashed in order
        self._threaded = spare_core() if threaded is None else threaded  # pragma: no mutate
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
            # Not mutated: None and False alike mean not queued (only its truth is read)
            digest.queued = False  # the worker is done with every earlier update  # pragma: no mutate
        # Not mutated: speed only: exactly THREAD_MIN bytes hashed in place, not on the worker: same digest
        if digest.queued or (len(data) >= THREAD_MIN and self._start_worker()):  # pragma: no mutate
            digest.queued = True
            self._queue.put((digest.sha, data))
        else:
            digest.sha.update(data)

    def _start_worker(self) -> bool:
        if self._thread is not None:
            return True  # pragma: no mutate: speed only: worker thread or not, the same digest
        if not self._threaded:
            return False
        # pragma: no mutate start (finish() always joins the worker, and its name is never read)
        thread = threading.Thread(target=self._work, name="citation-hashing", daemon=True)
        # pragma: no mutate end
        try:
            thread.start()
        except RuntimeError:  # no thread to be had: hash in place
            self._threaded = False  # pragma: no mutate: needs the OS to refuse a thread
            return False  # pragma: no mutate: only if the OS refuses a thread, which cannot be made to happen
        self._thread = thread
        return True  # pragma: no mutate: speed only: worker thread or not, the same digest

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
            # Not mutated: None and False alike mean no worker (only its truth is read)
            self._threaded = False  # any later update is hashed in place  # pragma: no mutate
        if self._error is not None:
            raise HashingError(f"A file could not be hashed: {self._error}") from self._error
