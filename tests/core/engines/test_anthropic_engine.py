"""The Anthropic engine against the Messages API double on 127.0.0.1: the
research loop, the passages sent as search results of one line per block,
the API's citations at exact lines and verified, follow-ups, credentials,
retries and cancel. What comes back is read by the same stream-json
interpreter and citation checks as every engine's output, and the requests
the engine sent are checked too."""

from __future__ import annotations

import json

from core.engines.openai.tools import LIST_FILES, READ_LINES, SEARCH_TEXT
from core.sandbox import instructions_text, read_manifest
from core.threads import Turn, conversation_prompt
from testing.messages_double import CitingResearcher, search_results
from testing.mock_anthropic import Fail, MockAnthropic, Reply, Text, Thinking, ToolUse
from tests.core.engines.conftest import CONTENT_ID, NOTES, SECRET
from tests.core.engines.helpers.anthropic_run import KEY, run
from tests.core.engines.helpers.openai_run import verified_at

ANSWER_LINE = "Access tokens expire after 15 minutes."


def texts_written(done) -> str:
    """What the model itself wrote: the assistant text blocks."""
    return "".join(
        b["text"] for a in done.of_type("assistant") for b in a["message"]["content"] if b["type"] == "text"
    )


def test_a_question_is_cited_by_the_api_at_the_lines_of_the_blocks_and_verifies(sessions):
    model = CitingResearcher()
    with MockAnthropic(default=model) as mock:
        done = run(sessions, mock)
    line = sessions.notes_line
    assert done.result["subtype"] == "success" and done.result["num_turns"] == 3
    assert done.interpreter.answer_text == f"According to the notes, {ANSWER_LINE} [c1]"
    assert verified_at(sessions, done.interpreter.answer_raw) == [("verified", line, line)]
    assert done.result["api_citations"] == ["c1"]
    assert "CITATIONS" not in texts_written(done)  # the model wrote none: the app did, from the API's
    # The citation as the API sent it, and the lines the app mapped it to, as it arrived.
    deltas = [
        e["event"]["delta"]
        for e in done.of_type("stream_event")
        if e["event"].get("delta", {}).get("type") == "citations_delta"
    ]
    (delta,) = deltas
    assert delta["citation"]["cited_text"] == ANSWER_LINE
    assert delta["lines"] == {"path": f"{CONTENT_ID}/notes.md", "line_start": line, "line_end": line}
    uses = [b for a in done.of_type("assistant") for b in a["message"]["content"] if b["type"] == "tool_use"]
    assert [u["name"] for u in uses] == ["Grep", "Read"]


def test_the_requests_carry_one_line_per_block_read_only_tools_and_cached_instructions(sessions):
    with MockAnthropic(default=CitingResearcher()) as mock:
        run(sessions, mock)
    bodies = [r.body for r in mock.messages_requests()]
    instructions = instructions_text(read_manifest(sessions.sandbox))
    for body in bodies:
        (system,) = body["system"]
        assert system["text"].endswith(instructions) and system["cache_control"] == {"type": "ephemeral"}
        assert [t["name"] for t in body["tools"]] == [LIST_FILES, SEARCH_TEXT, READ_LINES]
        assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
        assert body["stream"] is True and body["model"] == "claude-mock"
    keys = [
        {k.lower(): v for k, v in r.headers.items()}.get("authorization") for r in mock.messages_requests()
    ]
    assert keys == [f"Bearer {KEY}"] * 3  # how the library sends ANTHROPIC_API_KEY
    last = bodies[-1]
    assert [m["role"] for m in last["messages"]] == ["user", "assistant", "user", "assistant", "user"]
    sent = search_results(last)
    read = sent[-1]  # the whole file, as the read returned it
    assert read.source == f"{CONTENT_ID}/notes.md" and read.title == "Auth notes — notes.md" and read.citable
    assert list(read.texts) == [line for line in NOTES.splitlines() if line.strip()]
    for result in sent:
        assert all(text.strip() and "\n" not in text for text in result.texts)
    assert SECRET not in json.dumps(bodies)


def test_an_inclusive_end_index_is_read_as_the_api_examples_show_it(sessions):
    with MockAnthropic(default=CitingResearcher(inclusive_end=True)) as mock:
        done = run(sessions, mock)
    line = sessions.notes_line
    assert verified_at(sessions, done.interpreter.answer_raw) == [("verified", line, line)]


def test_a_citation_of_two_blocks_covers_both_lines(sessions):
    with MockAnthropic(default=CitingResearcher(span=2)) as mock:
        done = run(sessions, mock)
    line = sessions.notes_line
    assert verified_at(sessions, done.interpreter.answer_raw) == [("verified", line, line + 1)]


def test_a_citations_block_the_model_writes_anyway_is_deduplicated(sessions):
    own = [
        {
            "id": "c1",
            "source_file": f"{CONTENT_ID}/notes.md",
            "location": {"line_start": 3, "line_end": 3},
            "excerpt": ANSWER_LINE,
        }
    ]
    block = f" [c1]\n\n<!-- CITATIONS: {json.dumps(own)} -->"
    with MockAnthropic(default=CitingResearcher(own_block=block)) as mock:
        done = run(sessions, mock)
    assert "CITATIONS" in texts_written(done)
    assert done.result["api_citations"] == ["c2"]
    assert verified_at(sessions, done.interpreter.answer_raw) == [("verified", 3, 3)]
    assert done.interpreter.answer_text == f"According to the notes, {ANSWER_LINE} [c2]"


def test_a_follow_up_sends_the_thread(sessions):
    prompt = conversation_prompt(
        [Turn("When do access tokens expire?", "Access tokens expire after 15 minutes. [c1]")],
        "And refresh tokens?",
    )
    with MockAnthropic(default=CitingResearcher()) as mock:
        done = run(sessions, mock, prompt)
    first = mock.messages_requests()[0].body["messages"]
    assert [m["role"] for m in first] == ["user", "assistant", "user"]
    assert first[0]["content"] == "When do access tokens expire?"
    assert first[1]["content"].startswith("Access tokens expire after 15 minutes.")
    assert first[2]["content"].endswith("And refresh tokens?")
    assert verified_at(sessions, done.interpreter.answer_raw) == [("verified", 4, 4)]


def test_a_refused_key_fails_at_once_with_the_credentials_advice(sessions):
    with MockAnthropic([Fail(401, "invalid x-api-key")]) as mock:
        done = run(sessions, mock)
    assert len(mock.messages_requests()) == 1  # never retried
    assert done.result["is_error"] is True
    assert done.result["errors"] == [
        f"The Anthropic API at {mock.url} refused the API key (HTTP 401): set ANTHROPIC_API_KEY in the "
        "server's environment to a key this API accepts, then restart the app."
    ]
    assert KEY not in "\n".join(done.lines)


def test_rate_limits_and_overload_are_retried_as_steps_then_answered(sessions):
    with MockAnthropic([Fail(429), Fail(529)], default=CitingResearcher()) as mock:
        done = run(sessions, mock)
    retries = done.of_type("system", "api_retry")
    assert [(r["attempt"], r["error_status"]) for r in retries] == [(1, 429), (2, 529)]
    assert done.result["subtype"] == "success"


def test_retries_are_bounded(sessions):
    with MockAnthropic(default=Fail(529)) as mock:
        done = run(sessions, mock, max_retries=2)
    assert len(mock.messages_requests()) == 3
    assert done.result["is_error"] and "HTTP 529" in done.result["errors"][0]


def test_cancel_closes_the_stream_and_keeps_the_partial_answer(sessions):
    slow = Reply(
        [Text("Access tokens expire after fifteen minutes, and " * 20)], chunk_chars=8, chunk_delay=0.05
    )
    with MockAnthropic([slow]) as mock:
        done = run(sessions, mock, cancel_when=lambda line: '"text_delta"' in line)
        assert mock.disconnected.wait(10)
    assert done.outcome.killed_by == "cancel"
    assert done.result["errors"] == ["Cancelled."]
    assert done.interpreter.answer_text.startswith("Access")


def test_an_answer_from_results_sent_without_citations_has_none(sessions):
    """The double cites only what it was sent with citations enabled: a refusal's text is not."""
    with MockAnthropic(default=CitingResearcher()) as mock:
        done = run(sessions, mock, "Where is the zebra xylophone?")
    assert "api_citations" not in done.result
    assert not verified_at(sessions, done.interpreter.answer_raw)


def test_thinking_is_kept_apart_from_the_answer_and_sent_back_signed(sessions):
    thought = "The notes have a token section; search it."
    turns = [
        Reply([Thinking(thought, "sig-1"), ToolUse(SEARCH_TEXT, {"query": "access tokens expire"})]),
        Reply([Text("Access tokens expire after 15 minutes.")]),
    ]
    with MockAnthropic(turns) as mock:
        done = run(sessions, mock, thinking_tokens=1024)
    assert done.interpreter.thinking_text == thought
    assert thought not in done.interpreter.answer_text
    first, second = (r.body for r in mock.messages_requests())
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 1024}
    assert first["max_tokens"] > 1024
    assert second["messages"][1]["content"][0] == {
        "type": "thinking",
        "thinking": thought,
        "signature": "sig-1",
    }
