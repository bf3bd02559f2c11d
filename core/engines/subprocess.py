"""Run an engine's CLI as a child process and yield its output lines.

Built for how agent CLIs really fail (docs/CLAUDE_CODE.md, Pitfalls): lines
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
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path

from core.engines.base import Availability, OutputLine, RunOutcome, one_by_one
from core.engines.framing import LineFramer, is_result_line
from core.engines.process import Limits, run_process
from core.engines.procgroup import group_alive, signal_group

__all__ = [
    "QUESTION",
    "Limits",
    "LineFramer",
    "SubprocessEngine",
    "child_env",
    "group_alive",
    "is_result_line",
    "resolve_executable",
    "run_process",
    "signal_group",
]

QUESTION = "{question}"  # an argv element equal to this is replaced by the question
INHERITED_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR")


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


def resolve_executable(program: str | os.PathLike[str], search_path: str | None = None) -> str | None:
    """The absolute path of ``program`` if it exists and is executable, else ``None``."""
    program = os.fspath(program)
    if os.sep in program:
        return str(Path(program).absolute()) if os.access(program, os.X_OK) else None
    return shutil.which(program, path=search_path)


class SubprocessEngine:
    """Runs a command in the sandbox; subclasses build the argv and environment.

    ``argv[0]`` is resolved with ``shutil.which`` (or taken as a path); an element
    equal to ``QUESTION`` becomes the question, as one argv element."""

    name = "subprocess"
    label = "Command"
    install_hint = ""
    # Where each run's scratch folder is made: the system's temporary folder
    # unless the caller names one (the app: the run's own, swept on recovery).
    scratch_root: Path | None = None

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

    def stdin_file(self, question: str, sandbox: Path, scratch: Path) -> Path | None:
        """A file the child reads on its standard input (e.g. the prompt, which
        is too long for one command-line argument), else ``None``: /dev/null."""
        return None

    def environment(self, sandbox: Path, scratch: Path) -> dict[str, str]:
        return child_env(self.env, self.inherit_env)

    def working_dir(self, sandbox: Path, scratch: Path) -> Path:
        """Where the child starts: the sandbox, unless the engine's program
        must start elsewhere (it then gets to the sandbox itself)."""
        return sandbox

    def stream(
        self, question: str, sandbox: Path, *, cancel: asyncio.Event, outcome: RunOutcome
    ) -> AsyncIterator[OutputLine]:
        return one_by_one(self.stream_batches(question, sandbox, cancel=cancel, outcome=outcome))

    async def stream_batches(
        self, question: str, sandbox: Path, *, cancel: asyncio.Event, outcome: RunOutcome
    ) -> AsyncIterator[list[OutputLine]]:
        await self.prepare()
        # A per-run scratch folder (HOME, config, prompt files), removed afterwards.
        if self.scratch_root is not None:
            self.scratch_root.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(
            prefix=f"researchmind-{self.name}-", dir=self.scratch_root, ignore_cleanup_errors=True
        ) as tmp:
            scratch = Path(tmp)
            argv = self.command(question, sandbox, scratch)
            stdin = self.stdin_file(question, sandbox, scratch)
            env = self.environment(sandbox, scratch)
            batches = run_process(
                argv,
                stdin=stdin,
                cwd=self.working_dir(sandbox, scratch),
                env=env,
                cancel=cancel,
                outcome=outcome,
                limits=self.limits,
            )
            # aclosing: if our consumer stops early, the child is killed now, not at GC.
            async with contextlib.aclosing(batches):
                async for batch in batches:
                    yield batch
