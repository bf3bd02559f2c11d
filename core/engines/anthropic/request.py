"""What a Messages API request carries: the instructions and the tool
definitions (both cached: ``cache_control`` marks the end of each, so every
turn of a run, and every run within the cache's lifetime, reads them from the
cache), the thread's earlier turns, and tool results whose file text goes out
as ``search_result`` blocks the API can cite.

The tools are the OpenAI-compatible engine's (``core.engines.openai.tools``:
list, search and read, read-only, confined to the content), in the Messages
API's shape; the instructions are the Claude engines' (``instructions_text``)
after a preface that says the API keeps the citations.

Pure Python: no Django imports.
"""

from __future__ import annotations

from core.engines.openai.prompt import Asked
from core.engines.openai.tools import LIST_FILES, READ_LINES, SEARCH_TEXT, TOOLS, ToolCall
from core.sandbox import instructions_text

from .citing import SentResult, result_title, sent_result

CACHED = {"type": "ephemeral"}

PREFACE = f"""\
You are answering through the Anthropic API, not in a shell. Your tools: `{SEARCH_TEXT}` (use it where the
rules below say Grep or Glob), `{LIST_FILES}`, and `{READ_LINES}` (where they say Read). Passages come back
as search results, one line of the file per block, with citations enabled: when a sentence of your answer
states what a result says, the API records the citation with the exact lines, so write no `[cN]` markers
and no CITATIONS block yourself, whatever the rules below say of the citation format. Call the tools to find
the answer before you write it."""


def tool_definitions() -> list[dict]:
    """The read-only tools in the Messages API's shape, the last one marking the cache's end."""
    tools = [
        {
            "name": tool["function"]["name"],
            "description": tool["function"]["description"],
            "input_schema": tool["function"]["parameters"],
        }
        for tool in TOOLS
    ]
    tools[-1]["cache_control"] = CACHED
    return tools


def system_blocks(manifest: dict) -> list[dict]:
    return [{"type": "text", "text": f"{PREFACE}\n\n{instructions_text(manifest)}", "cache_control": CACHED}]


def thread_messages(asked: Asked) -> list[dict]:
    """The thread's earlier turns, then the question (with its scope)."""
    return [*asked.earlier, {"role": "user", "content": asked.user_message()}]


def tool_result(tool_use_id: str, done: ToolCall, manifest: dict, sent: list[SentResult]) -> dict:
    """The ``tool_result`` for one executed call. Passages (a search's, a read's)
    go as ``search_result`` blocks, appended to ``sent`` in the order the request
    carries them (the order ``search_result_index`` counts); anything else, a
    refusal included, goes as text."""
    content: list[dict] = []
    if not done.is_error:
        for hit in done.read:
            result = sent_result(hit, result_title(manifest, hit.path))
            if result is not None:
                sent.append(result)
                content.append(result.block())
    if not content:
        content = [{"type": "text", "text": done.result or "(empty)"}]
    block = {"type": "tool_result", "tool_use_id": tool_use_id, "content": content}
    if done.is_error:
        block["is_error"] = True
    return block
