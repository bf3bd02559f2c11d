"""The built-in engine's stream-json output: in-process, through the async
Engine protocol, and as a real CLI subprocess; plus cancel."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

# pytest-django puts the project on sys.path; these pure tests also run with
# `-p no:django`, so do it here.
PROJECT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(PROJECT))

from core.engines.base import RunOutcome  # noqa: E402
from core.engines.builtin import BuiltinEngine, run_builtin  # noqa: E402
from core.engines.builtin.index import ensure_fresh  # noqa: E402
from core.sandbox import default_state_dir, write_instructions, write_manifest  # noqa: E402

CID = "3f2a9c1e-1111-2222-3333-444455556666"
QUESTION = "When do JWT tokens expire?"
AUTH = "# Auth\n\nThe service issues JWT tokens.\nTokens expire after 24 hours.\n"
VOLATILE = {"duration_ms"}  # wall-clock timings differ between two runs


def make_sandbox(root: Path, files: dict[str, str] | None = None) -> Path:
    for rel, text in (files or {f"{CID}/auth.md": AUTH}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    items = {CID: {"title": "Auth notes", "source_url": "", "kind": "file", "added_at": "2026-01-01"}}
    write_manifest(root, items)
    write_instructions(root, items)
    return root


def run_cli(root: Path, *args: str, **kwargs) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(PROJECT)}
    return subprocess.run(
        [sys.executable, "-m", "core.engines.builtin", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        **kwargs,
    )


def stable(lines: list[str]) -> list[dict]:
    objs = [json.loads(line) for line in lines]
    for obj in objs:
        for key in VOLATILE:
            obj.pop(key, None)
    return objs


def test_stream_lines_are_json_objects_with_known_types(tmp_path):
    """Every line is one JSON object of a Claude Code type; init first, result last."""
    objs = [json.loads(line) for line in run_builtin(make_sandbox(tmp_path), QUESTION)]
    assert all(
        isinstance(o, dict) and o["type"] in {"system", "assistant", "user", "stream_event", "result"}
        for o in objs
    )
    assert (objs[0]["type"], objs[0]["subtype"]) == ("system", "init")
    assert objs[0]["tools"] == ["Grep", "Read"] and objs[0]["model"] == "researchmind-builtin"
    assert objs[0]["cwd"] == str(tmp_path)
    result = objs[-1]
    assert (result["type"], result["subtype"], result["is_error"]) == ("result", "success", False)
    assert (
        result["total_cost_usd"] == 0 and result["num_turns"] == 3 and "usage" in result
    )  # Grep, Read, answer
    assert "<!-- CITATIONS:" in result["result"]
    assert all(o["session_id"] == objs[0]["session_id"] and o["uuid"] for o in objs)


def test_every_tool_use_is_answered_by_its_tool_result(tmp_path):
    """Grep then Read tool_use lines, each answered by the next user line, a tool_result with the same id."""
    objs = [
        json.loads(line)
        for line in run_builtin(make_sandbox(tmp_path), QUESTION, include_partial_messages=False)
    ]
    kinds = [o["type"] for o in objs]
    for n, obj in enumerate(objs):
        if obj["type"] == "assistant" and obj["message"]["content"][0]["type"] == "tool_use":
            answer = objs[n + 1]
            assert answer["type"] == "user"
            assert answer["message"]["content"][0]["tool_use_id"] == obj["message"]["content"][0]["id"]
    assert kinds.count("user") == 2
    uses = [
        o["message"]["content"][0]
        for o in objs
        if o["type"] == "assistant" and o["message"]["content"][0]["type"] == "tool_use"
    ]
    results = [o["message"]["content"][0] for o in objs if o["type"] == "user"]
    assert [u["name"] for u in uses] == ["Grep", "Read"]
    assert uses[0]["input"]["pattern"] == "jwt|tokens|expire"
    assert uses[1]["input"] == {"file_path": f"{CID}/auth.md", "offset": 1, "limit": 4}
    assert [r["tool_use_id"] for r in results] == [u["id"] for u in uses]
    assert results[1]["content"].splitlines()[2] == "     3→The service issues JWT tokens."


def test_partial_messages_stream_the_answer_with_progress_markers(tmp_path):
    """Text deltas rebuild each assistant text block and carry all five PROGRESS phases."""
    objs = [json.loads(line) for line in run_builtin(make_sandbox(tmp_path), QUESTION)]
    kinds = [o["event"]["type"] for o in objs if o["type"] == "stream_event"]
    assert kinds.count("message_start") == kinds.count("message_stop") == 3  # Grep, Read, answer
    deltas = "".join(
        o["event"]["delta"]["text"]
        for o in objs
        if o["type"] == "stream_event" and o["event"].get("delta", {}).get("type") == "text_delta"
    )
    texts = "".join(
        o["message"]["content"][0]["text"]
        for o in objs
        if o["type"] == "assistant" and o["message"]["content"][0]["type"] == "text"
    )
    assert deltas == texts
    for phase in ("planning", "searching", "analyzing", "synthesizing", "capturing"):
        assert f'<!-- PROGRESS: {{"phase": "{phase}"' in deltas
    assert objs[-1]["result"].endswith("] -->\n")


def test_without_partial_messages_there_are_no_stream_events(tmp_path):
    """Like Claude Code without --include-partial-messages: whole blocks only."""
    objs = [
        json.loads(x) for x in run_builtin(make_sandbox(tmp_path), QUESTION, include_partial_messages=False)
    ]
    assert not [o for o in objs if o["type"] == "stream_event"]
    assert objs[-1]["subtype"] == "success"


def test_cli_prints_the_same_lines_as_in_process(tmp_path):
    """A real subprocess with cwd = sandbox prints what run_builtin yields (timings aside)."""
    root = make_sandbox(tmp_path)
    ensure_fresh(root)  # both runs then find the index fresh and say the same
    expected = stable(list(run_builtin(root, QUESTION, session_id="fixed-session")))
    proc = run_cli(
        root,
        "-p",
        QUESTION,
        "--output-format",
        "stream-json",
        "--verbose",
        "--include-partial-messages",
        "--session-id",
        "fixed-session",
    )
    assert proc.returncode == 0, proc.stderr
    assert stable(proc.stdout.splitlines()) == expected


def test_cli_state_option_holds_the_index_outside_the_working_folder(tmp_path):
    """--state DIR puts the index in DIR; the working folder (the sandbox) gains nothing."""
    root = make_sandbox(tmp_path / "sandbox")
    before = sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))
    state = tmp_path / "state" / "session"
    proc = run_cli(root, "-p", QUESTION, "--output-format", "json", "--state", str(state))
    assert proc.returncode == 0, proc.stderr
    assert "24 hours" in json.loads(proc.stdout)["result"]
    assert (state / "index.sqlite3").is_file()
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*")) == before
    assert not default_state_dir(root).exists()


def test_cli_without_state_keeps_the_index_beside_the_working_folder(tmp_path):
    """Without --state the index goes to .state/<sandbox name> beside the sandbox, not into it."""
    root = make_sandbox(tmp_path / "sandbox")
    before = sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))
    proc = run_cli(root, "-p", QUESTION)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / ".state" / "sandbox" / "index.sqlite3").is_file()
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*")) == before


def test_cli_requires_verbose_for_stream_json(tmp_path):
    """As with Claude Code, stream-json without --verbose is refused on stderr, exit 1."""
    proc = run_cli(make_sandbox(tmp_path), "-p", QUESTION, "--output-format", "stream-json")
    assert proc.returncode == 1 and proc.stdout == "" and "--verbose" in proc.stderr


def test_cli_text_output_prints_the_answer(tmp_path):
    """--output-format text prints just the final answer text."""
    proc = run_cli(make_sandbox(tmp_path), "-p", QUESTION)
    assert proc.returncode == 0 and "## Quick Answer" in proc.stdout and '"type"' not in proc.stdout


def test_missing_sandbox_ends_with_a_clear_error_result(tmp_path):
    """A sandbox folder that does not exist gives an error result naming it, and is not created."""
    missing = tmp_path / "gone"
    objs = [json.loads(x) for x in run_builtin(missing, QUESTION)]
    assert objs[-1]["subtype"] == "error_during_execution" and objs[-1]["is_error"] is True
    assert "does not exist" in objs[-1]["errors"][0]
    assert not missing.exists()


def test_cancel_before_start_gives_only_an_error_result(tmp_path):
    """A run cancelled up front ends at once with error_during_execution and errors ["Cancelled"]."""
    cancel = threading.Event()
    cancel.set()
    objs = [json.loads(x) for x in run_builtin(make_sandbox(tmp_path), QUESTION, cancel=cancel)]
    assert len(objs) == 1
    assert (objs[0]["subtype"], objs[0]["is_error"], objs[0]["errors"]) == (
        "error_during_execution",
        True,
        ["Cancelled"],
    )
    assert "result" not in objs[0]


def test_cancel_mid_stream_stops_at_the_next_line(tmp_path):
    """Setting cancel after a few lines makes the very next line the error result."""
    cancel = threading.Event()
    lines = run_builtin(make_sandbox(tmp_path), QUESTION, cancel=cancel)
    seen = [json.loads(next(lines)) for _ in range(3)]
    cancel.set()
    rest = [json.loads(x) for x in lines]
    assert seen[0]["subtype"] == "init"
    assert len(rest) == 1 and rest[0]["subtype"] == "error_during_execution"


def test_cli_sigint_ends_with_an_error_result_and_exit_0(tmp_path):
    """SIGINT during a long index build: a cancelled result line, exit code 0 (as Claude Code)."""
    files = {
        f"{CID}/doc{n}.md": ("lorem ipsum dolor sit amet consectetur\n" * 4000) + f"unique{n}\n"
        for n in range(150)
    }
    root = make_sandbox(tmp_path, files)
    env = {**os.environ, "PYTHONPATH": str(PROJECT)}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "core.engines.builtin",
            "-p",
            "unique7",
            "--output-format",
            "stream-json",
            "--verbose",
        ],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    first = proc.stdout.readline()  # init: the run has started
    assert json.loads(first)["subtype"] == "init"
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=30)
    last = json.loads(out.splitlines()[-1])
    assert proc.returncode == 0
    assert last["type"] == "result" and last["errors"] == ["Cancelled"]


async def test_engine_streams_output_lines_and_fills_outcome(tmp_path):
    """BuiltinEngine yields stdout OutputLines ending in a result, and returncode 0."""
    engine = BuiltinEngine()
    assert engine.availability().available and engine.name == "builtin"
    outcome = RunOutcome()
    lines = [
        line
        async for line in engine.stream(
            QUESTION, make_sandbox(tmp_path), cancel=asyncio.Event(), outcome=outcome
        )
    ]
    assert {line.source for line in lines} == {"stdout"}
    assert json.loads(lines[-1].text)["subtype"] == "success"
    assert (outcome.returncode, outcome.killed_by) == (0, None)


async def test_engine_keeps_its_index_in_its_state_dir(tmp_path):
    """BuiltinEngine(state_dir=…) builds its index there and writes nothing in the sandbox."""
    root = make_sandbox(tmp_path / "sandbox")
    before = sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))
    state = tmp_path / "state"
    outcome = RunOutcome()
    engine = BuiltinEngine(state_dir=state)
    lines = [line async for line in engine.stream(QUESTION, root, cancel=asyncio.Event(), outcome=outcome)]
    assert json.loads(lines[-1].text)["subtype"] == "success"
    assert (state / "index.sqlite3").is_file()
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*")) == before
    assert not default_state_dir(root).exists()


async def test_engine_cancel_ends_the_stream_and_records_it(tmp_path):
    """Setting the asyncio cancel event stops the run with a Cancelled result; killed_by is "cancel"."""
    engine = BuiltinEngine()
    cancel = asyncio.Event()
    outcome = RunOutcome()
    seen = []
    async for line in engine.stream(QUESTION, make_sandbox(tmp_path), cancel=cancel, outcome=outcome):
        seen.append(json.loads(line.text))
        if len(seen) == 1:
            cancel.set()
            await asyncio.sleep(0.05)
    assert seen[-1]["subtype"] == "error_during_execution" and seen[-1]["errors"] == ["Cancelled"]
    assert (outcome.returncode, outcome.killed_by) == (0, "cancel")
