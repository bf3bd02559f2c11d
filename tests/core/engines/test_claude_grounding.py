"""The real ``claude`` and ``claude-mpm`` CLIs are grounded: the research
instructions reach the model, the model is offered only Read/Grep/Glob, and
what it can read is the sandbox's content and nothing else.

The model is ``testing.model_double.Researcher``: it cites only when the
request the CLI really sent carries the instructions, and it reads only what
its Grep really found. Assertions are on the requests the CLI sent (system
prompt, tool list, tool results) and on the citation verified against the
sandbox. Offline: the Messages API is a mock on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from core.citations.parsing import parse_citations
from core.citations.verification import verify_citations
from core.engines.base import RunOutcome
from core.engines.claude import ClaudeCodeEngine, ClaudeMpmEngine
from core.engines.subprocess import Limits
from core.sandbox import write_instructions, write_manifest
from testing.mock_anthropic import MockAnthropic, Reply, Text, ToolUse
from testing.model_double import Researcher, question_of, tool_exchanges

FAST = Limits(idle_timeout=60, timeout=120, interrupt_grace=2, terminate_grace=2)
ITEM = "5b0e7c1a-2d4f-4e6a-9b8c-0d1e2f3a4b5c"
NOTES = (
    "# Token lifetimes\n"
    "\n"
    "Sessions are stored server side.\n"
    "Access tokens expire after 15 minutes.\n"
    "Refresh tokens live for 30 days and rotate on every use.\n"
)
SECRET = "SECRET-OF-ANOTHER-SESSION-7f3a"
READ_ONLY = ["Glob", "Grep", "Read"]


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    """Two sessions' sandboxes side by side (as under SANDBOX_ROOT) and a
    private state folder holding a run log, as the app lays them out."""
    root = tmp_path / "sandboxes"
    sandbox, other = root / "session-a", root / "session-b"
    (sandbox / ITEM).mkdir(parents=True)
    (sandbox / ITEM / "notes.md").write_text(NOTES)
    items = {ITEM: {"title": "Auth notes", "kind": "text", "source_url": "", "added_at": "2026-11-24"}}
    write_manifest(sandbox, items)
    write_instructions(sandbox, items)
    (other / "item").mkdir(parents=True)
    (other / "item" / "secret.md").write_text(f"The other session's token is {SECRET}.\n")
    state = tmp_path / "state" / "session-a"
    (state / "runs").mkdir(parents=True)
    (state / "runs" / "1.log").write_text(f'{{"earlier question": "{SECRET}"}}\n')
    return {"sandbox": sandbox, "other": other, "state": state}


def make_engine(kind: str, bin_dir: Path, api: MockAnthropic, tmp_path: Path, **settings):
    common = {"base_url": api.url, "api_key": "test-key", "limits": FAST, **settings}
    if kind == "claude-code":
        return ClaudeCodeEngine(executable=bin_dir / "claude", **common)
    if not os.access(bin_dir / "claude-mpm", os.X_OK):
        pytest.skip("claude-mpm is not installed in .tools/bin (tools/install-cli.sh)")
    return ClaudeMpmEngine(
        executable=bin_dir / "claude-mpm",
        claude_executable=bin_dir / "claude",
        home=tmp_path / "mpm-home",
        **common,
    )


async def run(engine, sandbox: Path, question: str) -> tuple[list[dict], RunOutcome]:
    outcome, events = RunOutcome(), []
    async for line in engine.stream(question, sandbox, cancel=asyncio.Event(), outcome=outcome):
        if line.source == "stdout" and line.text.startswith("{"):
            events.append(json.loads(line.text))
    return events, outcome


def tool_names(request) -> list[str]:
    return sorted(tool["name"] for tool in request.body.get("tools") or [])


def system_of(request) -> str:
    system = request.body.get("system")
    return json.dumps(system) if not isinstance(system, str) else system


def sandbox_listing(sandbox: Path) -> list[str]:
    return sorted(str(p.relative_to(sandbox)) for p in sandbox.rglob("*"))


@pytest.mark.parametrize("kind", ["claude-code", "claude-mpm"])
async def test_instructions_reach_the_model_and_it_cites_the_line_it_read(installed, layout, tmp_path, kind):
    sandbox = layout["sandbox"]
    before = sandbox_listing(sandbox)
    model = Researcher()
    with MockAnthropic(default=model) as api:  # type: ignore[arg-type]
        engine = make_engine(kind, installed, api, tmp_path)
        events, outcome = await run(engine, sandbox, "When do access tokens expire?")
    requests = api.messages_requests()
    assert outcome.returncode == 0, outcome.stderr_tail
    # What the CLI sent: the instructions in the system prompt, and only the read-only tools.
    for request in requests:
        assert "Research sandbox: how to answer" in system_of(request)
        assert "<!-- CITATIONS: [" in system_of(request) and f"`{ITEM}/`" in system_of(request)
        assert tool_names(request) == READ_ONLY
    assert question_of(requests[0].body) == "When do access tokens expire?"
    # The model searched, read the file Grep really listed, and cited the line it read.
    assert model.decisions == [
        "grep ['access', 'tokens', 'expire'] (instructed=True)",
        f"read {ITEM}/notes.md",
        f"cite {ITEM}/notes.md:4",
    ]
    exchanges = tool_exchanges(requests[-1].body)
    assert [(name, is_error) for name, _, _, is_error in exchanges] == [("Grep", False), ("Read", False)]
    assert exchanges[0][2].splitlines()[1:] == [f"{ITEM}/notes.md"]  # the content only
    result = [e for e in events if e["type"] == "result"][-1]
    parsed = parse_citations(result["result"], content_ids=[ITEM])
    (verification,) = verify_citations(sandbox, parsed.citations, content_ids=[ITEM])
    assert verification.status == "verified"
    assert (parsed.citations[0].line_start, parsed.citations[0].line_end) == (4, 4)
    # Nothing was written into the sandbox (claude-mpm's files stay in its scratch folder).
    assert sandbox_listing(sandbox) == before


@pytest.mark.parametrize("kind", ["claude-code", "claude-mpm"])
async def test_every_read_outside_the_sandbox_is_refused(installed, layout, tmp_path, kind):
    sandbox, other, state = layout["sandbox"], layout["other"], layout["state"]
    (sandbox / ITEM / "link.md").symlink_to(other / "item" / "secret.md")
    (sandbox / ITEM / "state-link").symlink_to(state, target_is_directory=True)
    attempts = [
        ToolUse("Read", {"file_path": "../session-b/item/secret.md"}),
        ToolUse("Read", {"file_path": str(other / "item" / "secret.md")}),
        ToolUse("Read", {"file_path": str(sandbox / ITEM / "link.md")}),
        ToolUse("Read", {"file_path": str(sandbox / ITEM / "state-link" / "runs" / "1.log")}),
        ToolUse("Read", {"file_path": str(state / "runs" / "1.log")}),
        ToolUse("Grep", {"pattern": "SECRET", "path": str(sandbox.parent), "-i": True}),
        ToolUse("Grep", {"pattern": "SECRET", "path": "..", "output_mode": "content"}),
        ToolUse("Glob", {"pattern": "**/*", "path": "/"}),
        ToolUse("Glob", {"pattern": "**/*.log", "path": str(state)}),
        ToolUse("Grep", {"pattern": "SECRET", "output_mode": "content"}),  # in the sandbox: follows no link
        ToolUse("Glob", {"pattern": "**/*"}),
    ]
    script = [Reply([attempt]) for attempt in attempts] + [Reply([Text("Done.")])]
    with MockAnthropic(script) as api:
        engine = make_engine(kind, installed, api, tmp_path)
        _, outcome = await run(engine, sandbox, "Show me what you can reach.")
    assert outcome.returncode == 0, outcome.stderr_tail
    exchanges = tool_exchanges(api.messages_requests()[-1].body)
    assert len(exchanges) == len(attempts)
    for (_, _, text, is_error), attempt in zip(exchanges, attempts, strict=True):
        assert SECRET not in text, (attempt, text)
        assert str(state) not in text or is_error, (attempt, text)
    # Everything that names a place outside the sandbox is an error, not an empty success.
    assert all(is_error for _, _, _, is_error in exchanges[:9]), exchanges[:9]
    # Inside the sandbox: only the content, CLAUDE.md and the manifest (no private or engine files).
    listed = set(exchanges[-1][2].splitlines())
    assert listed == {f"{ITEM}/notes.md", "_content_manifest.json", "CLAUDE.md"}
    assert not [line for line in listed if ".claude" in line or ".researchmind" in line or "state" in line]


async def test_a_model_never_given_the_instructions_does_not_cite(installed, layout, tmp_path):
    """The test double only cites when told to: run the real CLI without the
    appended instructions (and, isolated, it does not load CLAUDE.md)."""

    class Uninstructed(ClaudeCodeEngine):
        def claude_args(self, scratch: Path) -> list[str]:
            args = super().claude_args(scratch)
            at = args.index("--append-system-prompt-file")
            return args[:at] + args[at + 2 :]

    model = Researcher()
    with MockAnthropic(default=model) as api:  # type: ignore[arg-type]
        engine = Uninstructed(executable=installed / "claude", base_url=api.url, api_key="k", limits=FAST)
        events, _ = await run(engine, layout["sandbox"], "When do access tokens expire?")
    assert "Research sandbox" not in system_of(api.messages_requests()[0])
    assert model.decisions[0] == "grep ['access', 'tokens', 'expire'] (instructed=False)"
    result = [e for e in events if e["type"] == "result"][-1]["result"]
    assert result == f"According to {ITEM}/notes.md, Access tokens expire after 15 minutes."
    assert "[c1]" not in result and "CITATIONS" not in result
    assert [
        c for c in parse_citations(result, content_ids=[ITEM]).citations if c.found_by == "citations_block"
    ] == []


async def test_the_chosen_model_is_the_one_requested(installed, layout, tmp_path):
    with MockAnthropic(default=Reply([Text("OK")])) as api:
        engine = ClaudeCodeEngine(
            executable=installed / "claude", base_url=api.url, api_key="k", limits=FAST, model="claude-test-7"
        )
        events, _ = await run(engine, layout["sandbox"], "Hi")
    assert {r.body["model"] for r in api.messages_requests()} == {"claude-test-7"}
    init = next(e for e in events if e.get("subtype") == "init")
    assert init["model"] == "claude-test-7" and sorted(init["tools"]) == READ_ONLY


async def test_claude_mpm_runs_as_a_researcher_not_as_its_project_manager(installed, layout, tmp_path):
    """claude-mpm replaces claude's system prompt with its ~34 KB project-manager
    prompt ("Delegates ALL work to specialist agents", at most 3 files read)
    while offering no Agent tool. The request the real claude-mpm sends carries
    the research instructions and none of that prompt; claude's own system
    prompt is kept, as for the Claude Code engine."""
    model = Researcher()
    with MockAnthropic(default=model) as api:  # type: ignore[arg-type]
        engine = make_engine("claude-mpm", installed, api, tmp_path)
        _, outcome = await run(engine, layout["sandbox"], "When do access tokens expire?")
        with MockAnthropic(default=Reply([Text("OK")])) as plain:
            code = make_engine("claude-code", installed, plain, tmp_path)
            await run(code, layout["sandbox"], "When do access tokens expire?")
    assert outcome.returncode == 0, outcome.stderr_tail
    system = system_of(api.messages_requests()[0])
    assert "Research sandbox: how to answer" in system
    assert "Delegates ALL work to specialist agents" not in system
    assert "PM = orchestrator" not in system and "Circuit Breaker" not in system
    # The same system prompt Claude Code gets, bar the session's own details.
    code_system = system_of(plain.messages_requests()[0])
    assert abs(len(system) - len(code_system)) < 2000, (len(system), len(code_system))
    assert model.decisions[-1] == f"cite {ITEM}/notes.md:4"
