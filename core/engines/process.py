"""Run a command as a child process and yield its output, chunk by chunk.

Argv only (never a shell), stdin from /dev/null, its own process group, lines
framed from raw chunks with a large cap, stderr drained concurrently, an idle
watchdog and an overall timeout, and a stop that escalates SIGINT → SIGTERM →
SIGKILL on the whole group. Pure Python: no Django imports.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections import deque
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from core.engines.base import OutputLine, RunOutcome
from core.engines.framing import LineFramer, is_result_line
from core.engines.procgroup import group_alive, running, signal_group

STDERR_LINE_MAX = 64 * 1024


# How long close() waits for asyncio to reap a leader that has already exited.
REAP_WAIT = 2.0


@dataclass(frozen=True, slots=True)
class Limits:
    """Time and size limits of one run (seconds and bytes; ``None`` = no limit)."""

    max_line_bytes: int = 64 * 1024 * 1024
    idle_timeout: float | None = 600.0  # no stdout line for this long → stop ("idle")
    timeout: float | None = 3600.0  # whole run → stop ("timeout")
    exit_grace_after_result: float = 5.0  # a CLI may linger after its result line
    interrupt_grace: float = 5.0  # SIGINT → wait this long → SIGTERM
    terminate_grace: float = 5.0  # SIGTERM → wait this long → SIGKILL
    # A person pressing Cancel waits for it: SIGINT, then force after these,
    # so a cancel ends within ~3 s (with the run's 0.5 s cancel poll).
    cancel_grace: float = 2.0  # SIGINT → wait this long → SIGTERM
    cancel_kill_grace: float = 0.5  # SIGTERM → wait this long → SIGKILL
    pipe_grace_after_exit: float = 2.0  # leader gone but a grandchild holds the pipes
    stderr_max_bytes: int = 8 * 1024 * 1024  # stderr kept (and yielded) up to this much
    stderr_tail_lines: int = 50
    chunk_size: int = 256 * 1024


async def run_process(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    cancel: asyncio.Event,
    outcome: RunOutcome,
    limits: Limits | None = None,
    stdin: Path | None = None,
) -> AsyncIterator[list[OutputLine]]:
    """Run ``argv`` (reading the file ``stdin`` on its standard input, else
    /dev/null) and yield its stdout and stderr lines as they arrive, in
    batches (the lines read together; never empty).

    The iterator ends when the process has exited and its pipes are closed; by
    then ``outcome`` holds the return code, why we stopped it (if we did) and the
    stderr tail, and no process of its group is left running. Closing the
    iterator early kills the group at once."""
    if cancel.is_set():
        outcome.killed_by = "cancel"
        return
    try:
        with open(stdin, "rb") if stdin is not None else contextlib.nullcontext() as source:
            process = await asyncio.create_subprocess_exec(
                *argv,
                cwd=cwd,
                env=dict(env),
                stdin=source if source is not None else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
            )
    except OSError as error:
        # The program's name only: the server's paths are no one else's business
        # (and ``str(error)`` would name them).
        message = f"Could not start {Path(argv[0]).name}: {error.strerror or error.__class__.__name__}"
        outcome.returncode = 127 if isinstance(error, FileNotFoundError) else 126
        outcome.stderr_tail = [message]
        yield [OutputLine("stderr", message)]
        return
    run = _Run(process, cancel, outcome, limits or Limits())
    try:
        async with contextlib.aclosing(run.batches()) as batches:
            async for batch in batches:
                yield batch
    finally:
        await run.close()


class _Run:
    """The state of one running child: reader tasks, deadlines and the stopper."""

    def __init__(
        self, process: asyncio.subprocess.Process, cancel: asyncio.Event, outcome: RunOutcome, limits: Limits
    ) -> None:
        self.process, self.cancel, self.outcome, self.limits = process, cancel, outcome, limits
        self.pgid = process.pid  # start_new_session: the child leads its own group
        # Bounded, so a consumer that falls behind slows the child down instead of
        # growing memory; both pipes keep draining into it concurrently.
        self.queue: asyncio.Queue[tuple[str, bytes | None, bool]] = asyncio.Queue(maxsize=64)
        self.tasks: list[asyncio.Task[object]] = []
        self.stopper: asyncio.Task[None] | None = None
        self.tail: deque[str] = deque(maxlen=limits.stderr_tail_lines)
        self.stderr_bytes = 0
        self.started = self.last_stdout = time.monotonic()
        self.result_at: float | None = None
        self.pipes_deadline: float | None = None  # set once the leader has exited
        self.orphans_killed = False

    async def _pump(self, stream: asyncio.StreamReader, source: str) -> None:
        framer = LineFramer(self.limits.max_line_bytes if source == "stdout" else STDERR_LINE_MAX)
        while chunk := await stream.read(self.limits.chunk_size):
            for line, cut in framer.feed(chunk):
                await self.queue.put((source, line, cut))
        for line, cut in framer.close():
            await self.queue.put((source, line, cut))
        await self.queue.put((source, None, False))

    async def _leader_exit(self) -> None:
        # Not process.wait(): it also waits for the pipes to close, and a grandchild
        # that inherited them can hold them open forever. A pidfd fires on exit itself.
        try:
            pidfd = os.pidfd_open(self.process.pid)
        except (AttributeError, OSError):  # no pidfd here, or already exited and reaped
            while self.process.returncode is None and running(self.process.pid):
                await asyncio.sleep(0.1)
            return
        exited = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().add_reader(pidfd, lambda: exited.done() or exited.set_result(None))
        try:
            await exited
        finally:
            asyncio.get_running_loop().remove_reader(pidfd)
            os.close(pidfd)

    def stop(self, reason: str | None) -> None:
        """Start stopping the group (once); output keeps flowing meanwhile, so a
        CLI that prints a final result on SIGINT still gets it through."""
        if self.outcome.killed_by is None:
            self.outcome.killed_by = reason
        if self.stopper is None:
            self.stopper = asyncio.create_task(self._escalate())

    async def _escalate(self) -> None:
        limits = self.limits
        if self.outcome.killed_by == "cancel":
            steps = ((signal.SIGINT, limits.cancel_grace), (signal.SIGTERM, limits.cancel_kill_grace))
        else:
            steps = ((signal.SIGINT, limits.interrupt_grace), (signal.SIGTERM, limits.terminate_grace))
        for sig, grace in steps:
            self._signal(sig)
            if await self._group_gone_within(grace):
                return
        self._signal(signal.SIGKILL)

    def _signal(self, sig: signal.Signals) -> None:
        self.outcome.signals.append(sig.name)
        signal_group(self.pgid, sig)

    async def _group_gone_within(self, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while group_alive(self.pgid):
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(0.05)
        return True

    async def batches(self) -> AsyncIterator[list[OutputLine]]:
        assert self.process.stdout is not None and self.process.stderr is not None
        exited = asyncio.create_task(self._leader_exit())
        cancelled = asyncio.create_task(self.cancel.wait())
        self.tasks = [
            asyncio.create_task(self._pump(self.process.stdout, "stdout")),
            asyncio.create_task(self._pump(self.process.stderr, "stderr")),
            exited,
            cancelled,
        ]
        waiting: set[asyncio.Task[object]] = {exited, cancelled}
        open_pipes, get = 2, None
        self.started = self.last_stdout = time.monotonic()
        while open_pipes:
            if get is None:
                get = asyncio.create_task(self.queue.get())
                self.tasks.append(get)
            deadline = self._next_deadline()
            timeout = max(0.0, deadline[0] - time.monotonic()) if deadline else None
            done, _ = await asyncio.wait(
                waiting | {get}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
            now = time.monotonic()
            if cancelled in done:
                waiting.discard(cancelled)
                self.stop("cancel")
            if exited in done:
                waiting.discard(exited)
                self.pipes_deadline = now + self.limits.pipe_grace_after_exit
            if get in done:
                items, get = [get.result()], None
                while len(items) < 256 and not self.queue.empty():  # take a burst in one go
                    items.append(self.queue.get_nowait())
                batch = []
                for source, data, cut in items:
                    if data is None:
                        open_pipes -= 1
                    elif (line := self._accept(source, data, cut, now)) is not None:
                        batch.append(line)
                if batch:
                    yield batch
            if (deadline := self._next_deadline()) and now >= deadline[0]:
                if deadline[1] == "abandon":
                    break  # not even SIGKILL closed them: a process left our group
                self._on_deadline(deadline[1])
        # Both pipes are closed; the leader normally exits right after.
        await asyncio.wait({exited}, timeout=self.limits.exit_grace_after_result)
        if not exited.done():
            self.stop("idle")  # closed its output but kept running
            await asyncio.wait(
                {exited},
                timeout=max(
                    self.limits.interrupt_grace + self.limits.terminate_grace,
                    self.limits.cancel_grace + self.limits.cancel_kill_grace,
                )
                + 1,
            )

    def _accept(self, source: str, data: bytes, cut: bool, now: float) -> OutputLine | None:
        if source == "stderr":
            return self._keep_stderr(data, cut)
        self.last_stdout = now
        if cut:
            self.stop("line_too_long")
        elif self.result_at is None and is_result_line(data):
            self.result_at = now
        return OutputLine("stdout", data.decode("utf-8", "replace"), data)

    def _next_deadline(self) -> tuple[float, str] | None:
        """The next moment the loop must act on its own, and what to do then."""
        limits = self.limits
        if self.pipes_deadline is not None:  # the leader exited; orphans may hold the pipes
            if self.orphans_killed:
                return self.pipes_deadline + 1.0, "abandon"
            return self.pipes_deadline, "kill-orphans"
        if self.stopper is not None:
            return None  # stopping: the stopper owns the timing; EOF or exit wakes us
        candidates = []
        if limits.timeout is not None:
            candidates.append((self.started + limits.timeout, "timeout"))
        if limits.idle_timeout is not None:
            candidates.append((self.last_stdout + limits.idle_timeout, "idle"))
        if self.result_at is not None:
            candidates.append((self.result_at + limits.exit_grace_after_result, "after-result"))
        return min(candidates) if candidates else None

    def _on_deadline(self, action: str) -> None:
        if action == "kill-orphans":
            signal_group(self.pgid, signal.SIGKILL)
            self.orphans_killed = True
        elif action == "after-result":
            self.stop(None)  # the answer is complete; the CLI just did not exit
        else:
            self.stop(action)  # "timeout" or "idle"

    def _keep_stderr(self, data: bytes, cut: bool) -> OutputLine | None:
        limits = self.limits
        if self.stderr_bytes > limits.stderr_max_bytes:
            return None  # still drained, no longer kept
        self.stderr_bytes += len(data) + 1
        text = data.decode("utf-8", "replace") + (" […line cut]" if cut else "")
        if self.stderr_bytes > limits.stderr_max_bytes:
            text = f"[researchmind: stderr beyond {limits.stderr_max_bytes} bytes is not kept]"
        self.tail.append(text)
        return OutputLine("stderr", text)

    async def close(self) -> None:
        """Leave nothing behind: kill whatever is left of the group, reap the child."""
        if self.process.returncode is None and not running(self.process.pid):
            # The leader has exited (its pidfd fired) but asyncio has not reaped it yet, as on a
            # loaded machine: it was not stopped mid-run, so wait for the reap before judging.
            deadline = time.monotonic() + REAP_WAIT
            while self.process.returncode is None and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
        if self.process.returncode is None and self.outcome.killed_by is None:
            self.outcome.killed_by = "cancel"  # the consumer stopped listening mid-run
        if self.process.returncode is None or group_alive(self.pgid):
            if self.outcome.signals[-1:] == ["SIGKILL"]:
                # the escalation's kill is still landing (a loaded machine reaps late): kill
                # again, but the outcome names each step once
                signal_group(self.pgid, signal.SIGKILL)
            else:
                self._signal(signal.SIGKILL)
        for task in [*self.tasks, *([self.stopper] if self.stopper else [])]:
            task.cancel()
        if self.process.returncode is None:
            with contextlib.suppress(asyncio.TimeoutError, ProcessLookupError):
                await asyncio.wait_for(self.process.wait(), 10)
        await asyncio.gather(*self.tasks, *([self.stopper] if self.stopper else []), return_exceptions=True)
        self.outcome.returncode = self.process.returncode
        self.outcome.stderr_tail = list(self.tail)
