"""The real ``claude`` and ``claude-mpm`` CLIs, run by our engines against the
scripted mock Messages API (testing/mock_anthropic.py), fully offline.

The CLIs come from the ``installed`` fixture in tests/conftest.py: ``make tools``
(tools/install-cli.sh) puts them in .tools/bin; only a ``slow`` test runs the
installer itself, any other test is skipped without them."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from core.engines.base import Availability, OutputLine, RunOutcome
from core.engines.check import check_engine
from core.engines.claude import (
    CLAUDE_SHIM,
    REJECTED_HELP,
    ClaudeCodeEngine,
    ClaudeMpmEngine,
    credentials_advice,
)
from core.engines.registry import ENGINE_NAMES, UnknownEngine, get_engine, list_engines
from core.engines.subprocess import Limits
from core.stream import StreamInterpreter
from testing.mock_anthropic import Fail, Hang, MidStreamError, MockAnthropic, Reply, Text, ToolUse

FAST = Limits(idle_timeout=60, timeout=120, interrupt_grace=2, terminate_grace=2)
CITED = (
    "The sky is blue [c1].\n\n<!-- CITATIONS: ["
    '{"id": "c1", "source_file": "notes.md", "source_type": "file", '
    '"location": {"line_start": 2, "line_end": 2}, "excerpt": "The sky is blue.", '
    '"relevance": "direct", "confidence": 0.9}] -->'
)


@pytest.fixture
def claude_bin(installed: Path) -> Path:
    return installed / "claude"


@pytest.fixture
def mpm_bin(installed: Path) -> Path:
    if not os.access(installed / "claude-mpm", os.X_OK):
        pytest.skip("claude-mpm is not installed in .tools/bin (tools/install-cli.sh)")
    return installed / "claude-mpm"


@pytest.fixture
def sandbox(tmp_path: Path) -> Path:
    (tmp_path / "sandbox").mkdir()
    (tmp_path / "sandbox" / "notes.md").write_text("# Notes\nThe sky is blue.\n")
    return tmp_path / "sandbox"


def research_script(sandbox: Path) -> list[Reply]:
    """Turn 1 reads a sandbox file; turn 2 (after the tool_result) answers with citations."""
    read = ToolUse("Read", {"file_path": str(sandbox / "notes.md")})
    return [
        Reply([Text("Let me read the notes."), read], chunk_chars=8),
        Reply([Text(CITED)], chunk_chars=16),
    ]


async def run(
    engine: ClaudeCodeEngine,
    sandbox: Path,
    question: str = "What colour is the sky?",
    until: str | None = None,
) -> tuple[list[OutputLine], list[dict], RunOutcome]:
    """Run to the end; with ``until``, cancel once a stdout line contains that text."""
    cancel, outcome, lines = asyncio.Event(), RunOutcome(), []
    async for line in engine.stream(question, sandbox, cancel=cancel, outcome=outcome):
        lines.append(line)
        if until and line.source == "stdout" and until in line.text:
            cancel.set()
    events = []
    for line in lines:
        if line.source == "stdout" and line.text.startswith("{"):
            events.append(json.loads(line.text))
    return lines, events, outcome


def running_in(folder: Path) -> list[str]:
    """Live processes whose working directory is ``folder``: what a run left behind."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and Path(os.readlink(proc / "cwd")).resolve() == folder.resolve():
                state = (proc / "stat").read_bytes().rsplit(b")", 1)[1].split()[0]
                if state not in (b"Z", b"X"):
                    found.append((proc / "cmdline").read_bytes().replace(b"\0", b" ").decode())
        except OSError:
            continue
    return found


def of_type(events: list[dict], kind: str, subtype: str | None = None) -> list[dict]:
    return [e for e in events if e["type"] == kind and (subtype is None or e.get("subtype") == subtype)]


def blocks(events: list[dict], kind: str, block_type: str) -> list[dict]:
    found = []
    for event in of_type(events, kind):
        content = event["message"]["content"]
        found += [b for b in content if isinstance(content, list) and b.get("type") == block_type]
    return found


async def test_claude_answers_from_the_sandbox_with_citations(
    claude_bin: Path, sandbox: Path, tmp_path: Path, monkeypatch
) -> None:
    # The run's scratch folders go to a temp folder of this test's own: other tests
    # and processes making theirs in the shared /tmp at the same time are not counted.
    scratch_root = tmp_path / "tmp"
    scratch_root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch_root))
    with MockAnthropic(research_script(sandbox)) as api:
        engine = ClaudeCodeEngine(executable=claude_bin, base_url=api.url, api_key="test-key", limits=FAST)
        assert engine.availability().available
        lines, events, outcome = await run(engine, sandbox, question="-- what colour is the sky?")
    # The per-run HOME / CLAUDE_CONFIG_DIR is gone, and nothing was written into the sandbox.
    assert list(scratch_root.iterdir()) == []
    assert sorted(p.name for p in sandbox.iterdir()) == ["notes.md"]
    assert outcome.returncode == 0 and outcome.killed_by is None
    assert all(line.source == "stdout" for line in lines)  # nothing on stderr
    init = of_type(events, "system", "init")[0]
    assert Path(init["cwd"]).resolve() == sandbox.resolve()
    # Nothing is pre-approved: anything that would need a permission prompt is refused.
    assert init["permissionMode"] == "dontAsk" and init["apiKeySource"] == "ANTHROPIC_API_KEY"
    (read,) = blocks(events, "assistant", "tool_use")
    assert read["name"] == "Read" and read["input"] == {"file_path": str(sandbox / "notes.md")}
    (tool_result,) = blocks(events, "user", "tool_result")
    assert "The sky is blue." in json.dumps(tool_result["content"]) and not tool_result.get("is_error")
    deltas = [
        e["event"]["delta"]
        for e in of_type(events, "stream_event")
        if e["event"]["type"] == "content_block_delta"
    ]
    assert {d["type"] for d in deltas} == {"text_delta", "input_json_delta"}
    assert "".join(d.get("text", "") for d in deltas).endswith(CITED)
    (result,) = of_type(events, "result")
    assert result["subtype"] == "success" and result["is_error"] is False
    assert result["result"] == CITED and events[-1] is result
    # What the mock saw: the question verbatim (even starting with "--"), our key, the tool result.
    first, second = api.messages_requests()
    assert "-- what colour is the sky?" in json.dumps(first.body["messages"])
    assert first.headers["x-api-key"] == "test-key" and first.body["stream"] is True
    assert "The sky is blue." in json.dumps(second.tool_results())


@pytest.mark.parametrize("status", [401, 500])
async def test_claude_api_error_is_an_error_result_with_success_subtype(
    claude_bin: Path, sandbox: Path, status: int
) -> None:
    with MockAnthropic(default=Fail(status)) as api:
        engine = ClaudeCodeEngine(
            executable=claude_bin,
            base_url=api.url,
            api_key="bad",
            limits=FAST,
            env={"CLAUDE_CODE_MAX_RETRIES": "0"},
        )
        _, events, outcome = await run(engine, sandbox)
    (result,) = of_type(events, "result")
    assert result["subtype"] == "success" and result["is_error"] is True
    assert result["api_error_status"] == status
    assert outcome.returncode == 1 and outcome.killed_by is None


@pytest.mark.parametrize("status", [401, 403])
async def test_a_refused_key_stops_the_cli_at_the_first_refusal(
    claude_bin: Path, sandbox: Path, status: int
) -> None:
    """With the CLI's own retry count (10, minutes of backoff on a 401), the run
    still ends after the first refusal, with the result the CLI prints when it
    gives up, and no process of the run left behind."""
    with MockAnthropic(default=Fail(status, "invalid x-api-key")) as api:
        engine = ClaudeCodeEngine(executable=claude_bin, base_url=api.url, api_key="wrong", limits=FAST)
        _, events, outcome = await run(engine, sandbox)
        requests = len(api.messages_requests())
    assert 1 <= requests <= 2, requests  # the CLI would send 11
    assert running_in(sandbox) == []
    result = events[-1]
    assert result["type"] == "result" and result["is_error"] is True
    assert result["api_error_status"] == status
    advice = credentials_advice(result, name="claude-code", label="Claude Code")
    assert advice == REJECTED_HELP.format(label="Claude Code", name="claude-code")
    assert "in the server's environment" in advice
    # A 401 is retried by the CLI (we stop it there); a 403 it gives up on at once.
    retries = of_type(events, "system", "api_retry")
    assert [r["error_status"] for r in retries] == ([401] if status == 401 else [])
    assert outcome.killed_by == ("auth" if status == 401 else None)


async def test_a_refused_key_stops_claude_mpm_and_its_claude(
    mpm_bin: Path, claude_bin: Path, sandbox: Path
) -> None:
    with MockAnthropic(default=Fail(401)) as api:
        engine = ClaudeMpmEngine(
            executable=mpm_bin, claude_executable=claude_bin, base_url=api.url, api_key="wrong", limits=FAST
        )
        _, events, outcome = await run(engine, sandbox)
        requests = len(api.messages_requests())
    assert 1 <= requests <= 2 and outcome.killed_by == "auth"
    assert running_in(sandbox) == []  # mpm's claude ran in the sandbox: it is gone too
    assert credentials_advice(events[-1], name="claude-mpm", label="Claude MPM").startswith(
        "Claude MPM was refused by the API"
    )


async def test_a_rate_limit_is_retried_and_each_retry_is_a_step(claude_bin: Path, sandbox: Path) -> None:
    with MockAnthropic([Fail(429), Fail(529), Reply([Text(CITED)])]) as api:
        engine = ClaudeCodeEngine(
            executable=claude_bin,
            base_url=api.url,
            api_key="k",
            limits=FAST,
            env={"CLAUDE_CODE_MAX_RETRIES": "3"},
        )
        lines, _, outcome = await run(engine, sandbox)
        requests = len(api.messages_requests())
    assert requests == 3 and outcome.killed_by is None and outcome.returncode == 0
    interpreter = StreamInterpreter(sandbox=str(sandbox))
    shown = [e for line in lines if line.source == "stdout" for e in interpreter.feed(line.text)]
    interpreter.finish()
    steps = [e.detail for e in shown if e.kind == "system" and e.payload.get("subtype") == "api_retry"]
    assert [s.split(" in ")[0] for s in steps] == [
        "API error (rate_limit), retry 1/3",
        "API error (overloaded), retry 2/3",
    ]
    assert interpreter.result["result"] == CITED and not interpreter.is_error


def test_check_engine_reports_a_refused_key_after_one_request(claude_bin: Path) -> None:
    with MockAnthropic(default=Fail(401)) as api:
        report = check_engine(
            lambda state: ClaudeCodeEngine(
                executable=claude_bin, base_url=api.url, api_key="wrong", limits=FAST
            ),
            "claude-code",
        )
        requests = len(api.messages_requests())
    assert requests <= 2
    assert report["status"] == "failed"
    assert report["why"] == REJECTED_HELP.format(label="Claude Code", name="claude-code")


async def test_claude_recovers_from_a_mid_stream_error(claude_bin: Path, sandbox: Path) -> None:
    with MockAnthropic([MidStreamError(), Reply([Text(CITED)])]) as api:
        engine = ClaudeCodeEngine(executable=claude_bin, base_url=api.url, api_key="k", limits=FAST)
        _, events, outcome = await run(engine, sandbox)
    (result,) = of_type(events, "result")
    assert result["result"] == CITED and result["is_error"] is False
    assert outcome.returncode == 0
    # After a broken stream the CLI falls back to one non-streaming request.
    assert [bool(r.body.get("stream")) for r in api.messages_requests()] == [True, False]


async def test_claude_cancel_mid_run_stops_the_whole_group(claude_bin: Path, sandbox: Path) -> None:
    with MockAnthropic([Hang()]) as api:
        engine = ClaudeCodeEngine(executable=claude_bin, base_url=api.url, api_key="k", limits=FAST)
        _, events, outcome = await run(engine, sandbox, until='"message_start"')
    init = of_type(events, "system", "init")[0]
    assert outcome.killed_by == "cancel"
    # SIGINT is enough, and claude then prints an interrupted result (SIGTERM would leave none).
    (result,) = of_type(events, "result")
    assert result["subtype"] == "error_during_execution" and result["is_error"] is True
    assert result["terminal_reason"] == "aborted_streaming" and "result" not in result
    assert init["session_id"]
    assert outcome.returncode is not None and running_in(sandbox) == []


async def test_claude_idle_watchdog_stops_a_hung_api_call(claude_bin: Path, sandbox: Path) -> None:
    limits = Limits(idle_timeout=2, timeout=60, interrupt_grace=2, terminate_grace=2)
    with MockAnthropic([Hang(after_message_start=False)]) as api:
        engine = ClaudeCodeEngine(executable=claude_bin, base_url=api.url, api_key="k", limits=limits)
        _, events, outcome = await run(engine, sandbox)
    assert outcome.killed_by == "idle" and running_in(sandbox) == []
    assert of_type(events, "system", "init")
    assert not [e for e in of_type(events, "result") if e["subtype"] == "success"]


def test_claude_missing_executable_is_unavailable(tmp_path: Path) -> None:
    availability = ClaudeCodeEngine(executable=tmp_path / "claude").availability()
    assert not availability.available
    assert availability.reason.startswith("claude is not installed (npm package @anthropic-ai/claude-code")
    mpm = ClaudeMpmEngine(executable=tmp_path / "claude-mpm").availability()
    assert mpm.reason.startswith("claude-mpm is not installed (PyPI package claude-mpm")


def test_claude_mpm_needs_claude(mpm_bin: Path, tmp_path: Path) -> None:
    availability = ClaudeMpmEngine(executable=mpm_bin, claude_executable=tmp_path / "claude").availability()
    assert availability == Availability(
        False,
        "claude-mpm needs claude, which is not installed (npm package @anthropic-ai/claude-code; "
        "run tools/install-cli.sh)",
    )


async def test_claude_mpm_headless_streams_json_on_stdout(
    mpm_bin: Path, claude_bin: Path, sandbox: Path
) -> None:
    with MockAnthropic(research_script(sandbox)) as api:
        engine = ClaudeMpmEngine(
            executable=mpm_bin, claude_executable=claude_bin, base_url=api.url, api_key="k", limits=FAST
        )
        assert engine.availability().available
        lines, events, outcome = await run(engine, sandbox, question="notes.md")
    assert outcome.returncode == 0 and outcome.killed_by is None
    # Banner and sync status go to stderr; stdout is pure JSON, live.
    assert all(line.text.startswith("{") for line in lines if line.source == "stdout")
    assert [line for line in lines if line.source == "stderr"]
    assert of_type(events, "system", "init") and blocks(events, "user", "tool_result")
    assert of_type(events, "result")[0]["result"] == CITED
    # The question is sent as text even though it names a sandbox file (-i reads files).
    first = api.messages_requests()[0]
    assert "notes.md" in json.dumps(first.body["messages"]) and "# Notes" not in json.dumps(
        first.body["messages"]
    )


async def test_claude_mpm_cancel_stops_the_whole_group(
    mpm_bin: Path, claude_bin: Path, sandbox: Path
) -> None:
    with MockAnthropic([Hang()]) as api:
        engine = ClaudeMpmEngine(
            executable=mpm_bin, claude_executable=claude_bin, base_url=api.url, api_key="k", limits=FAST
        )
        _, events, outcome = await run(engine, sandbox, until='"message_start"')
    assert outcome.killed_by == "cancel" and of_type(events, "system", "init")
    assert running_in(sandbox) == []
    assert not [e for e in of_type(events, "result") if e["subtype"] == "success"]


def test_registry_lists_every_engine_with_why_not(installed: Path, tmp_path: Path) -> None:
    listed = list_engines(
        {"claude-code": {"api_key": "k"}, "claude-mpm": {"executable": tmp_path / "claude-mpm"}}
    )
    assert [name for name, _, _ in listed] == list(ENGINE_NAMES)
    by_name = {name: (label, availability) for name, label, availability in listed}
    assert by_name["claude-code"] == ("Claude Code", Availability(True))
    assert by_name["claude-mpm"][1].reason.startswith("claude-mpm is not installed")
    assert by_name["replay"][1] == Availability(False, "replay needs a recorded transcript (.jsonl) to play")
    assert by_name["builtin"][0] == "Built-in (offline)"


def test_registry_builds_engines_by_name_with_settings(tmp_path: Path) -> None:
    engine = get_engine("claude-code", executable=tmp_path / "claude", model="claude-x")
    assert isinstance(engine, ClaudeCodeEngine) and engine.model == "claude-x"
    assert get_engine("replay", path=tmp_path / "t.jsonl").name == "replay"
    with pytest.raises(
        UnknownEngine, match="There is no engine called 'gpt'; the engines are: builtin, claude-code"
    ):
        get_engine("gpt")


def test_claude_without_credentials_is_unavailable_and_says_what_to_set(
    installed: Path, tmp_path: Path
) -> None:
    availability = ClaudeCodeEngine(executable=installed / "claude").availability()
    assert availability == Availability(
        False,
        "Claude Code has no credentials. Set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN; or "
        "CLAUDE_CODE_USE_BEDROCK=1 / CLAUDE_CODE_USE_VERTEX=1 with their AWS or Google Cloud settings; "
        "or CLAUDE_CONFIG_DIR pointing at a logged-in Claude Code) in the server's environment, restart "
        "it, and check with: python manage.py check_engine claude-code",
    )
    # Each way of authenticating counts; a provider flag set to 0 does not.
    assert ClaudeCodeEngine(executable=installed / "claude", auth_token="t").availability().available
    bedrock = {"CLAUDE_CODE_USE_BEDROCK": "1", "AWS_REGION": "us-east-1"}
    assert ClaudeCodeEngine(executable=installed / "claude", credentials=bedrock).availability().available
    off = {"CLAUDE_CODE_USE_VERTEX": "0"}
    assert not ClaudeCodeEngine(executable=installed / "claude", credentials=off).availability().available
    (tmp_path / "logged-in").mkdir()
    logged_in = ClaudeCodeEngine(executable=installed / "claude", config_dir=tmp_path / "logged-in")
    assert not logged_in.availability().available
    (tmp_path / "logged-in" / ".credentials.json").write_text('{"claudeAiOauth": {}}')
    assert logged_in.availability().available


async def test_credentials_reach_the_cli_and_nothing_else_does(
    claude_bin: Path, sandbox: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Auth token, provider variables and a logged-in CLI's login are passed on;
    the server's other variables (and a stray CLAUDE_CODE_* of its own) are not."""
    (tmp_path / "login").mkdir()
    (tmp_path / "login" / ".credentials.json").write_text('{"claudeAiOauth": {"accessToken": "x"}}')
    monkeypatch.setenv("SERVER_ONLY_SECRET", "do-not-pass")
    monkeypatch.setenv("CLAUDE_CODE_ENTRYPOINT", "server")
    with MockAnthropic([Reply([Text("OK")])]) as api:
        engine = ClaudeCodeEngine(
            executable=claude_bin,
            base_url=api.url,
            auth_token="token-123",
            credentials={"AWS_REGION": "eu-west-1", "UNRELATED": "x"},
            config_dir=tmp_path / "login",
            limits=FAST,
        )
        scratch = tmp_path / "scratch"
        scratch.mkdir()
        env = engine.environment(sandbox, scratch)
        _, events, outcome = await run(engine, sandbox)
    assert env["ANTHROPIC_AUTH_TOKEN"] == "token-123" and env["AWS_REGION"] == "eu-west-1"
    assert "UNRELATED" not in env and "SERVER_ONLY_SECRET" not in env and "CLAUDE_CODE_ENTRYPOINT" not in env
    assert (Path(env["CLAUDE_CONFIG_DIR"]) / ".credentials.json").read_text() == (
        tmp_path / "login" / ".credentials.json"
    ).read_text()
    assert env["ENABLE_TOOL_SEARCH"] == "false"
    # The real CLI authenticated with the token (the Authorization header), not a key.
    (request,) = api.messages_requests()
    assert request.headers.get("Authorization") == "Bearer token-123" and "x-api-key" not in request.headers
    assert outcome.returncode == 0 and of_type(events, "result")[0]["is_error"] is False


def recording_claude(real: Path, record: Path) -> Path:
    """A ``claude`` that keeps what it was started with (its arguments, NUL-separated,
    and a copy of its standard input), then runs the real one with the same."""
    record.mkdir()
    wrapper = record / "claude"
    wrapper.write_text(
        "#!/bin/sh\n"
        f"printf '%s\\0' \"$@\" > '{record}/argv'\n"
        # /proc/$$/fd/0 opens the file anew: the real claude still reads all of it.
        f"cat /proc/$$/fd/0 > '{record}/stdin'\n"
        f"exec '{real}' \"$@\"\n"
    )
    wrapper.chmod(0o700)
    return wrapper


async def test_claude_mpm_hands_the_question_to_claude_on_standard_input(
    mpm_bin: Path, claude_bin: Path, sandbox: Path, tmp_path: Path
) -> None:
    """A question of 200 KB (over Linux's 128 KiB cap on one argument) that
    starts with a dash reaches the model whole; the claude process mpm starts
    gets it as a stream-json message on standard input and on no command line."""
    question = "-" + "Why is the sky blue at noon? " * 7000
    record = tmp_path / "record"
    with MockAnthropic(default=Reply([Text("Scattering.")])) as api:
        engine = ClaudeMpmEngine(
            executable=mpm_bin,
            claude_executable=recording_claude(claude_bin, record),
            base_url=api.url,
            api_key="k",
            limits=FAST,
        )
        _, events, outcome = await run(engine, sandbox, question=question)
    assert outcome.returncode == 0, outcome.stderr_tail
    assert of_type(events, "result")[0]["result"] == "Scattering."
    argv = (record / "argv").read_bytes().decode().split("\0")[:-1]
    assert not [arg for arg in argv if "sky blue" in arg]
    assert argv[:1] == ["--verbose"] and "-p" in argv
    assert argv[argv.index("--input-format") + 1] == "stream-json"
    assert "--system-prompt-file" not in argv  # mpm's manager prompt is left out
    sent = [json.loads(line) for line in (record / "stdin").read_text().splitlines()]
    assert sent == [{"type": "user", "message": {"role": "user", "content": question}}]
    body = json.dumps(api.messages_requests()[0].body["messages"], ensure_ascii=False)
    assert question[:-1] in body


def test_the_claude_stand_in_leaves_out_only_mpms_system_prompt(tmp_path: Path) -> None:
    """The ``claude`` mpm runs starts the real one in the sandbox with every
    argument as given (empty ones and spaces kept, in order) but mpm's
    ``--system-prompt-file`` in either form."""
    sandbox, shim, real = tmp_path / "sandbox", tmp_path / "claude", tmp_path / "real"
    sandbox.mkdir()
    shim.write_text(CLAUDE_SHIM)
    real.write_text(f"#!/bin/sh\npwd > '{tmp_path}/cwd'\nprintf '%s\\0' \"$@\" > '{tmp_path}/argv'\n")
    shim.chmod(0o700)
    real.chmod(0o700)
    given = ["--verbose", "--setting-sources", "", "a b", "--system-prompt-file", "/pm.md", "-p"]
    given += ["--append-system-prompt-file", "/ours.md", "--system-prompt-file=/pm2.md", "--model", "m"]
    env = {"PATH": os.environ["PATH"], "RESEARCHMIND_SANDBOX": str(sandbox), "RESEARCHMIND_CLAUDE": str(real)}
    assert subprocess.run([str(shim), *given], env=env, check=False).returncode == 0
    argv = (tmp_path / "argv").read_bytes().decode().split("\0")[:-1]
    kept = ["--verbose", "--setting-sources", "", "a b", "-p", "--append-system-prompt-file", "/ours.md"]
    assert argv == [*kept, "--model", "m"]
    assert (tmp_path / "cwd").read_text().strip() == str(sandbox)
