"""A run's settings and what one streamed reply leaves: its content blocks as
the next request carries them back, the answer's text blocks with the API's
citations, and the tool calls.

Pure Python: no Django imports.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .answer import TextBlock


@dataclass(frozen=True, slots=True)
class AnthropicSettings:
    """The Messages API, the model, and the run's limits."""

    base_url: str
    model: str
    api_key: str = ""
    max_turns: int = 12  # requests in one run
    max_tokens: int = 16_000  # tokens the model may write in one run
    reply_tokens: int = 4_096  # tokens asked for per reply (at most)
    thinking_tokens: int = 0  # extended thinking's budget per reply; 0: off
    timeout: float = 300.0  # seconds for the whole run
    max_retries: int = 3  # of one request, on 429 / 529 / 5xx / unreachable
    retry_delay: float = 1.0  # the first retry's delay in seconds, doubling


@dataclass
class Turn:
    """One streamed reply: its content blocks as they are sent back, and the answer's text blocks."""

    content: list[dict] = field(default_factory=list)
    texts: list[TextBlock] = field(default_factory=list)
    calls: list[tuple[str, dict]] = field(default_factory=list)  # (step id on the page, tool_use block)
    stop_reason: str | None = None


def sent_back(block: dict) -> dict:
    """A reply's block as the next request carries it (the thread of the run)."""
    kept = {key: value for key, value in block.items() if key != "json"}
    if kept.get("type") == "text" and not kept.get("citations"):
        kept.pop("citations", None)
    return kept
