"""The real `claude` and `claude-mpm` CLIs through the whole app: run_question
with the claude-code / claude-mpm engine against a scripted local Messages API,
down to verified citations. Offline; only 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from progress.models import ProgressEvent
from researchmind.models import Question
from researchmind.runs import run_question
from testing.mock_anthropic import Fail, MockAnthropic, Reply, Text, ToolUse

pytestmark = pytest.mark.django_db(transaction=True)
NOTES = "# Sky notes\n\nThe sky is blue on a clear day.\nSunsets are red because of scattering.\n"


@pytest.fixture
def tools(installed: Path) -> Path:
    """The CLIs in .tools/bin (tests/conftest.py's ``installed``: installed from the
    network only for a ``slow`` test, else used as ``make tools`` left them)."""
    return installed


def script(sandbox: Path, content_id: str) -> list[Reply]:
    notes = f"{content_id}/sky-notes.md"
    citations = [
        {
            "id": "c1",
            "source_file": notes,
            "source_type": "file",
            "location": {"line_start": 3, "line_end": 3, "section": "Sky notes", "page": None},
            "excerpt": "The sky is blue on a clear day.",
            "relevance": "direct",
            "confidence": 0.9,
        }
    ]
    return [
        Reply(
            [
                Text(
                    '<!-- PROGRESS: {"phase": "searching", "step": 1, "total": 2, "detail": "Reading notes"} -->\n'
                    "Let me read the notes."
                ),
                ToolUse("Read", {"file_path": str(sandbox / notes)}),
            ],
            chunk_chars=7,
        ),
        Reply(
            [Text(f"The sky is blue on a clear day [c1].\n\n<!-- CITATIONS: {json.dumps(citations)} -->")],
            chunk_chars=11,
        ),
    ]


@pytest.fixture
def research_with_notes(user, make_session, add_text):
    session = make_session(user, "Sky")
    item = add_text(session, "Sky notes", NOTES)
    return session, item


@pytest.mark.parametrize("engine", ["claude-code", "claude-mpm"])
def test_real_cli_answers_with_verified_citations(tools, research_with_notes, settings, engine):
    """The real CLI reads a sandbox file through the mock model and its [c1] citation verifies."""
    session, item = research_with_notes
    with MockAnthropic(script(session.sandbox_path, str(item.id))) as api:
        settings.CLAUDE_BIN = str(tools / "claude")
        settings.CLAUDE_MPM_BIN = str(tools / "claude-mpm")
        settings.ANTHROPIC_BASE_URL = api.url
        settings.ANTHROPIC_API_KEY = "test-key"
        question = Question.objects.create(session=session, text="What colour is the sky?", engine=engine)
        status = run_question(question.pk)
    question.refresh_from_db()
    assert status == "complete", (question.error, question.stderr_tail)
    assert question.answer.startswith("The sky is blue") and "CITATIONS" not in question.answer
    citation = question.citations.get()
    assert (citation.cid, citation.verification, citation.content_item_id) == ("c1", "verified", item.id)
    kinds = set(ProgressEvent.objects.filter(question=question).values_list("kind", flat=True))
    assert {"system", "phase", "tool_start", "tool_end", "text_delta", "result", "end"} <= kinds
    steps = list(
        ProgressEvent.objects.filter(question=question, kind="tool_start").values_list("detail", flat=True)
    )
    assert any(step.startswith("Reading Sky notes/") for step in steps), steps
    assert question.raw_output.count("\n") > 5


def test_real_cli_auth_failure_is_an_error_with_the_message(tools, research_with_notes, settings):
    """A 401 from the API ends the question as an error saying what to check; the CLI's own
    message is kept in the raw answer and output, not shown as an answer."""
    session, _ = research_with_notes
    with MockAnthropic([Fail(401, "invalid x-api-key")], default=Fail(401, "invalid x-api-key")) as api:
        settings.CLAUDE_BIN = str(tools / "claude")
        settings.ANTHROPIC_BASE_URL = api.url
        settings.ANTHROPIC_API_KEY = "bad"
        settings.CLAUDE_MAX_RETRIES = "0"
        question = Question.objects.create(session=session, text="q", engine="claude-code")
        status = run_question(question.pk)
    question.refresh_from_db()
    assert status == "error"
    assert question.error.startswith("Claude Code was refused by the API: the credentials"), question.error
    assert "Invalid API key" in question.answer_raw and "Invalid API key" in question.raw_output
    assert question.answer == ""


@pytest.mark.parametrize("engine", ["claude-code", "claude-mpm"])
def test_a_wrong_key_ends_the_question_at_the_first_refusal(tools, research_with_notes, settings, engine):
    """Even with the CLI allowed its ten retries, a 401 ends the question after one
    request: an error saying which setting to check and where, no answer, and the
    retry the CLI announced kept as the run's last step."""
    session, _ = research_with_notes
    with MockAnthropic(default=Fail(401, "invalid x-api-key")) as api:
        settings.CLAUDE_BIN = str(tools / "claude")
        settings.CLAUDE_MPM_BIN = str(tools / "claude-mpm")
        settings.ANTHROPIC_BASE_URL = api.url
        settings.ANTHROPIC_API_KEY = "wrong"
        settings.CLAUDE_MAX_RETRIES = "10"
        question = Question.objects.create(session=session, text="q", engine=engine)
        status = run_question(question.pk)
        requests = len(api.messages_requests())
    question.refresh_from_db()
    assert status == "error" and question.answer == "" and requests <= 2
    label = "Claude Code" if engine == "claude-code" else "Claude MPM"
    assert question.error == (
        f"{label} was refused by the API: the credentials it was given are not valid (check "
        "ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN in the server's environment, restart it, then: "
        f"python manage.py check_engine {engine})"
    )
    details = list(
        ProgressEvent.objects.filter(question=question, kind="system").values_list("detail", flat=True)
    )
    assert any(d.startswith("API error (authentication_failed), retry 1/10") for d in details), details


def test_a_long_thread_runs_with_its_final_question_whole(tools, research_with_notes, settings):
    """Eight turns of ten-thousand-character follow-ups (French: some letters are
    two bytes) would overflow one command-line argument; the run completes, the
    model receives the final question whole, and the run says which earlier
    turns it shortened."""
    from researchmind import services

    session, _item = research_with_notes
    follow_up = "Précisez la couleur du ciel à chaque heure du jour. " * 190
    answer = "Le ciel est bleu par temps clair — la diffusion l'explique. " * 70
    settings.CLAUDE_BIN = str(tools / "claude")
    settings.ANTHROPIC_API_KEY = "test-key"
    earlier = None
    for n in range(8):
        earlier = services.question_ask(
            session=session, text=f"{n}: {follow_up}", engine="claude-code", follows=earlier
        )
        Question.objects.filter(pk=earlier.pk).update(status="complete", answer=answer)
    final = "Enfin : " + "pourquoi le coucher du soleil est-il rouge ? " * 300
    question = services.question_ask(session=session, text=final, engine="claude-code", follows=earlier)
    with MockAnthropic(default=Reply([Text("Sunsets are red because of scattering.")])) as api:
        settings.ANTHROPIC_BASE_URL = api.url
        status = run_question(question.pk)
    question.refresh_from_db()
    assert status == "complete", (question.error, question.stderr_tail)
    sent = api.messages_requests()[0].body["messages"][0]["content"]
    texts = [sent] if isinstance(sent, str) else [block.get("text", "") for block in sent]
    assert any(text.rstrip().endswith(final.strip()) for text in texts)
    # The six latest turns are given (two left out by the turn limit), the oldest of them folded.
    assert any("Turn 8 question: 7: " in text and "Turn 2 question" not in text for text in texts)
    (step,) = ProgressEvent.objects.filter(question=question, payload__subtype="thread_budget")
    assert (step.payload["folded"], step.payload["dropped"]) == (1, 2)
    assert step.detail == (
        "Long thread: 1 earlier turn shortened to question and first sentence; 2 earliest turns left out"
    )


def test_server_folders_never_reach_events_answer_page_or_api(
    tools, research_with_notes, settings, user, client_for
):
    """The CLI's refusal of a state file quotes its absolute path and the model
    echoes the sandbox root, the state folder and the scratch home: events,
    answer, page and API say <sandbox>, <state>, <engine home>; the raw output
    keeps the engine's bytes."""
    from django.urls import reverse

    from researchmind.tokens import token_create

    session, item = research_with_notes
    question = Question.objects.create(session=session, text="Where are the files?", engine="claude-code")
    sandbox, state = str(session.sandbox_path), str(session.state_path)
    scratch = f"{state}/runs/{question.pk}.scratch"
    (session.state_path / "index").mkdir(parents=True, exist_ok=True)
    echoed = f"Files live in {sandbox}/{item.id}, state in {state}/index and home in {scratch}/home."
    with MockAnthropic(
        [
            Reply([ToolUse("Read", {"file_path": f"{state}/index/secret.txt"})]),
            Reply([Text(echoed)]),
        ]
    ) as api:
        settings.CLAUDE_BIN = str(tools / "claude")
        settings.ANTHROPIC_BASE_URL = api.url
        settings.ANTHROPIC_API_KEY = "test-key"
        status = run_question(question.pk)
    question.refresh_from_db()
    assert status == "complete", (question.error, question.stderr_tail)
    # The CLI really quoted the state path in its refusal, and the raw log keeps it all.
    assert f"{state}/index/secret.txt" in json.dumps(api.messages_requests()[-1].body)
    assert sandbox in question.raw_output and scratch in question.raw_output
    assert question.answer_raw.startswith(f"Files live in {sandbox}/")
    assert question.answer == (
        f"Files live in <sandbox>/{item.id}, state in <state>/index and home in <engine home>/home."
    )
    events = json.dumps(
        list(ProgressEvent.objects.filter(question=question).values("detail", "payload")), ensure_ascii=False
    )
    assert "<state>/index/secret.txt" in events  # the refused read, as a step
    page = client_for(user).get(reverse("question_detail", args=[session.id, question.pk])).content.decode()
    token = token_create(user=user, name="tests")[1]
    body = client_for(user).get(f"/api/questions/{question.pk}", headers={"Authorization": f"Bearer {token}"})
    assert body.status_code == 200
    for shown in (events, question.answer, question.thinking, question.error, page, body.content.decode()):
        for root in (sandbox, state, scratch):
            assert root not in shown, shown[max(0, shown.find(root) - 300) : shown.find(root) + 200]
    assert "&lt;sandbox&gt;" in page  # escaped on the page


def test_claude_mpm_start_up_says_so_and_leaves_no_gap_over_two_seconds(tools, research_with_notes, settings):
    """The real claude-mpm spends seconds starting before claude prints a line:
    the run says "Starting claude-mpm" at once, and no two recorded events are
    more than 2 s apart (a check every 0.5 s for 2 s of silence left 2.1–2.5 s)."""
    import itertools

    session, item = research_with_notes
    settings.HEARTBEAT_SECONDS = 2.0
    with MockAnthropic(script(session.sandbox_path, str(item.id))) as api:
        settings.CLAUDE_BIN = str(tools / "claude")
        settings.CLAUDE_MPM_BIN = str(tools / "claude-mpm")
        settings.ANTHROPIC_BASE_URL = api.url
        settings.ANTHROPIC_API_KEY = "test-key"
        question = Question.objects.create(
            session=session, text="What colour is the sky?", engine="claude-mpm"
        )
        status = run_question(question.pk)
    question.refresh_from_db()
    assert status == "complete", (question.error, question.stderr_tail)
    events = list(ProgressEvent.objects.filter(question=question).order_by("seq"))
    starting = [e for e in events if e.payload.get("subtype") == "engine_start"]
    assert [(e.detail, e.stage) for e in starting] == [("Starting claude-mpm", "primary")]
    init = next(e for e in events if e.payload.get("subtype") == "init")
    beats = [e.detail for e in events if e.kind == "heartbeat" and e.seq < init.seq]
    assert all(beat.startswith("Starting claude-mpm (") for beat in beats), beats
    gaps = [(b.created_at - a.created_at).total_seconds() for a, b in itertools.pairwise(events)]
    assert max(gaps) <= 2.0, [(e.kind, e.detail[:40], e.created_at.isoformat()) for e in events]
