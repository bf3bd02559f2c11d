"""The staff engine settings page: each engine's state without its secrets,
the engine check run in the background from a button, and only usable
engines in the ask form."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from django.db import OperationalError
from django.test import Client
from django.urls import reverse

from researchmind.models import EngineCheck
from testing.mock_anthropic import Fail, MockAnthropic
from testing.model_double import Researcher

SLOW_CLAUDE = Path(__file__).resolve().parents[3] / "testing" / "slow_claude.py"
SECRET = "sk-ant-do-not-show-7f3a9c"


@pytest.fixture
def staff(manager):
    return manager


def started(client, name: str, **headers) -> int:
    """Start the test of ``name``; its id."""
    response = client.post(reverse("engine_test", args=[name]), **headers)
    assert response.status_code in (200, 302)
    return EngineCheck.objects.get(engine=name).pk


@pytest.fixture
def no_claude_credentials(settings):
    settings.ANTHROPIC_API_KEY = ""
    settings.ANTHROPIC_AUTH_TOKEN = ""
    settings.ANTHROPIC_BASE_URL = ""
    settings.CLAUDE_CONFIG_DIR = ""
    return settings


def test_page_is_for_signed_in_staff_only(client_for, user, staff):
    url = reverse("engine_settings")
    assert Client().get(url).status_code == 302  # to the login page
    assert client_for(user).get(url).status_code == 403
    assert client_for(staff).get(url).status_code == 200
    assert client_for(user).post(reverse("engine_test", args=["builtin"])).status_code == 403


def test_header_links_to_the_page_for_staff_only(client_for, user, staff):
    url = reverse("engine_settings")
    assert f'href="{url}"' not in client_for(user).get(reverse("sessions")).content.decode()
    assert f'href="{url}"' in client_for(staff).get(reverse("sessions")).content.decode()


def test_page_names_credentials_but_never_shows_them(claude_settings, client_for, staff):
    """With a key set, Claude Code is usable; the page says ANTHROPIC_API_KEY
    is set, its version and default model, and never prints the key."""
    claude_settings.ANTHROPIC_API_KEY = SECRET
    claude_settings.CLAUDE_MODEL = "sonnet"
    page = client_for(staff).get(reverse("engine_settings")).content.decode()
    assert SECRET not in page
    section = page.split('id="engine-claude-code"', 1)[1].split("</section>", 1)[0]
    assert "<code>ANTHROPIC_API_KEY</code> set" in section
    assert "(Claude Code)" in section  # the installed CLI's own version line
    assert "<code>sonnet</code>" in section and "Usable" in section
    for name in ("builtin", "claude-code", "claude-mpm"):
        assert f'id="test-{name}"' in page


def test_unavailable_engine_says_what_to_set(no_claude_credentials, client_for, staff):
    page = client_for(staff).get(reverse("engine_settings")).content.decode()
    section = page.split('id="engine-claude-code"', 1)[1].split("</section>", 1)[0]
    assert "Unavailable" in section
    assert "<strong>What to set:</strong> Claude Code has no credentials. Set ANTHROPIC_API_KEY" in section


@pytest.mark.django_db(transaction=True)
def test_testing_an_engine_reports_its_verified_citation(claude_settings, client_for, staff, polled):
    """The real CLI answers through a scripted model in the background: the
    button answers at once with a fragment that polls, and the report (an
    htmx fragment) says OK with the citation checked against the file."""
    with MockAnthropic(default=Researcher()) as api:  # type: ignore[arg-type]
        claude_settings.ANTHROPIC_BASE_URL = api.url
        client = client_for(staff)
        response = client.post(reverse("engine_test", args=["claude-code"]), HTTP_HX_REQUEST="true")
        text = response.content.decode()
        assert response.status_code == 200 and "<html" not in text  # the fragment only
        assert "Testing Claude Code…" in text and 'hx-trigger="load delay:1s"' in text
        text = polled(client, EngineCheck.objects.get(engine="claude-code").pk)
    assert "<strong>OK:</strong> 1 of 1 citation(s) verified." in text
    assert "harbour-notes.md</code> → verified" in text


@pytest.mark.django_db(transaction=True)
def test_testing_without_htmx_shows_the_result_on_the_page(client_for, staff, polled):
    """The button works without JavaScript: it leads back to the page, which
    shows the test under its engine's section (reloading it polls)."""
    client = client_for(staff)
    response = client.post(reverse("engine_test", args=["builtin"]))
    check = EngineCheck.objects.get(engine="builtin")
    assert response.status_code == 302 and response["Location"].endswith(f"?check={check.pk}#engine-builtin")
    polled(client, check.pk)
    page = client.get(response["Location"]).content.decode()
    result = page.split('id="engine-builtin-result"', 1)[1].split("</section>", 1)[0]
    assert 'class="engine-check ok"' in result  # the default engine passes its own check
    assert "<dt>Answer</dt>" in result and "<dt>Version</dt><dd>built in</dd>" in result
    assert "18 nautical miles" in result


@pytest.mark.django_db(transaction=True)
def test_testing_an_engine_without_credentials_says_what_to_set(
    no_claude_credentials, client_for, staff, polled
):
    client = client_for(staff)
    text = polled(client, started(client, "claude-code"))
    assert "The claude-code engine is unavailable: Claude Code has no credentials." in text


@pytest.mark.django_db(transaction=True)
def test_a_rejected_key_becomes_one_sentence_to_act_on(claude_settings, client_for, staff, polled):
    """The real CLI against an API answering 401: one actionable sentence, not the CLI's raw error."""
    with MockAnthropic(default=Fail(401)) as api:
        claude_settings.ANTHROPIC_BASE_URL = api.url
        client = client_for(staff)
        result = polled(client, started(client, "claude-code"))
    assert "<strong>Failed:</strong> Claude Code was refused by the API" in result
    assert "Invalid API key" not in result


def test_unknown_engine_and_wrong_method(client_for, staff):
    assert client_for(staff).post(reverse("engine_test", args=["replay"])).status_code == 404
    assert client_for(staff).get(reverse("engine_test", args=["builtin"])).status_code == 405


def test_test_button_needs_the_csrf_token(staff):
    client = Client(enforce_csrf_checks=True)
    client.force_login(staff)
    assert client.post(reverse("engine_test", args=["builtin"])).status_code == 403


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("engine", "raw", "sentence"),
    [
        ("claude-code", "Invalid API key", "Claude Code was refused by the API"),
        (
            "claude-mpm",
            "Not logged in · Please run /login",
            "Claude MPM has no credentials. Set ANTHROPIC_API_KEY",
        ),
    ],
)
def test_an_auth_failure_reads_as_one_sentence_to_act_on(
    client_for, user, research, tmp_path, engine, raw, sentence
):
    """The CLI's raw auth error becomes one sentence saying what to set, shown
    once in the answer region, with the raw message only in the progress log."""
    import json

    from asgiref.sync import async_to_sync

    from core.engines.replay import ReplayEngine
    from researchmind import runs
    from researchmind.models import Question

    transcript = tmp_path / "auth.jsonl"
    lines = [
        {"type": "system", "subtype": "init", "session_id": "s", "model": "sonnet", "tools": []},
        {
            "type": "assistant",
            "message": {
                "id": "m",
                "role": "assistant",
                "model": "<synthetic>",
                "content": [{"type": "text", "text": raw}],
            },
        },
        {"type": "result", "subtype": "success", "is_error": True, "result": raw, "session_id": "s"},
    ]
    transcript.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    question = Question.objects.create(session=research, text="q", engine=engine)
    assert async_to_sync(runs.arun_question)(question.pk, engine=ReplayEngine(transcript)) == "error"
    page = client_for(user).get(reverse("question_detail", args=[research.id, question.pk])).content.decode()
    answer = page.split('<div id="answer"', 1)[1].split("</section>", 1)[0]
    assert answer.count(sentence) == 1
    assert raw.split(" ·")[0] not in answer


def test_ask_form_lists_only_usable_engines_and_greys_the_rest(
    no_claude_credentials, client_for, user, research
):
    """Without credentials the Claude engines are listed disabled with the
    reason; the session's unusable default engine is not preselected; the
    model is picked from a list."""
    research.engine = "claude-code"
    research.save()
    page = client_for(user).get(reverse("session_detail", args=[research.id])).content.decode()
    select = page.split('name="engine"', 1)[1].split("</select>", 1)[0]
    assert '<option value="builtin" selected>Built-in (offline)</option>' in select
    claude = select.split('value="claude-code"', 1)[1].split("</option>", 1)[0]
    assert "disabled" in claude and "selected" not in claude
    assert (
        "(unavailable: has no credentials)" in claude and 'title="Claude Code has no credentials.' in claude
    )
    assert "Greyed out engines cannot run here yet" in page
    models = page.split('name="model"', 1)[1].split("</select>", 1)[0]
    assert '<option value="">Default (' in models and '<option value="opus">opus</option>' in models


def test_asking_an_unusable_engine_is_refused_with_the_reason(
    no_claude_credentials, client_for, user, research
):
    response = client_for(user).post(
        reverse("question_ask", args=[research.id]),
        {"text": "How long?", "engine": "claude-code"},
        HTTP_HX_REQUEST="true",
    )
    assert "That engine is unavailable: Claude Code has no credentials." in response.content.decode()
    assert not research.questions.exists()


def test_a_usable_engine_is_offered_with_its_models(claude_settings, client_for, user, research):
    claude_settings.OPENAI_MODEL = "a-model"  # every engine set up: none greyed out
    claude_settings.OPENAI_BASE_URL = "http://127.0.0.1:9/v1"
    page = client_for(user).get(reverse("session_detail", args=[research.id])).content.decode()
    select = page.split('name="engine"', 1)[1].split("</select>", 1)[0]
    assert '<option value="claude-code">Claude Code</option>' in select
    assert "Greyed out engines" not in page


def test_the_environment_s_engines_are_shown_read_only_with_their_settings(
    claude_settings, client_for, staff
):
    """The Claude engines' model and credentials (by name) and the ``OPENAI_*``
    provider are shown as set in the environment, with no form to change them."""
    claude_settings.ANTHROPIC_AUTH_TOKEN = SECRET
    claude_settings.CLAUDE_MPM_MODEL = "opus"
    claude_settings.OPENAI_BASE_URL = "http://127.0.0.1:9/v1"
    claude_settings.OPENAI_MODEL = "env-model"
    claude_settings.OPENAI_API_KEY = SECRET + "-openai"
    page = client_for(staff).get(reverse("engine_settings")).content.decode()
    assert SECRET not in page
    mpm = page.split('id="engine-claude-mpm"', 1)[1].split("</section>", 1)[0]
    assert "<code>ANTHROPIC_AUTH_TOKEN</code> set" in mpm and "<code>opus</code>" in mpm
    assert "the server's environment (CLAUDE_MPM_MODEL, CLAUDE_MODEL, ANTHROPIC_*): read-only here" in mpm
    openai = page.split('id="engine-openai"', 1)[1].split("</section>", 1)[0]
    assert "<code>env-model</code>" in openai and "<code>OPENAI_API_KEY</code> set" in openai
    assert "read-only here" in openai and "provider_edit" not in openai and "Edit" not in openai


def _slow_clis() -> list[int]:
    """Pids of the slow stand-in CLI answering the engine check's question."""
    marker = str(SLOW_CLAUDE).encode()
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            running = entry.name.isdigit() and marker in (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if running:
            pids.append(int(entry.name))
    return pids


@pytest.mark.django_db(transaction=True)
def test_an_abandoned_claude_test_stops_its_cli(settings, client_for, staff, tmp_path):
    """A Claude test nobody polls any more is cancelled and its CLI process
    killed, instead of running (and paying) to its end."""
    wrapper = tmp_path / "claude"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{SLOW_CLAUDE}" "$@"\n')
    wrapper.chmod(0o755)
    settings.CLAUDE_BIN = str(wrapper)
    settings.ANTHROPIC_API_KEY = "test-key"
    settings.ENGINE_TEST_ABANDON_SECONDS = 1
    before = set(_slow_clis())
    client = client_for(staff)
    check_id = started(client, "claude-code", HTTP_HX_REQUEST="true")
    deadline = time.monotonic() + 60  # a hang guard, not a timing assertion
    while not set(_slow_clis()) - before and time.monotonic() < deadline:
        # The page is open (it polls) until the CLI runs: on a loaded machine the CLI can take
        # longer than the abandon time to start, and a test nobody watches never starts it.
        try:
            client.get(reverse("engine_check", args=[check_id]), HTTP_HX_REQUEST="true")
        except OperationalError as error:  # the suite's shared-cache SQLite, as in ``polled``
            if "locked" not in str(error):
                raise
        time.sleep(0.05)
    cli = set(_slow_clis()) - before
    assert cli, "the CLI started"
    while EngineCheck.objects.get(pk=check_id).running and time.monotonic() < deadline:
        time.sleep(0.1)  # nobody polls: the page was left
    while set(_slow_clis()) & cli and time.monotonic() < deadline:
        time.sleep(0.05)
    assert EngineCheck.objects.get(pk=check_id).status == "cancelled"
    assert not set(_slow_clis()) & cli


def test_the_page_names_the_cli_but_not_where_the_server_keeps_it(claude_settings, client_for, staff):
    page = client_for(staff).get(reverse("engine_settings")).content.decode()
    section = page.split('id="engine-claude-code"', 1)[1].split("</section>", 1)[0]
    assert "<dt>Program</dt><dd><code>claude</code></dd>" in section
    assert "(Claude Code)" in section  # and its version
    assert str(Path(claude_settings.CLAUDE_BIN).parent) not in page


ECHOING_CLI = """
import json, os, sys
if "--version" in sys.argv:
    print("9.9.9 (Claude Code stand-in)")
    sys.exit(0)
cwd, home = os.getcwd(), os.environ.get("HOME", "")
with open(sys.argv[0] + ".where", "w") as where:
    where.write(cwd)
text = f"I could not read {cwd}/../elsewhere.md; my notes are in {home}/notes and {cwd}."
for line in (
    {"type": "system", "subtype": "init", "model": "stand-in", "cwd": cwd, "tools": ["Read"]},
    {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": text}]}},
    {"type": "result", "subtype": "success", "is_error": False, "result": text, "num_turns": 1},
):
    print(json.dumps(line), flush=True)
"""


@pytest.mark.django_db(transaction=True)
def test_a_test_report_names_server_folders_neutrally_and_keeps_the_raw(
    settings, client_for, staff, polled, tmp_path
):
    """A CLI that quotes where it ran: the Engines page shows <sandbox> and
    <engine home>, as answers do; the raw report keeps the paths for the admin."""
    script = tmp_path / "claude-stand-in.py"
    script.write_text(ECHOING_CLI)
    wrapper = tmp_path / "claude"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{script}" "$@"\n')
    wrapper.chmod(0o755)
    settings.CLAUDE_BIN = str(wrapper)
    settings.ANTHROPIC_API_KEY = "test-key"
    client = client_for(staff)
    fragment = polled(client, started(client, "claude-code"))
    sandbox = Path(str(script) + ".where").read_text()
    check = EngineCheck.objects.get(engine="claude-code")
    page = client.get(reverse("engine_settings") + f"?check={check.pk}").content.decode()
    for shown in (fragment, page, json.dumps(check.report)):
        assert sandbox not in shown and str(Path(sandbox).parent) not in shown
    assert "I could not read &lt;sandbox&gt;/../elsewhere.md" in fragment
    assert "&lt;sandbox&gt;." in fragment
    assert sandbox in check.raw_report["answer"]  # the admin's copy, as the CLI said it
    staff.is_superuser = True
    staff.save()
    admin_page = client.get(
        reverse("admin:researchmind_enginecheck_change", args=[check.pk])
    ).content.decode()
    assert sandbox in admin_page
