"""One streamed Chat Completion: the request, its retries, its chunks as
stream-json lines, and the run's limits that a request can hit (tokens, the
context, seconds, cancel).

Pure Python: no Django imports.
"""

from __future__ import annotations

import asyncio
import functools
import ssl
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import openai

from core.engines.racing import Stopped, race

from .errors import Failure, failure_of, retry_delay
from .retrieval import messages_tokens, tokens_of
from .tools import TOOLS
from .writer import ModelStreamWriter


@dataclass(frozen=True, slots=True)
class ModelSettings:
    """One OpenAI-compatible provider and model, with the run's limits."""

    base_url: str
    model: str
    api_key: str = ""
    context_length: int = 0  # tokens the model reads and writes in one request; 0: ask its server
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
    capped: int = 0  # the reply stopped at this per-reply cap (tokens), not at the run's budget


class Streaming:
    """What every request of a run shares: the client, the writer, the limits.
    ``partial`` is the text of the turn being streamed (kept if it is cut short)."""

    def __init__(self, settings: ModelSettings, cancel: asyncio.Event) -> None:
        self.settings = settings
        self.cancel = cancel
        self.started = time.monotonic()
        self.deadline = self.started + settings.timeout
        self.client = openai.AsyncOpenAI(
            base_url=settings.base_url,
            api_key=settings.api_key or "no-key",  # local servers take any
            max_retries=0,  # retried here, each retry shown as a step
            timeout=settings.timeout,
            http_client=openai.DefaultAsyncHttpxClient(verify=tls_context()),
        )
        self.writer: ModelStreamWriter | None = None
        self.partial = ""
        self.cap_name = "max_tokens"  # what the server calls a reply's token cap
        self.context_source = "OPENAI_CONTEXT_LENGTH"  # where the context length came from

    async def _complete(self, messages: list[dict], reply: Reply, *, tools: bool) -> AsyncIterator[str]:
        """Stream one Chat Completion into ``reply``, yielding its lines as they come."""
        writer = self.writer
        settings = self.settings
        left = settings.max_tokens - writer.completion_tokens
        if left <= 0:
            raise Stopped(self._tokens_sentence())
        size = messages_tokens(messages)
        if size + min(settings.reply_tokens, left) > settings.context_length:
            raise Stopped(
                f"The conversation outgrew the model's context (about {size} tokens of "
                f"{settings.context_length}, {self.context_source}) before the model answered."
            )
        request = {
            "model": settings.model,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
            self.cap_name: min(settings.reply_tokens, left),
        }
        if tools:
            request["tools"] = TOOLS
        stream, attempt = None, 0
        while stream is None:
            try:
                stream = await self._race(self.client.chat.completions.create(**request))
            except openai.APIError as error:
                failure = failure_of(
                    error, base_url=settings.base_url, model=settings.model, api_key=settings.api_key
                )
                if failure.no_tools and tools and settings.tool_mode == "auto" and writer.turns == 0:
                    raise NoTools(failure) from None
                if failure.completion_tokens and self.cap_name == "max_tokens":
                    # OpenAI's reasoning models take only the newer name; asked
                    # again at once, and by that name for the rest of the run.
                    self.cap_name = "max_completion_tokens"
                    request[self.cap_name] = request.pop("max_tokens")
                    continue
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
        text_open, reported = False, False
        try:
            chunks = aiter(stream)
            while True:
                try:
                    chunk = await self._race(anext(chunks))
                except StopAsyncIteration:
                    break
                if chunk.usage is not None:
                    reported = True
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
        if not reported:  # a server that sends no usage still spends the token budget
            written = reply.text + "".join(call["arguments"] for call in reply.calls.values())
            writer.input_tokens += messages_tokens(messages)
            writer.completion_tokens += tokens_of(written)
        for number, index in enumerate(sorted(reply.calls), start=1):
            reply.calls[index]["id"] = reply.calls[index]["id"] or f"call_{writer.turns}_{number}"
        if text_open:
            for line in writer.end_text(reply.text):
                yield line
        if not reply.calls:
            for line in writer.end_message("end_turn" if reply.finish_reason != "length" else "max_tokens"):
                yield line
        cap = min(settings.reply_tokens, left)
        if reply.finish_reason == "length" and not reply.calls and cap < left and reply.text.strip():
            # The reply reached the per-request cap, not the run's budget: what it wrote is the
            # answer (small local models write on until a cap), said to be cut where it was.
            reply.capped = cap
        elif reply.finish_reason == "length" or (
            reply.calls and writer.completion_tokens >= settings.max_tokens
        ):
            raise Stopped(self._tokens_sentence())

    async def _race(self, awaitable):
        """``awaitable``'s result, unless cancel or the run's time limit comes first."""
        return await race(
            awaitable,
            cancel=self.cancel,
            deadline=self.deadline,
            timeout_sentence=f"The model ran past the time limit of {self.settings.timeout:g} s (OPENAI_TIMEOUT).",
        )

    def _tokens_sentence(self) -> str:
        return (
            f"The model used its token budget ({self.writer.completion_tokens} of {self.settings.max_tokens}, "
            "OPENAI_MAX_TOKENS) before it finished its answer."
        )
