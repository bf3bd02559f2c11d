"""The research loop the app runs against Anthropic's Messages API.

Each turn streams one request: text deltas go out as they come, each
``citations_delta`` is mapped to its lines at once (``citing.cited_lines``),
thinking is kept apart, and each tool call becomes a step as its block ends.
The calls are executed by the app (``ContentTools``: confined, read-only) and
their passages sent back as ``search_result`` blocks, until the model answers
without a call. The answer is recorded with a marker after each cited block
and the API's citations as a CITATIONS block (``answer.compose``), the result
line naming their ids so the app stores them as extracted by the API.

Pure Python: no Django imports.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import anthropic

from core.engines.openai.completion import tls_context
from core.engines.openai.prompt import asked
from core.engines.openai.tools import ContentTools, fitted, shown_call, step_result
from core.engines.racing import Stopped, race
from core.sandbox import read_manifest

from .answer import TextBlock, compose
from .citing import ApiCitation, SentResult, cited_lines
from .errors import failure_of, retry_delay, stream_failure
from .request import system_blocks, thread_messages, tool_definitions, tool_result
from .turns import AnthropicSettings, Turn, sent_back
from .writer import AnthropicStreamWriter

MAX_SHOWN_CHARS = 1_000_000  # what one result may show; the tools bound it far lower


class Research:
    """One run: ``lines()`` yields its stream-json lines; ``killed_by`` says
    why it stopped early (``cancel``, ``timeout``) once they end."""

    def __init__(
        self,
        settings: AnthropicSettings,
        prompt: str,
        sandbox: Path,
        *,
        state: Path | None,
        cancel: asyncio.Event,
    ) -> None:
        self.settings = settings
        self.cancel = cancel
        self.started = time.monotonic()
        self.deadline = self.started + settings.timeout
        self.asked = asked(prompt)
        self.sandbox = sandbox
        self.state = state
        self.killed_by: str | None = None
        self.tools = ContentTools(sandbox, self.asked.folders, state)
        self.manifest = read_manifest(sandbox)
        self.sent: list[SentResult] = []  # every search_result sent, in request order
        self.writer = AnthropicStreamWriter(
            str(uuid.uuid4()), model=settings.model, tools=["Grep", "Read", "LS"]
        )
        self.partial = ""  # the text of the turn being streamed (kept if it is cut short)
        self.client = anthropic.AsyncAnthropic(
            base_url=settings.base_url,
            api_key=settings.api_key,
            max_retries=0,  # retried here, each retry shown as a step
            timeout=settings.timeout,
            http_client=anthropic.DefaultAsyncHttpxClient(verify=tls_context()),
        )

    async def lines(self) -> AsyncIterator[str]:
        writer = self.writer
        yield writer.init(str(self.sandbox))
        try:
            yield writer.notice(
                f"{self.settings.model} searches and reads the content itself; the Anthropic API extracts "
                "its citations from the passages it read"
            )
            async for line in self._loop():
                yield line
        except Stopped as stop:
            self.killed_by = stop.killed_by
            if self.partial:  # the text of a turn cut short is kept as the partial answer
                for line in [*self._close_text(True), *writer.end_message("end_turn")]:
                    yield line
            yield writer.result(
                duration_ms=self._elapsed_ms(), text=None, errors=[stop.sentence], subtype=stop.subtype
            )
        finally:
            await self.client.close()

    async def _loop(self) -> AsyncIterator[str]:
        writer = self.writer
        messages = thread_messages(self.asked)
        system, tools = system_blocks(self.manifest), tool_definitions()
        while True:
            if writer.turns >= self.settings.max_turns:
                raise Stopped(
                    f"Stopped after {writer.turns} model turn{'s' * (writer.turns != 1)} "
                    f"(ANTHROPIC_MAX_TURNS={self.settings.max_turns}) before the model wrote its answer.",
                    "error_max_turns",
                )
            turn = Turn()
            request = {"system": system, "tools": tools, "messages": messages}
            async for line in self._stream(request, turn):
                yield line
            messages.append({"role": "assistant", "content": turn.content})
            if not turn.calls:
                answer = compose(turn.texts, content_ids=list(self.manifest))
                writer.api_ids = answer.api_ids
                if answer.api_ids:
                    yield writer.notice(
                        f"The API extracted {len(answer.api_ids)} citation{'s' * (len(answer.api_ids) != 1)} "
                        "from the passages the model read."
                    )
                yield writer.result(duration_ms=self._elapsed_ms(), text=answer.text)
                return
            results = []
            for step_id, call in turn.calls:
                raw = json.dumps(call.get("input") or {})
                done = await self._race(asyncio.to_thread(self.tools.run, call["name"], raw))
                fitted(done, MAX_SHOWN_CHARS)  # only the lines shown are sent (and citable)
                results.append(tool_result(call["id"], done, self.manifest, self.sent))
                yield writer.tool_result(step_id, done.result, step_result(done), is_error=done.is_error)
            messages.append({"role": "user", "content": results})

    async def _stream(self, request: dict, turn: Turn) -> AsyncIterator[str]:
        """Stream one request into ``turn``, yielding its lines as they come."""
        writer, settings = self.writer, self.settings
        left = settings.max_tokens - writer.completion_tokens
        if left <= 0:
            raise Stopped(self._tokens_sentence())
        request = {
            **request,
            "model": settings.model,
            "max_tokens": min(settings.reply_tokens, left),
            "stream": True,
        }
        if settings.thinking_tokens:
            request["thinking"] = {"type": "enabled", "budget_tokens": settings.thinking_tokens}
            request["max_tokens"] += settings.thinking_tokens
        stream, attempt = None, 0
        while stream is None:
            try:
                stream = await self._race(self.client.messages.create(**request))
            except anthropic.APIError as error:
                failure = failure_of(
                    error, base_url=settings.base_url, model=settings.model, api_key=settings.api_key
                )
                if not failure.retry or attempt == settings.max_retries:
                    raise Stopped(failure.sentence) from None
                attempt += 1
                delay = retry_delay(attempt, settings.retry_delay, failure)
                yield writer.retry(
                    attempt=attempt,
                    max_retries=settings.max_retries,
                    delay_s=delay,
                    status=failure.status,
                    error=failure.kind,
                )
                await self._race(asyncio.sleep(delay))
        for line in writer.start_message():
            yield line
        self.partial = ""
        blocks: dict[int, dict] = {}
        text_open = False
        try:
            events = aiter(stream)
            while True:
                try:
                    event = await self._race(anext(events))
                except StopAsyncIteration:
                    break
                kind = event.type
                if kind == "message_start":
                    usage = event.message.usage
                    writer.input_tokens += (usage.input_tokens or 0) + (usage.cache_read_input_tokens or 0)
                elif kind == "content_block_start":
                    block = event.content_block.model_dump(exclude_none=True)
                    blocks[event.index] = block
                    if block["type"] == "text":
                        block["text"], block["citations"] = "", []
                        turn.texts.append(TextBlock("", []))
                        if not text_open:
                            text_open = True
                            for line in writer.start_text():
                                yield line
                    elif block["type"] == "thinking":
                        block["thinking"], block["signature"] = "", ""
                        for line in self._close_text(text_open):
                            yield line
                        text_open = False
                        for line in writer.start_thinking():
                            yield line
                    elif block["type"] == "tool_use":
                        block["json"] = ""
                elif kind == "content_block_delta":
                    for line in self._delta(blocks.get(event.index), event.delta, turn):
                        yield line
                elif kind == "content_block_stop":
                    block = blocks.get(event.index) or {}
                    if block.get("type") == "thinking":
                        for line in writer.end_thinking(block["thinking"], block["signature"]):
                            yield line
                    elif block.get("type") == "tool_use":
                        for line in self._close_text(text_open):
                            yield line
                        text_open = False
                        block["input"] = _arguments(block.pop("json"))
                        step_id, lines = writer.tool_use(
                            *shown_call(block["name"], json.dumps(block["input"]))
                        )
                        turn.calls.append((step_id, block))
                        for line in lines:
                            yield line
                elif kind == "message_delta":
                    turn.stop_reason = event.delta.stop_reason
                    writer.completion_tokens += event.usage.output_tokens or 0
        except anthropic.APIStatusError as error:
            body = error.body if isinstance(error.body, dict) else {}
            inner = body.get("error") if isinstance(body.get("error"), dict) else {"type": "api_error"}
            raise Stopped(
                stream_failure(inner, base_url=settings.base_url, api_key=settings.api_key).sentence
            ) from None
        except anthropic.APIError as error:
            failure = failure_of(
                error, base_url=settings.base_url, model=settings.model, api_key=settings.api_key
            )
            raise Stopped(failure.sentence) from None
        finally:
            await stream.close()  # cancel: the HTTP stream goes at once
        for line in self._close_text(text_open):
            yield line
        turn.content = [sent_back(blocks[i]) for i in sorted(blocks)]
        if not turn.calls:
            for line in writer.end_message(turn.stop_reason or "end_turn"):
                yield line
        else:
            for line in writer.end_message("tool_use"):
                yield line
        if turn.stop_reason == "max_tokens" or (
            turn.calls and writer.completion_tokens >= settings.max_tokens
        ):
            raise Stopped(self._tokens_sentence())

    def _delta(self, block: dict | None, delta, turn: Turn):
        if block is None:
            return
        kind = delta.type
        if kind == "text_delta" and block["type"] == "text":
            block["text"] += delta.text
            turn.texts[-1].text += delta.text
            self.partial += delta.text
            yield from self.writer.text_delta(delta.text)
        elif kind == "citations_delta" and block["type"] == "text":
            location = delta.citation.model_dump(exclude_none=True)
            block["citations"].append(location)
            cited: ApiCitation | None = None
            if location.get("type") == "search_result_location":
                cited = cited_lines(location, self.sent)
            if cited is not None:
                turn.texts[-1].citations.append(cited)
            yield from self.writer.citation(location, cited)
            if cited is None or not cited.matched:
                yield self.writer.notice(
                    f"The API cited text the app cannot place at lines it sent: {location.get('source', '?')}, "
                    f"blocks {location.get('start_block_index')}–{location.get('end_block_index')}."
                )
        elif kind == "input_json_delta" and block["type"] == "tool_use":
            block["json"] += delta.partial_json
        elif kind == "thinking_delta" and block["type"] == "thinking":
            block["thinking"] += delta.thinking
            yield from self.writer.thinking_delta(delta.thinking)
        elif kind == "signature_delta" and block["type"] == "thinking":
            block["signature"] += delta.signature

    def _close_text(self, text_open: bool):
        """The text streamed since the last other block, as one finished block."""
        if text_open:
            text, self.partial = self.partial, ""
            yield from self.writer.end_text(text)

    async def _race(self, awaitable):
        return await race(
            awaitable,
            cancel=self.cancel,
            deadline=self.deadline,
            timeout_sentence=f"The model ran past the time limit of {self.settings.timeout:g} s (ANTHROPIC_TIMEOUT).",
        )

    def _tokens_sentence(self) -> str:
        return (
            f"The model used its token budget ({self.writer.completion_tokens} of {self.settings.max_tokens}, "
            "ANTHROPIC_MAX_TOKENS) before it finished its answer."
        )

    def _elapsed_ms(self) -> int:
        return int((time.monotonic() - self.started) * 1000)


def _arguments(raw: str) -> dict:
    """A tool call's input; JSON cut short (a reply stopped at its cap) or not an
    object is no input, which the tool refuses as a result the model reads."""
    try:
        value = json.loads(raw or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
