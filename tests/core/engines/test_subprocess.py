"""The generic subprocess runner against real misbehaving child processes
(tests/core/engines/helpers/child.py): framing, watchdogs, cancel, process groups."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

import pytest

from core.engines.base import OutputLine, RunOutcome
from core.engines.process import _Run
from core.engines.subprocess import (
    QUESTION,
    Limits,
    LineFramer,
    SubprocessEngine,
    group_alive,
)

CHILD = str(Path(__file__).parent / "helpers" / "child.py")
FAST = Limits(
    interrupt_grace=0.5, terminate_grace=0.5, exit_grace_after_result=0.5, idle_timeout=20, timeout=60
)


def child(mode: str, *args: str, limits: Limits = FAST, **kwargs: object) -> SubprocessEngine:
    return SubprocessEngine([sys.executable, CHILD, mode, *args], limits=limits, **kwargs)


async def run(
    engine: SubprocessEngine, sandbox: Path, *, cancel_after: float | None = None, question: str = "q"
) -> tuple[list[OutputLine], RunOutcome]:
    cancel, outcome, lines = asyncio.Event(), RunOutcome(), []
    if cancel_after is not None:
        asyncio.get_running_loop().call_later(cancel_after, cancel.set)
    async for line in engine.stream(question, sandbox, cancel=cancel, outcome=outcome):
        lines.append(line)
    return lines, outcome


def stdout(lines: list[OutputLine]) -> list[str]:
    return [line.text for line in lines if line.source == "stdout"]


def pids_in(lines: list[OutputLine]) -> list[int]:
    first = json.loads(stdout(lines)[0])
    return [first[key] for key in ("pid", "grandchild") if key in first]


def running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")


@pytest.mark.parametrize("size", [70 * 1024, 3 * 1024 * 1024])
async def test_huge_line_passes_whole(tmp_path: Path, size: int) -> None:
    """Lines beyond asyncio's 64 KiB readline limit (and the SDK's 1 MB cap) arrive intact."""
    lines, outcome = await run(child("huge", str(size)), tmp_path)
    big = json.loads(stdout(lines)[0])
    assert len(big["text"]) == size
    assert json.loads(stdout(lines)[1])["type"] == "result"
    assert outcome.returncode == 0 and outcome.killed_by is None


async def test_line_over_the_cap_stops_the_run_and_keeps_the_cut_text(tmp_path: Path) -> None:
    limits = Limits(max_line_bytes=1024 * 1024, interrupt_grace=0.5, terminate_grace=0.5)
    lines, outcome = await run(child("huge-no-newline", str(3 * 1024 * 1024), limits=limits), tmp_path)
    assert outcome.killed_by == "line_too_long"
    assert len(stdout(lines)[0]) == 1024 * 1024 and stdout(lines)[0].startswith("{yyy")
    assert outcome.returncode is not None and outcome.returncode < 0


async def test_non_json_lines_are_yielded_not_fatal(tmp_path: Path) -> None:
    lines, outcome = await run(child("mixed"), tmp_path)
    texts = stdout(lines)
    assert texts[0] == "\x1b[36m╭─ Banner v1 \x1b[0m"
    assert texts[1] == "Syncing agents 10/10 (100%)"
    assert texts[3] == '{"type": "assistant", "message": {"trunc'
    assert texts[4] == ""
    assert json.loads(texts[-1])["type"] == "result"
    assert outcome.returncode == 0 and outcome.killed_by is None


async def test_invalid_utf8_is_replaced_and_split_characters_survive(tmp_path: Path) -> None:
    lines, _ = await run(child("utf8"), tmp_path)
    texts = stdout(lines)
    assert texts[0] == '{"text": "bad \ufffd\ufffd bytes"}'
    assert json.loads(texts[1]) == {"text": "café €"}
    # The bytes as printed travel along, for the raw log.
    assert lines[0].data == b'{"text": "bad \xff\xfe bytes"}'


def test_framer_splits_on_newline_bytes_only() -> None:
    framer = LineFramer(max_bytes=8)
    assert framer.feed(b"ab\r\ncd\xe2\x80") == [(b"ab\r", False)]  # \r and U+2028 are not line ends
    assert framer.feed(b"\xa8\nlong-line-here\nok") == [("cd\u2028".encode(), False), (b"long-lin", True)]
    assert framer.close() == [(b"ok", False)]


async def test_idle_watchdog_stops_a_silent_child(tmp_path: Path) -> None:
    """A child silent for longer than ``idle_timeout`` is asked to stop (SIGINT,
    which is enough here) and nothing of its group is left."""
    limits = Limits(idle_timeout=0.5, interrupt_grace=0.5, terminate_grace=0.5)
    lines, outcome = await run(child("hang", limits=limits), tmp_path)
    (pid,) = pids_in(lines)
    assert outcome.killed_by == "idle"
    assert outcome.signals == ["SIGINT"] and outcome.returncode == -2  # SIGINT was enough
    assert len(stdout(lines)) == 1
    assert not running(pid) and not group_alive(pid)


async def test_overall_timeout_stops_a_child_that_never_goes_idle(tmp_path: Path) -> None:
    limits = Limits(idle_timeout=0.5, timeout=1.5, interrupt_grace=0.5, terminate_grace=0.5)
    lines, outcome = await run(child("trickle", "0.1", limits=limits), tmp_path)
    # Each line restarted the idle clock: what stopped the run is the overall timeout.
    assert outcome.killed_by == "timeout"
    assert outcome.signals == ["SIGINT"] and outcome.returncode == -2
    numbers = [json.loads(text)["n"] for text in stdout(lines)]
    assert numbers == list(range(len(numbers)))  # every line read, none lost or repeated


async def test_cancel_escalates_to_sigkill_and_leaves_no_process_of_the_group(tmp_path: Path) -> None:
    """A child and grandchild that ignore SIGINT and SIGTERM are still all gone:
    the stop asks, then terminates, then kills, and the child died of the kill."""
    lines, outcome = await run(child("stubborn"), tmp_path, cancel_after=1.0)
    pid, grandchild = pids_in(lines)
    assert outcome.killed_by == "cancel"
    assert outcome.signals == ["SIGINT", "SIGTERM", "SIGKILL"]
    assert outcome.returncode == -9
    assert not running(pid) and not running(grandchild)
    assert not group_alive(pid)


async def test_cancel_lets_a_cli_print_its_interrupted_result(tmp_path: Path) -> None:
    lines, outcome = await run(child("result-on-sigint"), tmp_path, cancel_after=0.5)
    assert json.loads(stdout(lines)[-1])["subtype"] == "error_during_execution"
    assert outcome.killed_by == "cancel" and outcome.returncode == 0
    assert outcome.signals == ["SIGINT"]  # it exited when asked: nothing harsher was sent


async def test_already_cancelled_run_starts_nothing(tmp_path: Path) -> None:
    cancel, outcome = asyncio.Event(), RunOutcome()
    cancel.set()
    lines = [line async for line in child("hang").stream("q", tmp_path, cancel=cancel, outcome=outcome)]
    assert lines == [] and outcome.killed_by == "cancel"


async def test_closing_the_stream_early_kills_the_group(tmp_path: Path) -> None:
    cancel, outcome = asyncio.Event(), RunOutcome()
    stream = child("stubborn").stream("q", tmp_path, cancel=cancel, outcome=outcome)
    first = await anext(stream)
    await stream.aclose()
    pid, grandchild = pids_in([first])
    assert outcome.killed_by == "cancel" and outcome.returncode == -9
    assert not running(pid) and not running(grandchild)


async def test_child_lingering_after_its_result_is_stopped(tmp_path: Path) -> None:
    lines, outcome = await run(child("linger"), tmp_path)
    assert json.loads(stdout(lines)[-1])["type"] == "result"
    assert outcome.killed_by is None  # the run completed; we only tidied up
    assert outcome.signals == ["SIGINT"] and outcome.returncode == -2


async def test_grandchild_holding_the_pipes_does_not_keep_the_run_open(tmp_path: Path) -> None:
    """The child exits at once; its grandchild, deaf to SIGINT and SIGTERM,
    keeps the pipes open forever. The run still ends, complete, and the
    grandchild is gone: only SIGKILL stops it."""
    lines, outcome = await run(child("orphan-holds-pipes"), tmp_path)
    (grandchild,) = pids_in(lines)
    assert outcome.returncode == 0 and outcome.killed_by is None
    assert not running(grandchild)


async def test_output_of_a_grandchild_within_the_pipe_grace_is_read(tmp_path: Path) -> None:
    """A grandchild that writes shortly after the child exited (well within
    ``pipe_grace_after_exit``) is still heard before the group is killed."""
    limits = Limits(pipe_grace_after_exit=2.0, interrupt_grace=0.5, terminate_grace=0.5)
    lines, outcome = await run(child("orphan-writes-then-holds", "0.2", limits=limits), tmp_path)
    (grandchild,) = pids_in(lines)
    assert json.loads(stdout(lines)[-1]) == {"type": "assistant", "text": "written after the parent exited"}
    assert outcome.returncode == 0 and outcome.killed_by is None
    assert not running(grandchild)  # it held the pipes past the grace: SIGKILLed


async def test_output_of_a_grandchild_past_the_pipe_grace_is_cut_off(tmp_path: Path) -> None:
    """The grace is a limit: a grandchild that would write only long after it
    is killed first, and the run ends without its line."""
    limits = Limits(pipe_grace_after_exit=0.5, interrupt_grace=0.5, terminate_grace=0.5)
    lines, outcome = await run(child("orphan-writes-then-holds", "5", limits=limits), tmp_path)
    (grandchild,) = pids_in(lines)
    assert len(stdout(lines)) == 1  # only the child's own first line
    assert outcome.returncode == 0 and outcome.killed_by is None
    assert not running(grandchild)


async def test_megabytes_of_stderr_do_not_block_and_are_kept(tmp_path: Path) -> None:
    lines, outcome = await run(child("stderr-flood", "5"), tmp_path)
    errors = [line.text for line in lines if line.source == "stderr"]
    assert len(errors) > 80_000 and errors[-1] == "last stderr line"
    assert json.loads(stdout(lines)[-1])["type"] == "result"
    assert outcome.stderr_tail[-1] == "last stderr line" and len(outcome.stderr_tail) == 50


async def test_stderr_beyond_the_cap_is_drained_but_not_kept(tmp_path: Path) -> None:
    limits = Limits(stderr_max_bytes=100_000)
    lines, outcome = await run(child("stderr-flood", "2", limits=limits), tmp_path)
    errors = [line.text for line in lines if line.source == "stderr"]
    assert errors[-1].startswith("[researchmind: stderr beyond 100000 bytes")
    assert len(errors) < 2000
    assert outcome.returncode == 0 and json.loads(stdout(lines)[-1])["type"] == "result"


async def test_exit_code_and_stderr_tail_of_a_failing_child(tmp_path: Path) -> None:
    lines, outcome = await run(child("exit", "3"), tmp_path)
    assert outcome.returncode == 3 and outcome.killed_by is None
    assert outcome.stderr_tail == ["fatal: something went wrong"]
    assert OutputLine("stderr", "fatal: something went wrong") in lines


async def test_explicit_env_argv_cwd_and_empty_stdin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDECODE", "1")
    monkeypatch.setenv("CLAUDE_CODE_ENTRYPOINT", "cli")
    monkeypatch.setenv("SECRET_OF_THE_SERVER", "x")
    engine = SubprocessEngine(
        [sys.executable, CHILD, "env", QUESTION, "--flag"],
        env={"ENGINE_VAR": "1"},
        inherit_env=("CLAUDE_CODE_ENTRYPOINT",),
    )
    lines, _ = await run(engine, tmp_path, question="what's in `$(rm -rf /)`; *?")
    seen = json.loads(stdout(lines)[0])
    assert seen["argv"] == ["what's in `$(rm -rf /)`; *?", "--flag"]  # one argv element, no shell
    assert Path(seen["cwd"]) == tmp_path and seen["stdin"] == ""
    assert seen["env"]["ENGINE_VAR"] == "1" and seen["env"]["PATH"] == os.environ["PATH"]
    assert not {"CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "SECRET_OF_THE_SERVER"} & set(seen["env"])


async def test_missing_executable_is_unavailable_and_fails_clearly(tmp_path: Path) -> None:
    engine = SubprocessEngine(["no-such-engine-cli", QUESTION])
    engine.install_hint = "pip install no-such-engine"
    availability = engine.availability()
    assert not availability.available
    assert availability.reason == "no-such-engine-cli is not installed (pip install no-such-engine)"
    lines, outcome = await run(engine, tmp_path)
    assert outcome.returncode == 127
    assert lines == [OutputLine("stderr", "Could not start no-such-engine-cli: No such file or directory")]


async def test_a_leader_that_exited_before_it_was_reaped_was_not_stopped() -> None:
    """close() right after the leader exits, before asyncio has reaped it (as on a loaded
    machine): the run ended on its own, so no stop is recorded and nothing is signalled."""
    process = await asyncio.create_subprocess_exec(
        "true",
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 10
    while running(process.pid) and time.monotonic() < deadline:
        time.sleep(0.01)  # blocking on purpose: the event loop cannot reap it meanwhile
    assert process.returncode is None and not running(process.pid)  # exited, not yet reaped
    outcome = RunOutcome()
    await _Run(process, asyncio.Event(), outcome, Limits()).close()
    assert (outcome.killed_by, outcome.signals, outcome.returncode) == (None, [], 0)
