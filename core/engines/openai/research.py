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
import contextlib
import functools
import json
import ssl
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import openai

from core.sandbox import read_manifest

from .errors import Failure, failure_of, retry_delay
from .prompt import Asked, asked, system_message
from .retrieval import retrieve, tokens_of, with_passages
from .tools import TOOLS, ContentTools, ToolCall, shown_call
from .writer import ModelStreamWriter

TOOL_MODES = ("auto", "on", "off")


@dataclass(frozen=True, slots=True)
class ModelSettings:
    """One OpenAI-compatible provider and model, with the run's limits."""

    base_url: str
    model: str
    api_key: str = ""
    context_length: int = 8192  # tokens the model reads and writes in one request
    tool_mode: str = "auto"  # on: tools; off: retrieval; auto: tools unless the server refuses them
    max_turns: int = 12  # requests in one run
    max_tokens: int = 16_000  # tokens the model may write in one run
    reply_tokens: int = 2_048  # tokens asked for per reply (at most)
    timeout: float = 300.0  # seconds for the whole run
    max_retries: int = 3  # of one request, on 429 / 5xx / unreachable
    retry_delay: float = 1.0  # the first retry's delay in seconds, doubling


@functools.cache
def tls_context() -> ssl.SSLContext:
    """One TLS context for every run. Building one loads the CA store (about
    80 ms here), which a new client per run would otherwise pay before its
    first request (docs/ENGINES.md, Time to first token)."""
    return ssl.create_default_context()


class Stopped(Exception):
    """The run ends early: ``sentence`` says why, ``subtype`` is the result's."""

    def __init__(self, sentence: str, subtype: str = "error_during_execution", killed_by: str | None = None):
        super().__init__(sentence)
        self.sentence = sentence
        self.subtype = subtype
        self.killed_by = killed_by


class NoTools(Exception):
    """The server refused a request because the model takes no tools."""

    def __init__(self, failure: Failure):
        super().__init__(failure.sentence)
        self.failure = failure


@dataclass
class Reply:
    text: str = ""
    calls: dict[int, dict] = field(default_factory=dict)  # index → {id, name, arguments}
    finish_reason: str | None = None


class Research:
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
        self.settings = settings
        self.asked: Asked = asked(prompt)
        self.sandbox = sandbox
        self.state = state
        self.cancel = cancel
        self.started = time.monotonic()
        self.deadline = self.started + settings.timeout
        self.killed_by: str | None = None
        self.tools = ContentTools(sandbox, self.asked.folders, state)
        self.manifest = read_manifest(sandbox)
        self.client = openai.AsyncOpenAI(
            base_url=settings.base_url,
            api_key=settings.api_key or "no-key",  # local servers take any
            max_retries=0,  # retried here, each retry shown as a step
            timeout=settings.timeout,
            http_client=openai.DefaultAsyncHttpxClient(verify=tls_context()),
        )
        self.writer: ModelStreamWriter | None = None
        self.partial = ""  # the text of the turn being streamed

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

    async def _complete(self, messages: list[dict], reply: Reply, *, tools: bool) -> AsyncIterator[str]:
        """Stream one Chat Completion into ``reply``, yielding its lines as they come."""
        writer = self.writer
        settings = self.settings
        left = settings.max_tokens - writer.completion_tokens
        if left <= 0:
            raise Stopped(self._tokens_sentence())
        size = sum(tokens_of(json.dumps(m, ensure_ascii=False)) for m in messages)
        if size + min(settings.reply_tokens, left) > settings.context_length:
            raise Stopped(
                f"The conversation outgrew the model's context (about {size} tokens of "
                f"{settings.context_length}, OPENAI_CONTEXT_LENGTH) before the model answered."
            )
        request = {
            "model": settings.model,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
            "max_tokens": min(settings.reply_tokens, left),
        }
        if tools:
            request["tools"] = TOOLS
        stream = None
        for attempt in range(settings.max_retries + 1):
            try:
                stream = await self._race(self.client.chat.completions.create(**request))
                break
            except openai.APIError as error:
                failure = failure_of(
                    error, base_url=settings.base_url, model=settings.model, api_key=settings.api_key
                )
                if failure.no_tools and tools and settings.tool_mode == "auto" and writer.turns == 0:
                    raise NoTools(failure) from None
                if not failure.retry or attempt == settings.max_retries:
                    raise Stopped(failure.sentence) from None
                delay = retry_delay(attempt + 1, settings.retry_delay, failure)
                yield writer.retry(
                    attempt=attempt + 1,
                    max_retries=settings.max_retries,
                    delay_s=delay,
                    status=failure.status,
                    error=failure.kind,
                )
                await self._race(asyncio.sleep(delay))
        for line in writer.start_message():
            yield line
        self.partial = ""
        text_open = False
        try:
            chunks = aiter(stream)
            while True:
                try:
                    chunk = await self._race(anext(chunks))
                except StopAsyncIteration:
                    break
                if chunk.usage is not None:
                    writer.input_tokens += chunk.usage.prompt_tokens or 0
                    writer.completion_tokens += chunk.usage.completion_tokens or 0
                for choice in chunk.choices:
                    delta = choice.delta
                    if delta is not None and delta.content:
                        if not text_open:
                            for line in writer.start_text():
                                yield line
                            text_open = True
                        self.partial += delta.content
                        for line in writer.text_delta(delta.content):
                            yield line
                    for fragment in (delta.tool_calls or []) if delta is not None else []:
                        call = reply.calls.setdefault(fragment.index, {"id": "", "name": "", "arguments": ""})
                        if fragment.id:
                            call["id"] = fragment.id
                        if fragment.function is not None:
                            call["name"] += fragment.function.name or ""
                            call["arguments"] += fragment.function.arguments or ""
                    if choice.finish_reason:
                        reply.finish_reason = choice.finish_reason
        except openai.APIError as error:
            failure = failure_of(
                error, base_url=settings.base_url, model=settings.model, api_key=settings.api_key
            )
            raise Stopped(failure.sentence) from None
        finally:
            await stream.close()
        reply.text = self.partial
        self.partial = ""
        for number, index in enumerate(sorted(reply.calls), start=1):
            reply.calls[index]["id"] = reply.calls[index]["id"] or f"call_{writer.turns}_{number}"
        if text_open:
            for line in writer.end_text(reply.text):
                yield line
        if not reply.calls:
            for line in writer.end_message("end_turn" if reply.finish_reason != "length" else "max_tokens"):
                yield line
        if reply.finish_reason == "length" or (
            reply.calls and writer.completion_tokens >= settings.max_tokens
        ):
            raise Stopped(self._tokens_sentence())

    async def _race(self, awaitable):
        """``awaitable``'s result, unless cancel or the run's time limit comes first."""
        task = asyncio.ensure_future(awaitable)
        stop = asyncio.ensure_future(self.cancel.wait())
        try:
            done, _ = await asyncio.wait(
                {task, stop},
                timeout=max(0.0, self.deadline - time.monotonic()),
                return_when=asyncio.FIRST_COMPLETED,
            )
        finally:
            stop.cancel()
        if task in done:
            return task.result()
        task.cancel()
        with contextlib.suppress(BaseException):
            await task
        if self.cancel.is_set():
            raise Stopped("Cancelled.", killed_by="cancel")
        raise Stopped(
            f"The model ran past the time limit of {self.settings.timeout:g} s (OPENAI_TIMEOUT).",
            killed_by="timeout",
        )

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

    def _tokens_sentence(self) -> str:
        return (
            f"The model used its token budget ({self.writer.completion_tokens} of {self.settings.max_tokens}, "
            "OPENAI_MAX_TOKENS) before it finished its answer."
        )

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
