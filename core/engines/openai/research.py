"""The research loop the app runs against an OpenAI-compatible server.

With tools: each turn streams one Chat Completion; text deltas go out as they
come, the tool calls it asks for are executed (``tools.ContentTools``) and
their results sent back, until the model answers without a call. Without
tools (retrieval mode): the app retrieves the passages and asks once.

Every step becomes Claude Code stream-json (``writer.ModelStreamWriter``), so
the app records, shows, parses and verifies the run as it does a Claude
engine's. Limits on turns, tokens and seconds each end the run with a
sentence naming the setting; cancel closes the HTTP stream at once.

Pure Python: no Django imports.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

from core.sandbox import read_manifest

from .completion import ModelSettings, NoTools, Reply, Stopped, Streaming
from .prompt import Asked, asked, system_message
from .retrieval import retrieve, tokens_of, with_passages
from .tools import ContentTools, ToolCall, shown_call
from .writer import ModelStreamWriter

TOOL_MODES = ("auto", "on", "off")


class Research(Streaming):
    """One run: ``lines()`` yields its stream-json lines; ``killed_by`` says
    why it stopped early (``cancel``, ``timeout``) once they end."""

    def __init__(
        self,
        settings: ModelSettings,
        prompt: str,
        sandbox: Path,
        *,
        state: Path | None,
        cancel: asyncio.Event,
    ) -> None:
        super().__init__(settings, cancel)
        self.asked: Asked = asked(prompt)
        self.sandbox = sandbox
        self.state = state
        self.killed_by: str | None = None
        self.tools = ContentTools(sandbox, self.asked.folders, state)
        self.manifest = read_manifest(sandbox)

    async def lines(self) -> AsyncIterator[str]:
        mode = "retrieval" if self.settings.tool_mode == "off" else "tools"
        writer = self.writer = self._writer(mode)
        yield writer.init(str(self.sandbox))
        try:
            try:
                if mode == "tools":
                    yield writer.notice(
                        f"Tool mode: {self.settings.model} searches and reads the content itself "
                        f"(OPENAI_TOOLS={self.settings.tool_mode})"
                    )
                    async for line in self._with_tools():
                        yield line
                    return
            except NoTools as refused:
                yield writer.notice(
                    f"The model server takes no tools for {self.settings.model} ({refused.failure.sentence}); "
                    "answering in retrieval mode (OPENAI_TOOLS=off skips this try)."
                )
            writer = self.writer = self._writer("retrieval", writer)
            yield writer.notice(
                f"Retrieval mode: the app searches the content and sends {self.settings.model} the passages "
                f"(OPENAI_TOOLS={self.settings.tool_mode})"
            )
            async for line in self._retrieval():
                yield line
        except Stopped as stop:
            self.killed_by = stop.killed_by
            for line in self._close_partial():
                yield line
            yield writer.result(
                duration_ms=self._elapsed_ms(), text=None, errors=[stop.sentence], subtype=stop.subtype
            )
        finally:
            await self.client.close()

    # -- the two modes --------------------------------------------------------------

    async def _with_tools(self) -> AsyncIterator[str]:
        writer = self.writer
        messages = [
            {"role": "system", "content": system_message(self.manifest, tools=True)},
            *self.asked.earlier,
            {"role": "user", "content": self.asked.user_message()},
        ]
        while True:
            if writer.turns >= self.settings.max_turns:
                raise Stopped(
                    f"Stopped after {writer.turns} model turn{'s' * (writer.turns != 1)} "
                    f"(OPENAI_MAX_TURNS={self.settings.max_turns}) "
                    "before the model wrote its answer.",
                    "error_max_turns",
                )
            reply = Reply()
            async for line in self._complete(messages, reply, tools=True):
                yield line
            calls = [reply.calls[index] for index in sorted(reply.calls)]
            if not calls:
                yield writer.result(duration_ms=self._elapsed_ms(), text=reply.text)
                return
            messages.append(
                {
                    "role": "assistant",
                    "content": reply.text or None,
                    "tool_calls": [
                        {
                            "id": c["id"],
                            "type": "function",
                            "function": {"name": c["name"], "arguments": c["arguments"]},
                        }
                        for c in calls
                    ],
                }
            )
            # The steps show at once; each result follows as its call is done.
            steps = []
            for call in calls:
                tool_id, lines = writer.tool_use(*shown_call(call["name"], call["arguments"]))
                steps.append(tool_id)
                for line in lines:
                    yield line
            for line in writer.end_message("tool_use"):
                yield line
            for tool_id, call in zip(steps, calls, strict=True):
                done = await self._race(asyncio.to_thread(self.tools.run, call["name"], call["arguments"]))
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": done.result})
                yield writer.tool_result(tool_id, done.result, _structured(done), is_error=done.is_error)

    async def _retrieval(self) -> AsyncIterator[str]:
        writer = self.writer
        system = system_message(self.manifest, tools=False)
        question = self.asked.user_message()
        fixed = (
            tokens_of(system) + tokens_of(question) + sum(tokens_of(m["content"]) for m in self.asked.earlier)
        )
        budget = self.settings.context_length - self.settings.reply_tokens - fixed - 64
        for line in writer.start_message():
            yield line
        tool_id, lines = writer.tool_use("Grep", {"pattern": self.asked.search_words, "path": "."})
        for line in lines:
            yield line
        for line in writer.end_message("tool_use"):
            yield line
        found = await asyncio.to_thread(
            retrieve,
            self.sandbox,
            self.asked.search_words,
            self.asked.folders,
            state=self.state,
            budget_tokens=max(budget, 0),
        )
        listing = "\n".join(f"{hit.path} (lines {hit.line_start}-{hit.line_end})" for hit in found.passages)
        yield writer.tool_result(
            tool_id,
            f"Sent {len(found.passages)} passage{'s' * (len(found.passages) != 1)} to the model\n{listing}",
            {
                "mode": "retrieval",
                "filenames": sorted({h.path for h in found.passages}),
                "numFiles": len(found.passages),
            },
        )
        if found.left_out:
            yield writer.notice(
                f"{found.left_out} passage{'s' * (found.left_out != 1)} left out to fit the model's context "
                f"({self.settings.context_length} tokens, OPENAI_CONTEXT_LENGTH)."
            )
        messages = [
            {"role": "system", "content": system},
            *self.asked.earlier,
            {
                "role": "user",
                "content": self.asked.user_message(with_passages(self.asked.question, found.passages)),
            },
        ]
        reply = Reply()
        async for line in self._complete(messages, reply, tools=False):
            yield line
        yield writer.result(duration_ms=self._elapsed_ms(), text=reply.text)

    # -- one streamed completion ----------------------------------------------------------

    # -- helpers ------------------------------------------------------------------------

    def _writer(self, mode: str, previous: ModelStreamWriter | None = None) -> ModelStreamWriter:
        tools = ["Grep", "Read", "LS"] if mode == "tools" else ["Grep"]
        writer = ModelStreamWriter(
            previous.session_id if previous else str(uuid.uuid4()),
            model=self.settings.model,
            tools=tools,
            mode=mode,
        )
        if previous is not None:  # the same run carries on: ids, turns and usage go on counting
            writer._n, writer.turns = previous._n, previous.turns
            writer.input_tokens, writer.completion_tokens = previous.input_tokens, previous.completion_tokens
        return writer

    def _close_partial(self):
        """The text of a turn cut short (cancel, a limit) as a finished block: kept as the partial answer."""
        if self.partial and self.writer is not None:
            text, self.partial = self.partial, ""
            yield from self.writer.end_text(text)
            yield from self.writer.end_message("end_turn")

    def _elapsed_ms(self) -> int:
        return int((time.monotonic() - self.started) * 1000)


def _structured(done: ToolCall) -> dict:
    """What Claude Code's own tool would report, for the run's summary (files read)."""
    if done.shown_as == "Read" and done.read and not done.is_error:
        hit = done.read[0]
        lines = hit.text.split("\n")
        return {
            "type": "text",
            "file": {
                "filePath": hit.path,
                "content": hit.text,
                "numLines": len(lines),
                "startLine": hit.line_start,
                "totalLines": hit.total_lines,
            },
        }
    if done.shown_as == "Grep":
        files = sorted({hit.path for hit in done.read})
        return {"mode": "content", "filenames": files, "numFiles": len(files)}
    return {"is_error": done.is_error}
