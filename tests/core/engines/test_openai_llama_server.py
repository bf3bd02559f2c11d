"""The OpenAI-compatible engine against a real server: llama-cpp-python's,
serving Gemma 3 270M (``testing/llama_server.py``) on 127.0.0.1. The wire
format read by the openai library, retrieval mode end to end (the model takes
no tools), and the citations the app attaches to what a model that ignores
the citation format wrote, verified at the exact lines."""

from __future__ import annotations

import asyncio
import json
import re

import openai
import pytest

from core.citations.parsing import parse_citations
from core.citations.verification import verify_citations
from core.engines.builtin.search import Hit
from core.engines.openai.attach import attach_citations
from core.engines.openai.context import context_length
from testing import llama_server
from tests.core.engines.conftest import CONTENT_ID, NOTES
from tests.core.engines.helpers.openai_run import run

pytestmark = pytest.mark.slow  # loads a model and generates on two shared cores

WHY_NOT = llama_server.missing()


@pytest.fixture(scope="module")
def server():
    if WHY_NOT:
        pytest.skip(f"no real model server: {WHY_NOT}")
    with llama_server.LlamaServer() as running:
        yield running


class Mock:
    """What ``run`` needs of a server: its URL."""

    def __init__(self, url: str) -> None:
        self.url = url


def test_the_wire_format_is_openais(server):
    client = openai.OpenAI(base_url=server.url, api_key="no-key")
    assert llama_server.MODEL_ALIAS in [m.id for m in client.models.list()]
    stream = client.chat.completions.create(
        model=llama_server.MODEL_ALIAS,
        messages=[{"role": "user", "content": "Say hello."}],
        stream=True,
        max_tokens=16,
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text.strip()
    assert len(chunks) > 2  # streamed in pieces, not one body
    reasons = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    assert reasons in (["stop"], ["length"])


def test_the_server_says_no_context_so_the_configured_one_is_needed(server):
    """llama-cpp-python's /v1/models carries no context length (llama.cpp's own
    server does): unconfigured, the engine assumes and says so."""

    async def ask():
        async with openai.DefaultAsyncHttpxClient() as http:
            return await context_length(http, server.url, llama_server.MODEL_ALIAS, configured=0)

    known = asyncio.run(ask())
    assert known.source.startswith("assumed") and "OPENAI_CONTEXT_LENGTH" in known.source


def test_retrieval_mode_end_to_end_with_the_apps_citations_verified_at_the_exact_lines(sessions, server):
    done = run(
        sessions,
        Mock(server.url),
        "When do access tokens expire?",
        model=llama_server.MODEL_ALIAS,
        tool_mode="off",
        context_length=server.context,
        reply_tokens=48,
        timeout=300.0,
    )
    assert done.result["subtype"] == "success", done.result.get("errors")
    assert done.of_type("system", "init")[0]["research_mode"] == "retrieval"
    notices = [n["content"] for n in done.of_type("system", "informational")]
    assert notices[0] == f"Context: {server.context} tokens (OPENAI_CONTEXT_LENGTH)."
    sent = [u for u in done.of_type("user") if "Sent 1 passage" in json.dumps(u)]
    assert sent  # the app retrieved the notes and sent them
    raw = done.interpreter.answer_raw
    assert done.interpreter.answer_text.strip()
    parsed = parse_citations(raw, content_ids=[CONTENT_ID]).citations
    checked = verify_citations(sessions.sandbox, parsed, content_ids=[CONTENT_ID])
    attached = done.result.get("attached_citations") or []
    # Whatever the model wrote: each citation the app attached verifies at its lines,
    # and the app said which it did.
    for citation, result in zip(parsed, checked, strict=True):
        if citation.cid in attached:
            assert result.status == "verified" and result.line_start == citation.line_start
    assert any(n.startswith("No citation of the model's verifies") for n in notices) == (
        not any(r.status == "verified" for c, r in zip(parsed, checked, strict=True) if c.cid not in attached)
    )


def test_what_the_real_model_wrote_gets_citations_only_where_the_notes_state_it(sessions, server):
    """The model is given the notes and asked to repeat a fact; its own words, not
    a format it was told, are matched to the lines: a stated sentence is cited at
    the line that states it, anything else it wrote is left uncited."""
    client = openai.OpenAI(base_url=server.url, api_key="no-key")
    reply = client.chat.completions.create(
        model=llama_server.MODEL_ALIAS,
        messages=[
            {
                "role": "user",
                "content": f"{NOTES}\nRepeat the sentence above about access tokens, word for word.",
            }
        ],
        max_tokens=32,
        temperature=0,
    )
    written = reply.choices[0].message.content or ""
    attached = attach_citations(written, [llama_server_passage()])
    parsed = parse_citations(attached.text, content_ids=[CONTENT_ID]).citations
    checked = verify_citations(sessions.sandbox, parsed, content_ids=[CONTENT_ID])
    notes = NOTES.split("\n")
    for citation, result in zip(parsed, checked, strict=True):
        assert (result.status, result.line_start, result.line_end) == (
            "verified",
            citation.line_start,
            citation.line_end,
        )
        assert citation.excerpt == notes[citation.line_start - 1].strip()
    cited = {c.cid: c.line_start for c in parsed}
    prose = attached.text.split("<!--", 1)[0]
    for line in prose.split("\n"):
        marker = re.search(r" \[(c\d+)\]$", line)
        said = line[: marker.start()] if marker else line
        if said.strip() and said.strip("# ") not in [n.strip("# ") for n in notes]:
            assert marker is None, line  # what the notes do not state is left uncited
        if said == "Access tokens expire after 15 minutes.":
            assert marker and cited[marker.group(1)] == sessions.notes_line
    # At temperature 0 this model repeats the notes (and runs on into the prompt's words):
    # the sentence asked for is among what it wrote, so something was cited.
    assert "Access tokens expire after 15 minutes." in written and attached.ids, written


def llama_server_passage() -> Hit:
    lines = NOTES.split("\n")
    return Hit(f"{CONTENT_ID}/notes.md", 1, len(lines), None, NOTES, 1.0, len(lines))
