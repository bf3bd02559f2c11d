"""The OpenAI-compatible engine against a real HTTP server double on
127.0.0.1: the research loop with tools, retrieval mode, follow-ups, limits,
cancel, credentials and retries. What comes back is read by the same
stream-json interpreter and citation checks as every engine's output, and
the requests the engine sent are checked too."""

from __future__ import annotations

import json

import pytest

from core.engines.openai.tools import LIST_FILES, READ_LINES, SEARCH_TEXT
from core.engines.scope import with_scope
from core.sandbox import instructions_text, read_manifest
from core.threads import Turn, conversation_prompt
from testing.chat_model_double import ChatResearcher
from testing.mock_openai import Call, Fail, MockOpenAI, Reply, Stall
from tests.core.engines.conftest import CONTENT_ID, SECRET
from tests.core.engines.helpers.openai_run import run, verified_at


def test_a_question_is_researched_with_tools_and_cited_at_the_exact_line(sessions):
    model = ChatResearcher()
    with MockOpenAI(default=model) as mock:
        done = run(sessions, mock)
    line = sessions.notes_line
    assert done.result["subtype"] == "success" and done.result["num_turns"] == 3
    assert done.interpreter.answer_text == "Access tokens expire after 15 minutes. [c1]"
    assert verified_at(sessions, done.interpreter.answer_raw) == [("verified", line, line)]
    assert model.decisions[-1] == f"answer after read_lines: cite {CONTENT_ID}/notes.md:{line}"
    # Each call and result is in the stream, as Claude Code's own tools would be.
    uses = [b for a in done.of_type("assistant") for b in a["message"]["content"] if b["type"] == "tool_use"]
    assert [u["name"] for u in uses] == ["Grep", "Read"]
    assert len(done.of_type("user")) == 2 and done.of_type("stream_event")
    assert done.result["usage"]["input_tokens"] > 0 and done.result["usage"]["output_tokens"] > 0
    # What the engine sent: the Claude engines' instructions, only the read-only tools, the results.
    requests = [r.body for r in mock.chat_requests()]
    instructions = instructions_text(read_manifest(sessions.sandbox))
    for body in requests:
        system = body["messages"][0]
        assert system["role"] == "system" and system["content"].endswith(instructions)
        assert [t["function"]["name"] for t in body["tools"]] == [LIST_FILES, SEARCH_TEXT, READ_LINES]
        assert body["stream"] is True and body["model"] == "mock-model"
    last = requests[-1]["messages"]
    assert [m["role"] for m in last] == ["system", "user", "assistant", "tool", "assistant", "tool"]
    assert "     3→Access tokens expire after 15 minutes." in last[-1]["content"]


def test_retrieval_mode_sends_passages_with_lines_and_offers_no_tools(sessions):
    model = ChatResearcher()
    with MockOpenAI(default=model) as mock:
        done = run(sessions, mock, tool_mode="off")
    line = sessions.notes_line
    (body,) = [r.body for r in mock.chat_requests()]
    assert "tools" not in body
    assert "without tools" in body["messages"][0]["content"]
    assert f"{CONTENT_ID}/notes.md (lines " in body["messages"][-1]["content"]
    assert done.of_type("system", "init")[0]["research_mode"] == "retrieval"
    assert verified_at(sessions, done.interpreter.answer_raw) == [("verified", line, line)]


def test_a_server_that_refuses_tools_is_answered_in_retrieval_mode(sessions):
    refusal = Fail(400, "registry.ollama.ai/library/gemma3 does not support tools")
    with MockOpenAI([refusal], default=ChatResearcher()) as mock:
        done = run(sessions, mock)
    notices = [n["content"] for n in done.of_type("system", "informational")]
    assert any("answering in retrieval mode" in n for n in notices)
    assert "tools" in mock.chat_requests()[0].body and "tools" not in mock.chat_requests()[1].body
    assert done.result["subtype"] == "success" and "[c1]" in done.interpreter.answer_text


def test_passages_beyond_the_context_are_left_out_and_said(sessions):
    folder = sessions.sandbox / CONTENT_ID
    for n in range(6):
        (folder / f"more{n}.md").write_text(
            f"# Part {n}\n\n" + "Access tokens are described here. " * 60, encoding="utf-8"
        )
    with MockOpenAI(default=ChatResearcher()) as mock:
        done = run(sessions, mock, tool_mode="off", context_length=3000, reply_tokens=256)
    notices = [n["content"] for n in done.of_type("system", "informational")]
    assert any(
        "left out to fit the model's context (3000 tokens, OPENAI_CONTEXT_LENGTH)" in n for n in notices
    )
    sent = json.dumps(mock.chat_requests()[0].body["messages"])
    assert len(sent) // 4 < 3000


def test_a_follow_up_carries_the_thread_as_messages(sessions):
    earlier = [Turn("How long do refresh tokens live?", "For 30 days [c1].", (f"{CONTENT_ID}/notes.md",))]
    prompt = with_scope(conversation_prompt(earlier, "And access tokens?"), [(CONTENT_ID, "Auth notes")])
    with MockOpenAI(default=ChatResearcher()) as mock:
        run(sessions, mock, prompt)
    messages = mock.chat_requests()[0].body["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[1]["content"] == "How long do refresh tokens live?"
    assert messages[2]["content"] == f"For 30 days [c1].\n\nCited: {CONTENT_ID}/notes.md"
    assert "And access tokens?" in messages[3]["content"] and f"{CONTENT_ID}/" in messages[3]["content"]


def test_the_turn_limit_ends_the_run_naming_its_setting(sessions):
    with MockOpenAI(default=ChatResearcher()) as mock:
        done = run(sessions, mock, max_turns=1)
    assert done.result["subtype"] == "error_max_turns" and done.result["is_error"]
    assert done.result["errors"] == [
        "Stopped after 1 model turn (OPENAI_MAX_TURNS=1) before the model wrote its answer."
    ]


def test_the_token_limit_ends_the_run_naming_its_setting(sessions):
    with MockOpenAI([Reply("Access tokens " * 40, finish_reason="length")]) as mock:
        done = run(sessions, mock, max_tokens=30)
    assert mock.chat_requests()[0].body["max_tokens"] == 30
    assert "OPENAI_MAX_TOKENS" in done.result["errors"][0]
    assert done.interpreter.answer_text.startswith("Access tokens")  # the text so far is kept


def test_the_time_limit_ends_the_run_naming_its_setting(sessions):
    with MockOpenAI([Stall("Access tokens", seconds=30)]) as mock:
        done = run(sessions, mock, timeout=3)
        assert mock.disconnected.wait(10)
    assert done.result["errors"] == ["The model ran past the time limit of 3 s (OPENAI_TIMEOUT)."]
    assert done.outcome.killed_by == "timeout"
    assert done.interpreter.answer_text == "Access tokens"


def test_cancel_closes_the_stream_and_keeps_the_partial_answer(sessions):
    with MockOpenAI([Stall("Access tokens expire", seconds=30)]) as mock:
        done = run(sessions, mock, cancel_when=lambda line: "Access tokens expire" in line)
        assert mock.disconnected.wait(10)  # the HTTP stream was closed, not left to run
    assert done.outcome.killed_by == "cancel"
    assert done.result["errors"] == ["Cancelled."]
    assert done.interpreter.answer_text == "Access tokens expire"


def test_a_wrong_key_ends_the_run_at_once_with_what_to_set(sessions):
    with MockOpenAI(api_key="sk-right-key-000000") as mock:
        done = run(sessions, mock, api_key="sk-wrong-key-123456789")
    assert len(mock.chat_requests()) == 1  # no retry: a refused key stays refused
    (error,) = done.result["errors"]
    assert error == (
        f"The model server at {mock.url} refused the API key (HTTP 401): set OPENAI_API_KEY in the "
        "server's environment to a key this server accepts, then restart the app."
    )
    for line in done.lines:
        assert "sk-wrong-key-123456789" not in line and "6789" not in line


@pytest.mark.parametrize("status", [429, 503])
def test_overload_is_retried_with_backoff_each_retry_a_step(sessions, status):
    with MockOpenAI([Fail(status), Fail(status)], default=ChatResearcher()) as mock:
        done = run(sessions, mock, retry_delay=0.01)
    retries = done.of_type("system", "api_retry")
    assert [(r["attempt"], r["retry_delay_ms"], r["error_status"]) for r in retries] == [
        (1, 10, status),
        (2, 20, status),
    ]
    assert done.result["subtype"] == "success"


def test_retries_are_bounded(sessions):
    with MockOpenAI(default=Fail(500, "boom")) as mock:
        done = run(sessions, mock, retry_delay=0.01, max_retries=2)
    assert len(mock.chat_requests()) == 3
    assert done.result["errors"] == [f"The model server at {mock.url} failed (HTTP 500): boom"]


def test_a_tool_call_out_of_the_content_is_refused_in_the_stream(sessions):
    attacks = [
        Reply(calls=[Call(READ_LINES, {"path": "../../state/session-a/secret.txt"})]),
        Reply(calls=[Call(READ_LINES, {"path": str(sessions.outside)})]),
        Reply(calls=[Call(LIST_FILES, {"folder": "../session-b"})]),
        Reply("Nothing found."),
    ]
    with MockOpenAI(attacks) as mock:
        done = run(sessions, mock)
    results = [b for u in done.of_type("user") for b in u["message"]["content"]]
    assert len(results) == 3 and all(r["is_error"] and r["content"].startswith("Refused: ") for r in results)
    assert not any(SECRET in line for line in done.lines)
    assert not any(SECRET in json.dumps(r.body) for r in mock.chat_requests())


@pytest.mark.parametrize(("tool_mode", "shown"), [("on", "Tool mode: "), ("off", "Retrieval mode: ")])
def test_the_mode_is_shown_on_the_run(sessions, tool_mode, shown):
    with MockOpenAI(default=ChatResearcher()) as mock:
        done = run(sessions, mock, tool_mode=tool_mode)
    notices = [n["content"] for n in done.of_type("system", "informational")]
    assert notices[0].startswith("Context: ")  # the model's context is said first (test_openai_context.py)
    assert notices[1].startswith(shown) and notices[1].endswith(f"(OPENAI_TOOLS={tool_mode})")


def test_a_server_that_is_not_there_is_retried_then_named(sessions):
    with MockOpenAI() as mock:
        url = mock.url  # a port nothing listens on once the double is gone
    gone = type("Gone", (), {"url": url})()
    done = run(sessions, gone, retry_delay=0.01, max_retries=1)
    assert [r["error"] for r in done.of_type("system", "api_retry")] == ["connection_error"]
    assert done.result["errors"] == [
        f"The model server at {url} could not be reached: is it running, and is OPENAI_BASE_URL right?"
    ]


def test_a_model_that_wants_max_completion_tokens_is_asked_again_by_that_name(sessions):
    refusal = Fail(
        400,
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
    )
    with MockOpenAI([refusal], default=ChatResearcher()) as mock:
        done = run(sessions, mock, max_retries=0)
    first, *rest = [r.body for r in mock.chat_requests()]
    assert "max_tokens" in first and "max_completion_tokens" not in first
    assert rest and all("max_completion_tokens" in body and "max_tokens" not in body for body in rest)
    assert done.result["subtype"] == "success" and not done.of_type("system", "api_retry")


def test_a_server_that_reports_no_usage_still_spends_the_token_budget(sessions):
    long_call = Reply(calls=[Call(SEARCH_TEXT, {"query": "access tokens " * 20})], usage=False)
    with MockOpenAI([long_call], default=ChatResearcher()) as mock:
        done = run(sessions, mock, max_tokens=40)
    assert len(mock.chat_requests()) == 1
    assert "OPENAI_MAX_TOKENS" in done.result["errors"][0]
    assert done.result["usage"]["output_tokens"] >= 40
