"""A model for ``MockOpenAI`` that acts only on what the request holds, as a
real one would: ``ChatResearcher``.

It finds the offered tools by their schemas (a read tool takes a file's path,
a search tool takes words) and calls them with the parameters those schemas
name; it reads the passages the results returned (``path (lines a-b)``
headings over ``number→text`` lines) and answers with the line that shares
most words with the question; it cites in the research format only when the
system message carries the research instructions. Nothing here is specific to
a test's content.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from testing.mock_openai import Call, Reply, Turn
from testing.model_double import INSTRUCTION_SIGNS, READ_LINE, keywords

# What a model that ignores the format adds of its own: no passage states it.
UNSTATED = "Administrators can usually change such limits elsewhere."
PASSAGE_HEAD = re.compile(r"^(\S+/\S+) \(lines (\d+)-(\d+)\)$")


def messages_of(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in body.get("messages") or [] if isinstance(m, dict)]


def system_of(body: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content") or "") for m in messages_of(body) if m.get("role") == "system")


def offered_tools(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The functions offered, by name: their parameters' JSON schema."""
    offered = {}
    for tool in body.get("tools") or []:
        function = tool.get("function") or {}
        if tool.get("type") == "function" and function.get("name"):
            offered[function["name"]] = function.get("parameters") or {}
    return offered


def exchanges(body: dict[str, Any]) -> list[tuple[str, dict[str, Any], str]]:
    """``(function, arguments, result)`` for every tool call answered so far, in order."""
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    done = []
    for message in messages_of(body):
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            calls[call.get("id", "")] = (
                function.get("name", ""),
                json.loads(function.get("arguments") or "{}"),
            )
        if message.get("role") == "tool":
            name, arguments = calls.get(message.get("tool_call_id", ""), ("", {}))
            done.append((name, arguments, str(message.get("content") or "")))
    return done


def passages_in(text: str) -> list[tuple[str, int, str]]:
    """``(path, line number, line)`` for every numbered line under a passage heading."""
    found, path = [], None
    for raw in text.splitlines():
        head = PASSAGE_HEAD.match(raw.strip())
        if head:
            path = head.group(1)
            continue
        line = READ_LINE.match(raw)
        if line and path:
            found.append((path, int(line.group(1)), line.group(2)))
    return found


def _property(schema: dict[str, Any], kind: str, *hints: str) -> str | None:
    """The name of a ``kind`` property of ``schema`` whose name has one of ``hints``, else the first required one."""
    properties = schema.get("properties") or {}
    typed = [name for name, spec in properties.items() if (spec or {}).get("type") == kind]
    for hint in hints:
        for name in typed:
            if hint in name.lower():
                return name
    required = [name for name in schema.get("required") or [] if name in typed]
    return required[0] if required else None


def _required(schema: dict[str, Any], *hints: str) -> bool:
    """Whether ``schema`` requires a string property whose name has one of ``hints``."""
    properties = schema.get("properties") or {}
    return any(
        (properties.get(name) or {}).get("type") == "string" and any(hint in name.lower() for hint in hints)
        for name in schema.get("required") or []
    )


@dataclass
class ChatResearcher:
    """Searches with the offered search tool for the question's words, reads the
    first passage its result named with the offered read tool, and answers with
    the line of what it read that shares most words with the question; with no
    tools offered it answers from the passages in the user's message. It cites
    (``[c1]``, the CITATIONS block) only when the system message carries the
    research instructions. ``decisions`` records why it did what it did.

    ``citing`` is how well it follows the citation format it was told, as small
    local models do or do not: ``obeys`` (cites as told), ``ignores`` (never
    writes the format, and adds a sentence of its own that no passage states),
    ``breaks`` (writes a CITATIONS block whose lines and excerpt are garbled)."""

    decisions: list[str] = field(default_factory=list)
    citing: str = "obeys"

    def __call__(self, body: dict[str, Any]) -> Turn:
        instructed = all(sign in system_of(body) for sign in INSTRUCTION_SIGNS)
        users = [str(m.get("content") or "") for m in messages_of(body) if m.get("role") == "user"]
        question = users[-1].split("\n\n", 1)[0] if users else ""
        question = question.splitlines()[-1] if question else ""
        words = keywords(question)
        tools = offered_tools(body)
        if not tools:
            best = _best(passages_in(users[-1] if users else ""), words)
            return self._answer(instructed, best, "answer from the passages sent")
        # Known by their schemas, not their names: a read tool takes a file's
        # path, a search tool takes words.
        read = next((name for name, schema in tools.items() if _required(schema, "path", "file")), None)
        search = next(
            (
                name
                for name, schema in tools.items()
                if name != read and _required(schema, "query", "pattern", "words", "text", "search")
            ),
            None,
        )
        done = exchanges(body)
        if not done and search:
            query = _property(tools[search], "string", "query", "pattern", "words", "text", "search")
            self.decisions.append(f"search {words} with {search}")
            return Reply(calls=[Call(search, {query: " ".join(words)} if query else {})])
        name, _arguments, result = done[-1] if done else ("", {}, "")
        if name == search and read:
            found = passages_in(result)
            if not found:
                return self._answer(instructed, None, "search found nothing")
            path = found[0][0]
            lines = [n for p, n, _ in found if p == path]
            schema = tools[read]
            named = {
                _property(schema, "string", "path", "file"): path,
                _property(schema, "integer", "start", "first", "offset"): max(1, min(lines) - 2),
                _property(schema, "integer", "end", "last"): max(lines) + 2,
            }
            arguments = {key: value for key, value in named.items() if key}
            self.decisions.append(f"read {path} with {read}")
            return Reply(calls=[Call(read, arguments)])
        return self._answer(
            instructed, _best(passages_in(result), words), f"answer after {name or 'nothing'}"
        )

    def _answer(self, instructed: bool, best: tuple[str, int, str] | None, why: str) -> Reply:
        if best is None:
            self.decisions.append(f"{why}: nothing useful")
            text = (
                "⚠️ No Definitive Answer Found\n\nConfidence: NONE" if instructed else "I could not find that."
            )
            return Reply(text)
        path, number, line = best
        if instructed and self.citing == "ignores":
            self.decisions.append(f"{why}: told to cite, ignored it")
            return Reply(f"{line.strip()}\n\n{UNSTATED}", chunk_chars=7)
        self.decisions.append(f"{why}: cite {path}:{number}" if instructed else f"{why}: no citation format")
        if not instructed:
            return Reply(f"According to {path}, {line.strip()}")
        garbled = self.citing == "breaks"
        if garbled:
            self.decisions[-1] = f"{why}: cite {path}:{number} garbled"
        citation = {
            "id": "c1",
            "source_file": path,
            "source_type": "file",
            "location": {
                "line_start": number + 1000 * garbled,
                "line_end": number + 1000 * garbled,
                "section": None,
                "page": None,
            },
            "excerpt": (" ".join(reversed(line.split())) if garbled else line.strip())[:200],
            "relevance": "direct",
            "confidence": 0.9,
        }
        return Reply(f"{line.strip()} [c1]\n\n<!-- CITATIONS: {json.dumps([citation])} -->", chunk_chars=7)


def _best(lines: list[tuple[str, int, str]], words: list[str]) -> tuple[str, int, str] | None:
    best, best_score = None, 0
    for path, number, text in lines:
        score = sum(1 for word in words if word in text.lower())
        if score > best_score:
            best, best_score = (path, number, text), score
    return best
