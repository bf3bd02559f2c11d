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
import dataclasses
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import openai

from core.engines.builtin.search import Hit
from core.sandbox import read_manifest

from .attach import attach_citations, usable_citations
from .completion import ModelSettings, NoTools, Reply, Stopped, Streaming, tls_context
from .context import context_length
from .prompt import Asked, asked, system_message
from .retrieval import CHARS_PER_TOKEN, messages_tokens, retrieve, tokens_of, with_passages
from .tools import ContentTools, fitted, shown_call, step_result
from .writer import ModelStreamWriter

TOOL_MODES = ("auto", "on", "off")
CONTEXT_MARGIN = 64  # tokens kept free of the estimate's error


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
        self.seen: list[Hit] = []  # the passages the model was given or read: what the app may cite

    async def lines(self) -> AsyncIterator[str]:
        mode = "retrieval" if self.settings.tool_mode == "off" else "tools"
        writer = self.writer = self._writer(mode)
        yield writer.init(str(self.sandbox))
        try:
            yield await self._context_length()
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
                for line in await self._answer(reply, "read"):
                    yield line
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
                room = self._room(messages)
                cut = fitted(done, int(room * CHARS_PER_TOKEN))
                if cut:
                    sentence = (
                        f"{cut} line{'s' * (cut != 1)} of a {done.shown_as} result left out to fit the "
                        f"model's context ({self.settings.context_length} tokens, {self.context_source})."
                    )
                    writer.left_out.append(sentence)
                    yield writer.notice(sentence)
                self.seen.extend(done.read)
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": done.result})
                yield writer.tool_result(tool_id, done.result, step_result(done), is_error=done.is_error)

    async def _retrieval(self) -> AsyncIterator[str]:
        writer = self.writer
        system = system_message(self.manifest, tools=False)
        question = self.asked.user_message()
        fixed = (
            tokens_of(system) + tokens_of(question) + sum(tokens_of(m["content"]) for m in self.asked.earlier)
        )
        budget = self.settings.context_length - self.settings.reply_tokens - fixed - CONTEXT_MARGIN
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
        self.seen = list(found.passages)
        if found.left_out:
            sentence = (
                f"{found.left_out} passage{'s' * (found.left_out != 1)} left out to fit the model's context "
                f"({self.settings.context_length} tokens, {self.context_source})."
            )
            writer.left_out.append(sentence)
            yield writer.notice(sentence)
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
        for line in await self._answer(reply, "was given"):
            yield line

    # -- the context and the answer ---------------------------------------------------------

    async def _context_length(self) -> str:
        """Learn the model's context length (configured, or from its server) and say it as a step."""
        async with openai.DefaultAsyncHttpxClient(verify=tls_context()) as http:
            known = await self._race(
                context_length(
                    http,
                    self.settings.base_url,
                    self.settings.model,
                    configured=self.settings.context_length,
                    api_key=self.settings.api_key,
                )
            )
        self.settings = dataclasses.replace(self.settings, context_length=known.tokens)
        self.context_source = known.source
        return self.writer.notice(f"Context: {known.tokens} tokens ({known.source}).")

    def _room(self, messages: list[dict]) -> int:
        """Tokens a tool result may still take: the context less the conversation and the reply."""
        used = messages_tokens(messages)
        return self.settings.context_length - self.settings.reply_tokens - used - CONTEXT_MARGIN

    async def _answer(self, reply: Reply, how: str) -> list[str]:
        """The closing lines: the answer with citations the app attached when the
        model's own verify nowhere, what was left out of the model's context, and
        where a reply was cut at its cap."""
        writer = self.writer
        text = reply.text
        lines = []
        notes = list(writer.left_out)
        if reply.capped:
            notes.append(
                f"The model's reply reached its cap of {reply.capped} tokens: the answer may be cut short."
            )
            lines.append(writer.notice(notes[-1]))
        own = await asyncio.to_thread(
            usable_citations, text, self.sandbox, content_ids=list(self.manifest), state=self.state
        )
        if text.strip() and not own:
            attached = await asyncio.to_thread(attach_citations, text, self.seen)
            if attached.ids:
                text = attached.text
                writer.attached = attached.ids
                lines.append(
                    writer.notice(
                        f"No citation of the model's verifies: the app attached {len(attached.ids)} "
                        f"citation{'s' * (len(attached.ids) != 1)} to "
                        f"{attached.sentences - attached.uncited} of {attached.sentences} sentences, "
                        f"at the lines of the passages the model {how} that state them."
                    )
                )
            else:
                lines.append(
                    writer.notice(
                        "No citation of the model's verifies, and no passage the model "
                        f"{how} states a sentence of its answer: no citation attached."
                    )
                )
        if notes:
            text = text.rstrip() + "\n\n" + "\n".join(f"_{sentence}_" for sentence in notes)
        lines.append(writer.result(duration_ms=self._elapsed_ms(), text=text))
        return lines

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
            writer.left_out = previous.left_out
        return writer

    def _close_partial(self):
        """The text of a turn cut short (cancel, a limit) as a finished block: kept as the partial answer."""
        if self.partial and self.writer is not None:
            text, self.partial = self.partial, ""
            yield from self.writer.end_text(text)
            yield from self.writer.end_message("end_turn")

    def _elapsed_ms(self) -> int:
        return int((time.monotonic() - self.started) * 1000)
