"""Run an engine's CLI as a child process and yield its output lines.

Built for how agent CLIs really fail (see shared/CLAUDE_CODE_FACTS.md §5): lines
of hundreds of KB, non-JSON and invalid UTF-8 on stdout, chatty stderr, hangs
with or without a result line, children that ignore SIGINT and grandchildren
spawned by tools. So: argv only (never a shell), stdin from /dev/null, its own
process group, lines framed from raw chunks with a large cap, stderr drained
concurrently, an idle watchdog and an overall timeout, and a stop that escalates
SIGINT → SIGTERM → SIGKILL on the whole group.

Pure Python: no Django imports.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import tempfile
import time
from collections import deque
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from researchmind.engines.base import Availability, OutputLine, RunOutcome, one_by_one

QUESTION = "{question}"  # an argv element equal to this is replaced by the question
INHERITED_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR")
STDERR_LINE_MAX = 64 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    """Time and size limits of one run (seconds and bytes; ``None`` = no limit)."""

    max_line_bytes: int = 64 * 1024 * 1024
    idle_timeout: float | None = 600.0  # no stdout line for this long → stop ("idle")
    timeout: float | None = 3600.0  # whole run → stop ("timeout")
    exit_grace_after_result: float = 5.0  # a CLI may linger after its result line
    interrupt_grace: float = 5.0  # SIGINT → wait this long → SIGTERM
    terminate_grace: float = 5.0  # SIGTERM → wait this long → SIGKILL
    pipe_grace_after_exit: float = 2.0  # leader gone but a grandchild holds the pipes
    stderr_max_bytes: int = 8 * 1024 * 1024  # stderr kept (and yielded) up to this much
    stderr_tail_lines: int = 50
    chunk_size: int = 256 * 1024


def child_env(extra: Mapping[str, str] | None = None, inherit: Sequence[str] = ()) -> dict[str, str]:
    """An explicit environment: a few inherited variables plus ``extra``.

    Nothing else leaks from the server's environment; in particular ``CLAUDECODE``
    and ``CLAUDE_CODE_*`` (set when the server itself runs under Claude Code) would
    change how a child ``claude`` behaves, so they are never inherited."""
    env = {}
    for name in (*INHERITED_ENV, *inherit):
        if name in os.environ and name != "CLAUDECODE" and not name.startswith("CLAUDE_CODE_"):
            env[name] = os.environ[name]
    env.update(extra or {})
    return env


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


def _running(pid: int) -> bool:
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


def resolve_executable(program: str | os.PathLike[str], search_path: str | None = None) -> str | None:
    """The absolute path of ``program`` if it exists and is executable, else ``None``."""
    program = os.fspath(program)
    if os.sep in program:
        return str(Path(program).absolute()) if os.access(program, os.X_OK) else None
    return shutil.which(program, path=search_path)


class LineFramer:
    """Splits a byte stream into lines on ``b"\\n"`` only, whatever the chunk boundaries.

    A line longer than ``max_bytes`` is cut to ``max_bytes`` and reported as cut;
    the rest of it, up to the next newline, is skipped. Lines stay bytes, so a
    multi-byte character split across chunks is decoded whole later."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._buffer = bytearray()
        self._skipping = False

    def feed(self, data: bytes) -> list[tuple[bytes, bool]]:
        lines: list[tuple[bytes, bool]] = []
        start = 0
        while (newline := data.find(b"\n", start)) >= 0:
            self._take(data[start:newline], lines, line_ended=True)
            start = newline + 1
        self._take(data[start:], lines, line_ended=False)
        return lines

    def close(self) -> list[tuple[bytes, bool]]:
        """The unterminated last line, if any (a CLI killed mid-line leaves one)."""
        rest = [] if self._skipping or not self._buffer else [(bytes(self._buffer), False)]
        self._buffer.clear()
        return rest

    def _take(self, piece: bytes, lines: list[tuple[bytes, bool]], *, line_ended: bool) -> None:
        if self._skipping:
            self._skipping = not line_ended
            return
        self._buffer += piece
        if len(self._buffer) > self.max_bytes:
            lines.append((bytes(self._buffer[: self.max_bytes]), True))
            self._buffer.clear()
            self._skipping = not line_ended
        elif line_ended:
            lines.append((bytes(self._buffer), False))
            self._buffer.clear()


def is_result_line(line: bytes) -> bool:
    # Key order is not stable across CLI versions: parse, never prefix-match.
    if b'"result"' not in line or not line.lstrip().startswith(b"{"):
        return False
    try:
        return json.loads(line).get("type") == "result"
    except (ValueError, AttributeError):
        return False


async def run_process(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    cancel: asyncio.Event,
    outcome: RunOutcome,
    limits: Limits | None = None,
) -> AsyncIterator[list[OutputLine]]:
    """Run ``argv`` and yield its stdout and stderr lines as they arrive, in
    batches (the lines read together; never empty).

    The iterator ends when the process has exited and its pipes are closed; by
    then ``outcome`` holds the return code, why we stopped it (if we did) and the
    stderr tail, and no process of its group is left running. Closing the
    iterator early kills the group at once."""
    if cancel.is_set():
        outcome.killed_by = "cancel"
        return
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            env=dict(env),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as error:
        message = f"Could not start {argv[0]}: {error.strerror or error}"
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
            while self.process.returncode is None and _running(self.process.pid):
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
        steps = ((signal.SIGINT, self.limits.interrupt_grace), (signal.SIGTERM, self.limits.terminate_grace))
        for sig, grace in steps:
            signal_group(self.pgid, sig)
            if await self._group_gone_within(grace):
                return
        signal_group(self.pgid, signal.SIGKILL)

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
                {exited}, timeout=self.limits.interrupt_grace + self.limits.terminate_grace + 1
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
        if self.process.returncode is None and self.outcome.killed_by is None:
            self.outcome.killed_by = "cancel"  # the consumer stopped listening mid-run
        if self.process.returncode is None or group_alive(self.pgid):
            signal_group(self.pgid, signal.SIGKILL)
        for task in [*self.tasks, *([self.stopper] if self.stopper else [])]:
            task.cancel()
        if self.process.returncode is None:
            with contextlib.suppress(asyncio.TimeoutError, ProcessLookupError):
                await asyncio.wait_for(self.process.wait(), 10)
        await asyncio.gather(*self.tasks, *([self.stopper] if self.stopper else []), return_exceptions=True)
        self.outcome.returncode = self.process.returncode
        self.outcome.stderr_tail = list(self.tail)


class SubprocessEngine:
    """Runs a command in the sandbox; subclasses build the argv and environment.

    ``argv[0]`` is resolved with ``shutil.which`` (or taken as a path); an element
    equal to ``QUESTION`` becomes the question, as one argv element."""

    name = "subprocess"
    label = "Command"
    install_hint = ""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        inherit_env: Sequence[str] = (),
        limits: Limits | None = None,
        name: str | None = None,
        label: str | None = None,
    ) -> None:
        if not argv:
            raise ValueError("A subprocess engine needs a command to run (argv is empty).")
        self.argv = [os.fspath(part) for part in argv]
        self.env = dict(env or {})
        self.inherit_env = tuple(inherit_env)
        self.limits = limits or Limits()
        self.name = name or self.name
        self.label = label or self.label

    def executable(self) -> str | None:
        return resolve_executable(self.argv[0])

    def availability(self) -> Availability:
        if self.executable() is None:
            hint = f" ({self.install_hint})" if self.install_hint else ""
            return Availability(False, f"{Path(self.argv[0]).name} is not installed{hint}")
        return Availability(True)

    async def prepare(self) -> None:
        """Hook run before each run, e.g. to probe the installed CLI's flags."""

    def command(self, question: str, sandbox: Path, scratch: Path) -> list[str]:
        program = self.executable() or self.argv[0]
        return [program, *(question if part == QUESTION else part for part in self.argv[1:])]

    def environment(self, sandbox: Path, scratch: Path) -> dict[str, str]:
        return child_env(self.env, self.inherit_env)

    def stream(
        self, question: str, sandbox: Path, *, cancel: asyncio.Event, outcome: RunOutcome
    ) -> AsyncIterator[OutputLine]:
        return one_by_one(self.stream_batches(question, sandbox, cancel=cancel, outcome=outcome))

    async def stream_batches(
        self, question: str, sandbox: Path, *, cancel: asyncio.Event, outcome: RunOutcome
    ) -> AsyncIterator[list[OutputLine]]:
        await self.prepare()
        # A per-run scratch folder (HOME, config, prompt files), removed afterwards.
        with tempfile.TemporaryDirectory(
            prefix=f"researchmind-{self.name}-", ignore_cleanup_errors=True
        ) as tmp:
            scratch = Path(tmp)
            argv = self.command(question, sandbox, scratch)
            env = self.environment(sandbox, scratch)
            batches = run_process(
                argv, cwd=sandbox, env=env, cancel=cancel, outcome=outcome, limits=self.limits
            )
            # aclosing: if our consumer stops early, the child is killed now, not at GC.
            async with contextlib.aclosing(batches):
                async for batch in batches:
                    yield batch
