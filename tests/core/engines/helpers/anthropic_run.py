"""Running the Anthropic engine against the Messages API double and reading
what came back with the app's own stream interpreter and citation checks."""

from __future__ import annotations

import asyncio

from core.engines.anthropic import AnthropicEngine
from core.engines.base import RunOutcome
from core.stream import StreamInterpreter
from testing.mock_anthropic import MockAnthropic
from tests.core.engines.conftest import CONTENT_ID
from tests.core.engines.helpers.openai_run import QUESTION, Run

KEY = "sk-ant-test-0c9e1f2a3b4c-secret"


def run(sessions, mock: MockAnthropic, prompt: str = QUESTION, *, cancel_when=None, **settings) -> Run:
    settings = {"api_key": KEY, "model": "claude-mock", "retry_delay": 0.01} | settings
    engine = AnthropicEngine(base_url=mock.url, state_dir=sessions.state, **settings)
    interpreter = StreamInterpreter(titles={CONTENT_ID: "Auth notes"}, sandbox=str(sessions.sandbox))
    outcome, lines = RunOutcome(), []

    async def go():
        cancel = asyncio.Event()
        async for line in engine.stream(prompt, sessions.sandbox, cancel=cancel, outcome=outcome):
            lines.append(line.text)
            interpreter.feed(line.text)
            if cancel_when is not None and cancel_when(line.text):
                cancel.set()
        interpreter.finish()

    asyncio.run(go())
    return Run(lines, interpreter, outcome)
