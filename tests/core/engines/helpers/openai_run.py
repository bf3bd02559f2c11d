"""Running the OpenAI-compatible engine against a double and reading what came
back with the app's own stream interpreter and citation checks."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass

from core.citations.parsing import parse_citations
from core.citations.verification import verify_citations
from core.engines.base import RunOutcome
from core.engines.openai import OpenAIEngine
from core.stream import StreamInterpreter
from testing.mock_openai import MockOpenAI
from tests.core.engines.conftest import CONTENT_ID

QUESTION = "When do access tokens expire?"


@dataclass
class Run:
    lines: list[str]
    interpreter: StreamInterpreter
    outcome: RunOutcome

    def of_type(self, kind: str, subtype: str | None = None) -> list[dict]:
        parsed = [json.loads(line) for line in self.lines]
        return [p for p in parsed if p["type"] == kind and (subtype is None or p.get("subtype") == subtype)]

    @property
    def result(self) -> dict:
        (result,) = self.of_type("result")
        return result


def run(
    sessions,
    mock: MockOpenAI,
    prompt: str = QUESTION,
    *,
    cancel_when=None,
    model: str = "mock-model",
    **settings,
) -> Run:
    engine = OpenAIEngine(base_url=mock.url, model=model, state_dir=sessions.state, **settings)
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


def verified_at(sessions, answer: str) -> list[tuple[str, int, int]]:
    parsed = parse_citations(answer, content_ids=[CONTENT_ID])
    checked = verify_citations(sessions.sandbox, parsed.citations, content_ids=[CONTENT_ID])
    return [(v.status, v.line_start, v.line_end) for v in checked]
