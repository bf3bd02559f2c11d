"""A long thread reaches the real ``claude``: the prompt goes in on standard
input, not as one command-line argument (Linux caps one at 128 KiB), and an
engine that cannot start says so without naming the server's paths.

The Messages API is the mock on 127.0.0.1; assertions are on the request body
the CLI really sent."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

from core.engines.base import RunOutcome
from core.engines.claude import ClaudeCodeEngine
from core.engines.subprocess import QUESTION, Limits, SubprocessEngine
from core.sandbox import write_instructions, write_manifest
from core.threads import MAX_PROMPT_BYTES, Turn, budget_thread, conversation_prompt
from testing.mock_anthropic import MockAnthropic, Reply, Text
from testing.model_double import question_of

FAST = Limits(idle_timeout=60, timeout=120, interrupt_grace=2, terminate_grace=2)
ITEM = "5b0e7c1a-2d4f-4e6a-9b8c-0d1e2f3a4b5c"


def sandbox_in(tmp_path: Path) -> Path:
    sandbox = tmp_path / "sandboxes" / "session-a"
    (sandbox / ITEM).mkdir(parents=True)
    (sandbox / ITEM / "notes.md").write_text("Access tokens expire after 15 minutes.\n")
    items = {ITEM: {"title": "Auth notes", "kind": "text", "source_url": "", "added_at": ""}}
    write_manifest(sandbox, items)
    write_instructions(sandbox, items)
    return sandbox


async def run(engine, sandbox: Path, prompt: str) -> tuple[list[dict], list[str], RunOutcome]:
    outcome, events, stderr = RunOutcome(), [], []
    async for line in engine.stream(prompt, sandbox, cancel=asyncio.Event(), outcome=outcome):
        if line.source == "stdout" and line.text.startswith("{"):
            events.append(json.loads(line.text))
        elif line.source == "stderr":
            stderr.append(line.text)
    return events, stderr, outcome


def long_prompt() -> str:
    """A prompt far over 128 KiB that starts with "-" (once read as an option)."""
    paragraph = "- Refresh tokens rotate on every use; the old one is revoked at once. " * 30
    prompt = "\n\n".join(f"Part {n}: {paragraph}" for n in range(110))
    prompt += "\n\nThe question: when do access tokens expire?"
    assert len(prompt.encode()) > 200 * 1024
    return "-" + prompt


async def test_a_prompt_over_200_kb_reaches_the_model_whole(installed, tmp_path):
    sandbox = sandbox_in(tmp_path)
    prompt = long_prompt()
    with MockAnthropic(default=Reply([Text("After 15 minutes.")])) as api:
        engine = ClaudeCodeEngine(
            executable=installed / "claude", base_url=api.url, api_key="test-key", limits=FAST
        )
        events, stderr, outcome = await run(engine, sandbox, prompt)
    assert outcome.returncode == 0, stderr
    requests = api.messages_requests()
    assert requests
    # The CLI sent the whole prompt, to its last word, as the person's message.
    assert question_of(requests[0].body) == prompt.strip()
    result = [e for e in events if e["type"] == "result"][-1]
    assert result["result"] == "After 15 minutes."


async def test_a_long_thread_is_asked_whole_up_to_its_final_question(installed, tmp_path):
    """Ten-thousand-character follow-ups (in French: two bytes for some letters):
    by turn 8 the thread is over the budget; the oldest turns are folded, the
    prompt keeps within it and the final question is whole."""
    sandbox = sandbox_in(tmp_path)
    follow_up = "Précisez la rotation des jetons à chaque réémission. " * 190  # about 10,000 characters
    answer = "Le jeton de rafraîchissement est renouvelé à chaque usage — l'ancien est révoqué. " * 60
    turns = [Turn(f"{n}: {follow_up}", answer) for n in range(8)]
    final = "Enfin : " + "que se passe-t-il quand un jeton révoqué est rejoué ? " * 180
    kept = budget_thread(turns, final)
    assert kept.folded > 0 and kept.note()
    assert len(conversation_prompt(turns, final, budget=10**9).encode()) > MAX_PROMPT_BYTES
    prompt = conversation_prompt(turns, final)
    assert len(prompt.encode()) <= MAX_PROMPT_BYTES
    with MockAnthropic(default=Reply([Text("It is refused.")])) as api:
        engine = ClaudeCodeEngine(
            executable=installed / "claude", base_url=api.url, api_key="test-key", limits=FAST
        )
        _events, stderr, outcome = await run(engine, sandbox, prompt)
    assert outcome.returncode == 0, stderr
    sent = question_of(api.messages_requests()[0].body)
    assert sent == prompt.strip()
    assert sent.endswith(final.strip())


async def test_an_engine_that_cannot_start_names_no_server_path(tmp_path):
    """An argument over the cap fails at exec ("Argument list too long"): the
    error names the program, not where the server keeps it."""
    program = tmp_path / "srv" / "bin" / "echo-engine"
    program.parent.mkdir(parents=True)
    shutil.copy("/bin/echo", program)
    sandbox = sandbox_in(tmp_path)
    engine = SubprocessEngine([str(program), QUESTION], limits=FAST)
    _events, stderr, outcome = await run(engine, sandbox, "x" * (200 * 1024))
    assert outcome.returncode == 126
    assert stderr == ["Could not start echo-engine: Argument list too long"]
    assert outcome.stderr_tail == stderr
    assert str(tmp_path) not in " ".join(stderr)
