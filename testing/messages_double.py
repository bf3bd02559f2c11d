"""A model for ``MockAnthropic`` that acts only on what the request holds and
cites as the Messages API does: ``CitingResearcher``.

It finds the offered tools by their input schemas (a search tool takes
``query``, a read tool a ``path``), searches for the question's words, reads
the file the best result came from, then answers with the line that shares
most words with the question. Its citations are the API's: a
``search_result_location`` only for a ``search_result`` block the request
actually carried with ``citations: {"enabled": true}``, its ``cited_text`` the
cited content blocks' text taken verbatim (concatenated, as the API does), its
``search_result_index`` counted across every search result of the request in
order, its block indices pointing at those blocks. A result sent as plain
text, or without citations enabled, is never cited: the answer then has none.
Nothing here is specific to a test's content.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from testing.mock_anthropic import Reply, Text, ToolUse
from testing.model_double import keywords


@dataclass(frozen=True)
class SearchResult:
    """One ``search_result`` block of the request, where the API counts it."""

    index: int  # among all search results of the request, in order
    source: str
    title: str
    texts: tuple[str, ...]
    citable: bool  # sent with citations enabled


def search_results(body: dict[str, Any]) -> list[SearchResult]:
    """Every ``search_result`` block of the request's messages (top level and in tool results), in order."""
    found: list[SearchResult] = []

    def visit(blocks: Any) -> None:
        if not isinstance(blocks, list):
            return
        for block in blocks:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "search_result":
                texts = tuple(
                    str(c.get("text") or "") for c in block.get("content") or [] if isinstance(c, dict)
                )
                citable = (block.get("citations") or {}).get("enabled") is True
                found.append(
                    SearchResult(
                        len(found), str(block.get("source")), str(block.get("title")), texts, citable
                    )
                )
            elif block.get("type") == "tool_result":
                visit(block.get("content"))

    for message in body.get("messages") or []:
        visit(message.get("content"))
    return found


def offered(body: dict[str, Any]) -> dict[str, str]:
    """``{"search": name, "read": name}`` by the tools' input schemas."""
    roles = {}
    for tool in body.get("tools") or []:
        properties = (tool.get("input_schema") or {}).get("properties") or {}
        if "query" in properties:
            roles["search"] = tool["name"]
        elif "path" in properties:
            roles["read"] = tool["name"]
    return roles


def called(body: dict[str, Any]) -> list[str]:
    """The names of the tools the assistant turns of the request called, in order."""
    names = []
    for message in body.get("messages") or []:
        if message.get("role") == "assistant" and isinstance(message.get("content"), list):
            names += [b.get("name") for b in message["content"] if b.get("type") == "tool_use"]
    return names


def question_of(body: dict[str, Any]) -> str:
    """The last user message that is the person's text (not tool results)."""
    for message in reversed(body.get("messages") or []):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        texts = [b.get("text", "") for b in content or [] if b.get("type") == "text"]
        if texts:
            return "\n".join(texts)
    return ""


@dataclass
class CitingResearcher:
    """``inclusive_end``: cite with an inclusive end index, as the API's own
    examples show; ``span``: blocks per citation; ``own_block``: also write a
    CITATIONS block of its own (a model that ignores the instructions)."""

    inclusive_end: bool = False
    span: int = 1
    own_block: str = ""
    decisions: list[str] = field(default_factory=list)

    def __call__(self, body: dict[str, Any]) -> Reply:
        tools, done = offered(body), called(body)
        asked = [line for line in question_of(body).split("\n\n")[0].split("\n") if not line.startswith("(")]
        words = keywords(" ".join(asked))  # the question, less the app's notes on the thread
        results = search_results(body)
        if "search" in tools and tools["search"] not in done:
            self.decisions.append("search")
            return Reply(
                [Text("Let me search the notes."), ToolUse(tools["search"], {"query": " ".join(words)})]
            )
        if "read" in tools and tools["read"] not in done and results:
            best = max(results, key=lambda r: _score(" ".join(r.texts), words))
            self.decisions.append(f"read {best.source}")
            return Reply([ToolUse(tools["read"], {"path": best.source})])
        citable = [r for r in results if r.citable]
        if not citable:
            self.decisions.append("answer uncited")
            return Reply([Text("The notes I was given say nothing I can cite.")])
        result, start = max(
            ((r, i) for r in citable for i in range(len(r.texts))),
            key=lambda pair: (_score(pair[0].texts[pair[1]], words), -pair[0].index),
        )
        end = min(start + self.span, len(result.texts))
        cited = "".join(result.texts[start:end])
        location = {
            "type": "search_result_location",
            "source": result.source,
            "title": result.title,
            "cited_text": cited,
            "search_result_index": result.index,
            "start_block_index": start,
            "end_block_index": end - 1 if self.inclusive_end else end,
        }
        self.decisions.append(f"cite {result.source} blocks {start}-{end}")
        blocks = [
            Text("According to the notes, "),
            Text(" ".join(t.strip() for t in result.texts[start:end]), (location,)),
        ]
        if self.own_block:
            blocks.append(Text(self.own_block))
        return Reply(blocks)


def _score(text: str, words: list[str]) -> int:
    lowered = text.lower()
    return sum(1 for word in words if word in lowered)
