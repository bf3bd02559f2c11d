"""Claude Code stream-json lines for a run the app drives against the Messages API.

The OpenAI-compatible engine's writer (``ModelStreamWriter``), plus what this
API streams that a chat completion does not: thinking blocks (kept apart from
the answer, as Claude Code's are) and the API's citations as they arrive
(the ``citations_delta`` event passed through, with the lines the app mapped
it to), and the ids of the API's citations on the result line.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Iterator

from core.engines.openai.writer import ModelStreamWriter

from .citing import ApiCitation

API_CITATIONS_KEY = "api_citations"  # on the result line: the ids the API extracted


class AnthropicStreamWriter(ModelStreamWriter):
    version = "researchmind-anthropic/1.0"

    def __init__(self, session_id: str, *, model: str, tools: list[str]) -> None:
        super().__init__(session_id, model=model, tools=tools, mode="tools")
        self.api_ids: list[str] = []

    def _line(self, obj: dict) -> str:
        if obj.get("type") == "result" and self.api_ids:
            obj[API_CITATIONS_KEY] = list(self.api_ids)
        return super()._line(obj)

    def start_thinking(self) -> Iterator[str]:
        yield from self._event(
            {
                "type": "content_block_start",
                "index": self._index,
                "content_block": {"type": "thinking", "thinking": "", "signature": ""},
            }
        )

    def thinking_delta(self, piece: str) -> Iterator[str]:
        yield from self._event(
            {
                "type": "content_block_delta",
                "index": self._index,
                "delta": {"type": "thinking_delta", "thinking": piece},
            }
        )

    def end_thinking(self, text: str, signature: str) -> Iterator[str]:
        yield self._assistant({"type": "thinking", "thinking": text, "signature": signature})
        yield from self._event({"type": "content_block_stop", "index": self._index})
        self._index += 1

    def citation(self, location: dict, cited: ApiCitation | None) -> Iterator[str]:
        """A citation the API just extracted, on the text block being written."""
        delta = {"type": "citations_delta", "citation": location}
        if cited is not None:
            delta["lines"] = {"path": cited.path, "line_start": cited.line_start, "line_end": cited.line_end}
        yield from self._event({"type": "content_block_delta", "index": self._index, "delta": delta})
