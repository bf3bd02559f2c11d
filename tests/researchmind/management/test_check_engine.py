"""``manage.py check_engine``: one tiny question through the real CLI and the
configured credentials (or a provider set up in the app), reported in words a
person setting up can act on."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from researchmind.models import EngineProvider
from researchmind.providers import provider_save
from testing.chat_model_double import ChatResearcher
from testing.mock_anthropic import Fail, MockAnthropic
from testing.mock_openai import MockOpenAI
from testing.model_double import Researcher


@pytest.mark.parametrize("engine", ["claude-code", "claude-mpm"])
def test_check_engine_reports_a_verified_citation(claude_settings, engine):
    out = StringIO()
    with MockAnthropic(default=Researcher()) as api:  # type: ignore[arg-type]
        claude_settings.ANTHROPIC_BASE_URL = api.url
        call_command("check_engine", engine, "--model", "claude-check-1", stdout=out)
    text = out.getvalue()
    assert "(Claude Code)" in text.splitlines()[0]  # the CLI's own version line
    assert "Model:         claude-check-1" in text
    assert "Tools offered: Glob, Grep, Read" in text
    assert "Working folder is the sandbox: yes" in text
    assert "Instructions:  followed" in text
    assert "Answer:        Its lamp is visible for 18 nautical miles on a clear night. [c1]" in text
    assert "harbour-notes.md:4-4 → verified" in text
    assert text.rstrip().endswith("OK: 1 of 1 citation(s) verified.")


def test_check_engine_json_and_a_rejected_key(claude_settings):
    out = StringIO()
    with MockAnthropic(default=Fail(401)) as api:
        claude_settings.ANTHROPIC_BASE_URL = api.url
        # The one actionable sentence (which setting, where), not the CLI's error.
        with pytest.raises(
            CommandError, match=r"credentials it was given are not valid \(check ANTHROPIC_API_KEY"
        ):
            call_command("check_engine", "claude-code", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["status"] == "failed" and report["citations"] == []
    assert report["tools"] == ["Glob", "Grep", "Read"]


def test_check_engine_without_credentials_says_what_to_set(claude_settings):
    claude_settings.ANTHROPIC_API_KEY = ""
    with pytest.raises(CommandError, match=r"has no credentials\. Set ANTHROPIC_API_KEY"):
        call_command("check_engine", "claude-code")


def test_check_engine_json_when_the_engine_is_unavailable(claude_settings):
    """``--json`` prints JSON whatever happened: a script never gets plain text to parse."""
    claude_settings.ANTHROPIC_API_KEY = ""
    out = StringIO()
    with pytest.raises(CommandError, match=r"has no credentials"):
        call_command("check_engine", "claude-code", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["engine"] == "claude-code" and report["status"] == "unavailable"
    assert "ANTHROPIC_API_KEY" in report["why"]


@pytest.mark.django_db(transaction=True)
def test_check_engine_tests_a_provider_set_up_in_the_app(settings):
    """``check_engine openai:<slug>`` answers through the provider's server with its stored key."""
    settings.OPENAI_RETRY_DELAY = 0.01
    key = "sk-provider-check-51c2e0"
    with MockOpenAI(default=ChatResearcher(), api_key=key) as mock:
        provider = EngineProvider(slug="lab", name="Lab", base_url=mock.url, model="mock-model")
        provider_save(provider, api_key=key)
        out = StringIO()
        call_command("check_engine", "openai:lab", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["status"] == "ok" and report["engine"] == "openai:lab"
    assert {r.headers["authorization"] for r in mock.chat_requests()} == {f"Bearer {key}"}
    assert key not in out.getvalue()


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["openai:nobody", "replay", "nothing"])
def test_check_engine_refuses_an_engine_that_does_not_exist(name):
    with pytest.raises(CommandError, match=r"no (engine|provider) called"):
        call_command("check_engine", name, stdout=StringIO())
