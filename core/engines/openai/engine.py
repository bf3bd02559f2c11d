"""``OpenAIEngine``: any server that speaks OpenAI's Chat Completions with
streaming (OpenAI, Ollama, vLLM, llama.cpp's server, LM Studio), the research
loop run by the app (``research.Research``).

Pure Python: no Django imports.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path

from ..base import Availability, OutputLine, RunOutcome, model_name
from .completion import ModelSettings
from .research import TOOL_MODES, Research

DEFAULT_BASE_URL = "https://api.openai.com/v1"


class OpenAIEngine:
    """``state_dir`` is the session's private folder (the search index lives there)."""

    name = "openai"
    label = "OpenAI-compatible model"

    def __init__(
        self,
        *,
        base_url: str = "",
        api_key: str = "",
        model: str = "",
        state_dir: str | os.PathLike[str] | None = None,
        **limits,
    ) -> None:
        model = model_name(model)
        self.settings = ModelSettings(
            base_url=base_url or DEFAULT_BASE_URL, model=model, api_key=api_key, **limits
        )
        self.state_dir = Path(state_dir) if state_dir is not None else None
        self.model = model

    def __repr__(self) -> str:  # never the key
        return f"OpenAIEngine(base_url={self.settings.base_url!r}, model={self.model!r})"

    def availability(self) -> Availability:
        if not self.model:
            return Availability(
                False,
                "No model is named: set OPENAI_MODEL (e.g. gpt-4o-mini, or llama3.1 under Ollama) "
                "and OPENAI_BASE_URL for a server other than OpenAI's.",
            )
        if self.settings.base_url == DEFAULT_BASE_URL and not self.settings.api_key:
            return Availability(
                False, "OpenAI's API needs a key: set OPENAI_API_KEY (or OPENAI_BASE_URL for a local server)."
            )
        if self.settings.tool_mode not in TOOL_MODES:
            return Availability(False, f"OPENAI_TOOLS must be one of {', '.join(TOOL_MODES)}.")
        return Availability(True)

    async def stream(
        self,
        question: str,
        sandbox: Path,
        *,
        cancel: asyncio.Event,
        outcome: RunOutcome,
    ) -> AsyncIterator[OutputLine]:
        research = Research(self.settings, question, Path(sandbox), state=self.state_dir, cancel=cancel)
        lines = research.lines()
        try:
            async for line in lines:
                yield OutputLine("stdout", line)
        finally:
            await lines.aclose()
            outcome.returncode = 0
            outcome.killed_by = research.killed_by or ("cancel" if cancel.is_set() else None)
