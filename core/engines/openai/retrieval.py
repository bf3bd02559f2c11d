"""Retrieval mode, for models that take no tools: the app finds the passages
(the built-in engine's index, scoped as the question is) and hands them over
with their paths and numbered lines, as many as the model's context holds.

The context is budgeted here, never left to the server (Ollama cuts a long
prompt silently): what did not fit is counted, and the run says so.

Pure Python: no Django imports.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from core.engines.builtin.scoped import ensure_index, scoped_hits
from core.engines.builtin.search import Hit, search

from .tools import numbered

MAX_PASSAGES = 12  # passages retrieved before the budget is applied


@dataclass(frozen=True, slots=True)
class Retrieved:
    passages: list[Hit]  # those sent, best first
    left_out: int  # found but beyond the context budget
    tokens: int  # the sent passages' estimated size


# Characters per token the budget assumes. OpenAI's rule of thumb is four, but small
# local tokenizers cut finer: Gemma 3's cut the retrieval prompts over package READMEs
# at 2.7 to 3.3 characters a token (docs/benchmarks/openai-citations.md), so at four
# every one of them overran a 4096-token context. Erring short wastes some context;
# erring long makes the server cut or refuse.
CHARS_PER_TOKEN = 2.5


def tokens_of(text: str) -> int:
    """A conservative size estimate in tokens (``CHARS_PER_TOKEN``)."""
    return max(1, math.ceil(len(text) / CHARS_PER_TOKEN))


def messages_tokens(messages: list[dict]) -> int:
    """The estimated size of chat messages: their text, their tool calls, a few
    tokens each for the role and the template around it."""
    size = 0
    for message in messages:
        size += tokens_of(str(message.get("content") or "")) + 4
        if message.get("tool_calls"):
            size += tokens_of(json.dumps(message["tool_calls"], ensure_ascii=False))
    return size


def retrieve(
    sandbox: Path, query: str, folders: tuple[str, ...], *, state: Path | None, budget_tokens: int
) -> Retrieved:
    """The best passages for ``query`` that fit in ``budget_tokens``."""
    ensure_index(sandbox, state=state)
    if folders:
        hits = scoped_hits(sandbox, query, list(folders), limit=MAX_PASSAGES, state=state)
    else:
        hits = search(sandbox, query, limit=MAX_PASSAGES, state=state)
    sent, used = [], 0
    for hit in hits:
        size = tokens_of(numbered(hit)) + 2
        if used + size > budget_tokens:
            continue  # a smaller passage further down may still fit
        sent.append(hit)
        used += size
    return Retrieved(sent, len(hits) - len(sent), used)


def with_passages(question: str, passages: list[Hit]) -> str:
    """The user's message in retrieval mode: the question, then the passages."""
    if not passages:
        return f"{question}\n\nThe app's search found no passages in the content for this question."
    shown = "\n\n".join(numbered(hit) for hit in passages)
    return f"{question}\n\nPassages the app found in the content (cite from these only):\n\n{shown}"
