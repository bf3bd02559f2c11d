"""A scripted model that behaves like a real one: it acts only on what the
request the real CLI sent actually holds.

``Researcher`` is a turn for ``MockAnthropic`` (a callable taking the request
body). Like a real model it:

- finds the question in the conversation and the working folder in the
  environment the CLI describes ("Primary working directory: …");
- searches with ``Grep`` for the question's words, reads the first file the
  Grep result really listed, and picks the line of that Read result that
  shares most words with the question;
- cites that line in the research format (``[c1]``, a PROGRESS marker, the
  CITATIONS block) **only if the system prompt it received carries the
  research instructions**; otherwise it answers in plain prose, with no
  citations, as a model that was never told how to cite would;
- says it found nothing when Grep found nothing.

Each decision is recorded in ``decisions`` so tests can show why it answered
as it did. Nothing here is specific to a test's content.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from testing.mock_anthropic import Reply, Text, ToolUse

STOPWORDS = frozenset(
    "a an and are as at be by can de did do does for from has have how i in is it its of on or "
    "say says tell that the their there these this to was what when where which who why will with "
    "about after before long many much should would could".split()
)
# What the research instructions must show for a model to reproduce them.
INSTRUCTION_SIGNS = ("[c1]", "<!-- CITATIONS: [", "```", '"source_file"', "<!-- PROGRESS:")
READ_LINE = re.compile(r"^\s*(\d+)[\t→](.*)$")


def system_text(body: dict[str, Any]) -> str:
    system = body.get("system")
    if isinstance(system, str):
        return system
    if isinstance(system, list):
        return "\n".join(b.get("text", "") for b in system if isinstance(b, dict))
    return ""


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
    return []


def question_of(body: dict[str, Any]) -> str:
    """The person's question: the first user text that is not a system reminder."""
    for message in body.get("messages") or []:
        if message.get("role") != "user":
            continue
        for text in _texts(message.get("content")):
            if text.strip() and not text.lstrip().startswith("<system-reminder>"):
                return text.strip()
    return ""


def working_dir_of(body: dict[str, Any]) -> str | None:
    """The folder the CLI says it works in (its environment section)."""
    texts = [system_text(body)]
    for message in body.get("messages") or []:
        texts += _texts(message.get("content"))
    for text in texts:
        match = re.search(r"Primary working directory: (\S+)", text)
        if match:
            return match.group(1)
    return None


def tool_exchanges(body: dict[str, Any]) -> list[tuple[str, dict, str, bool]]:
    """``(tool name, input, result text, is_error)`` for every tool call so far, in order."""
    calls: dict[str, tuple[str, dict]] = {}
    done = []
    for message in body.get("messages") or []:
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use":
                calls[block.get("id", "")] = (block.get("name", ""), block.get("input") or {})
            elif block.get("type") == "tool_result":
                name, given = calls.get(block.get("tool_use_id", ""), ("", {}))
                result = block.get("content")
                text = result if isinstance(result, str) else "\n".join(_texts(result))
                done.append((name, given, text, bool(block.get("is_error"))))
    return done


def keywords(question: str) -> list[str]:
    words = re.findall(r"[A-Za-z][A-Za-z0-9_-]{2,}", question.lower())
    return list(dict.fromkeys(w for w in words if w not in STOPWORDS))


@dataclass
class Researcher:
    decisions: list[str] = field(default_factory=list)

    def __call__(self, body: dict[str, Any]) -> Reply:
        system = system_text(body)
        instructed = all(sign in system for sign in INSTRUCTION_SIGNS)
        question = question_of(body)
        words = keywords(question)
        done = tool_exchanges(body)
        cwd = working_dir_of(body)
        if not done:
            self.decisions.append(f"grep {words} (instructed={instructed})")
            pattern = "|".join(re.escape(w) for w in words) or question
            return Reply([ToolUse("Grep", {"pattern": pattern, "-i": True})])
        name, given, result, is_error = done[-1]
        if name == "Grep":
            files = [line.strip() for line in result.splitlines()[1:] if line.strip()]
            if is_error or not files or not cwd:
                self.decisions.append("nothing found")
                return Reply([Text(self._nothing(instructed))])
            self.decisions.append(f"read {files[0]}")
            return Reply([ToolUse("Read", {"file_path": f"{cwd.rstrip('/')}/{files[0]}"})])
        if name == "Read" and not is_error:
            best = self._best_line(result, words)
            if best is None:
                self.decisions.append("read nothing useful")
                return Reply([Text(self._nothing(instructed))])
            number, line = best
            path = given.get("file_path", "")
            relative = (
                path[len(cwd.rstrip("/")) + 1 :] if cwd and path.startswith(cwd.rstrip("/") + "/") else path
            )
            self.decisions.append(f"cite {relative}:{number}")
            return Reply([Text(self._answer(instructed, relative, number, line.strip()))], chunk_chars=17)
        self.decisions.append(f"{name} failed")
        return Reply([Text(self._nothing(instructed))])

    @staticmethod
    def _best_line(read_result: str, words: list[str]) -> tuple[int, str] | None:
        best, best_score = None, 0
        for raw in read_result.splitlines():
            match = READ_LINE.match(raw)
            if not match:
                continue
            text = match.group(2)
            score = sum(1 for w in words if w in text.lower())
            if score > best_score:
                best, best_score = (int(match.group(1)), text), score
        return best

    @staticmethod
    def _answer(instructed: bool, path: str, number: int, line: str) -> str:
        if not instructed:
            return f"According to {path}, {line}"
        marker = {"phase": "synthesizing", "step": 4, "total": 5, "detail": "Writing the answer"}
        citation = {
            "id": "c1",
            "source_file": path,
            "source_type": "file",
            "location": {"line_start": number, "line_end": number, "section": None, "page": None},
            "excerpt": line[:200],
            "relevance": "direct",
            "confidence": 0.9,
        }
        return (
            f"<!-- PROGRESS: {json.dumps(marker)} -->\n"
            f"{line} [c1]\n\n"
            f"<!-- CITATIONS: {json.dumps([citation])} -->"
        )

    @staticmethod
    def _nothing(instructed: bool) -> str:
        if instructed:
            return "⚠️ No Definitive Answer Found\n\nConfidence: NONE\n\nThe content does not say."
        return "I could not find that."
