"""Anthropic providers set up on the Engines page, beside the OpenAI-compatible
ones: a person who may manage engines adds, edits, tests and removes one; its
engine is ``anthropic:<slug>``; a blank base URL is Anthropic's own API; the
key is stored sealed and never comes back in a page; tool calling and context
length do not apply to it; its test runs in the background against the
Messages API double on 127.0.0.1 with the provider's key and address."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from core.engines.anthropic import AnthropicEngine
from researchmind.engine_checks import check_poll
from researchmind.engine_config import build_engine
from researchmind.models import EngineCheck, EngineProvider
from testing.messages_double import CitingResearcher
from testing.mock_anthropic import MockAnthropic

pytestmark = pytest.mark.django_db(transaction=True)

KEY = "sk-ant-prov-4c2f9e81b7d3-never-shown"


@pytest.fixture
def no_environment(settings):
    """No Anthropic key or address in the environment: whatever answers is the provider's."""
    settings.ANTHROPIC_API_KEY = ""
    settings.ANTHROPIC_BASE_URL = ""
    settings.ANTHROPIC_RETRY_DELAY = 0.01
    settings.ANTHROPIC_MAX_RETRIES = 0
    return settings


def fields(**changed) -> dict:
    return {
        "kind": "anthropic",
        "name": "Team Claude",
        "slug": "claude-team",
        "base_url": "",
        "model": "claude-mock",
        "api_key": KEY,
    } | changed


def add_provider(client, **changed) -> EngineProvider:
    data = fields(**changed)
    response = client.post(reverse("provider_add"), data)
    assert response.status_code == 302, response.content.decode()
    return EngineProvider.objects.get(slug=data["slug"])


def start_test(client, engine: str) -> int:
    response = client.post(reverse("engine_test", args=[engine]), HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    return int(re.search(r'id="check-(\d+)"', response.content.decode()).group(1))


def test_an_anthropic_provider_is_added_with_its_key_sealed_and_anthropic_s_address(
    client_for, manager, no_environment
):
    client = client_for(manager)
    provider = add_provider(client)
    assert (provider.kind, provider.engine_name) == ("anthropic", "anthropic:claude-team")
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM researchmind_engineprovider")
        row = " ".join(str(value) for value in cursor.fetchone())
    assert KEY not in row and provider.api_key_sealed in row
    engine = build_engine("anthropic:claude-team")
    assert isinstance(engine, AnthropicEngine)
    assert engine.settings.base_url == "https://api.anthropic.com"  # blank: Anthropic's own API
    assert (engine.settings.api_key, engine.model) == (KEY, "claude-mock")
    page = client.get(reverse("engine_settings")).content.decode()
    section = page.split('id="provider-claude-team"', 1)[1].split("</section>", 1)[0]
    assert "<code>anthropic:claude-team</code>" in section and "Usable" in section
    assert "<dt>API key</dt><dd>a key is set</dd>" in section
    assert "<code>https://api.anthropic.com</code>" in section
    assert "<dt>Tool calling</dt>" not in section and "<dt>Context</dt>" not in section
    form = client.get(reverse("provider_edit", args=[provider.pk])).content.decode()
    assert "A key is set" in form and KEY not in form and provider.api_key_sealed not in form
    assert 'name="tool_mode"' not in form and 'name="context_length"' not in form
    for body in (page, client.get(reverse("session_create")).content.decode()):
        assert KEY not in body
    assert 'value="anthropic:claude-team"' in client.get(reverse("session_create")).content.decode()


def test_editing_keeps_its_kind_and_key_and_ignores_what_does_not_apply(client_for, manager, no_environment):
    client = client_for(manager)
    provider = add_provider(client, base_url="https://proxy.example/v1/")
    assert provider.base_url == "https://proxy.example"  # the library adds /v1 itself
    edit = reverse("provider_edit", args=[provider.pk])
    response = client.post(
        edit,
        {
            "kind": "openai",
            "name": "Renamed",
            "base_url": "",
            "model": "claude-other",
            "tool_mode": "off",
            "context_length": 1024,
        },
    )
    assert response.status_code == 302, response.content.decode()
    provider.refresh_from_db()
    assert (provider.kind, provider.name, provider.model) == ("anthropic", "Renamed", "claude-other")
    assert (provider.tool_mode, provider.context_length) == ("auto", 8192)  # not an Anthropic setting
    assert build_engine(provider.engine_name).settings.api_key == KEY  # blank keeps the stored key


@pytest.mark.parametrize(
    ("changed", "message"),
    [
        ({"api_key": ""}, "An Anthropic provider needs its API key."),
        ({"slug": "a" * 31}, "at most 30 characters"),
        ({"base_url": "ftp://127.0.0.1/"}, "The base URL starts with http:// or https://."),
        ({"base_url": "http://user:pw@127.0.0.1"}, "Put the key in the API key field"),
        (
            {"kind": "openai", "context_length": 8192, "tool_mode": "auto"},
            "An OpenAI-compatible provider needs its server",
        ),
        ({"kind": "elsewhere"}, "Select a valid choice"),
    ],
)
def test_bad_input_gets_a_sentence_and_saves_nothing(client_for, manager, changed, message):
    response = client_for(manager).post(reverse("provider_add"), fields(**changed))
    assert response.status_code == 200 and message in response.content.decode()
    assert not EngineProvider.objects.exists()


def test_removing_the_key_of_an_anthropic_provider_is_refused(client_for, manager):
    client = client_for(manager)
    provider = add_provider(client)
    response = client.post(reverse("provider_edit", args=[provider.pk]), fields(clear_key="on", api_key=""))
    assert (
        response.status_code == 200
        and "An Anthropic provider needs its API key." in response.content.decode()
    )
    assert EngineProvider.objects.get().has_key


def test_a_test_of_the_provider_asks_the_messages_api_at_its_address_with_its_key(
    client_for, manager, no_environment, polled
):
    with MockAnthropic(default=CitingResearcher(), api_key=KEY) as mock:
        client = client_for(manager)
        add_provider(client, base_url=mock.url)
        fragment = polled(client, start_test(client, "anthropic:claude-team"))
    assert "<strong>OK:</strong> 1 of 1 citation(s) verified." in fragment, fragment
    assert "harbour-notes.md</code> → verified" in fragment
    asked = mock.messages_requests()
    assert asked and {r.path for r in asked} == {"/v1/messages"}
    assert {r.api_key for r in asked} == {KEY}  # in its key header
    assert {r.body["model"] for r in asked} == {"claude-mock"}
    check = EngineCheck.objects.get(engine="anthropic:claude-team")
    assert check.status == "ok" and KEY not in str(check.report) and KEY not in fragment


def test_a_wrong_key_reports_where_to_enter_it(client_for, manager, no_environment, polled):
    with MockAnthropic(default=CitingResearcher(), api_key="the-key-the-api-wants") as mock:
        client = client_for(manager)
        add_provider(client, base_url=mock.url)
        fragment = polled(client, start_test(client, "anthropic:claude-team"))
    assert "<strong>Failed:</strong>" in fragment
    assert "enter a key this API accepts for the provider “claude-team” on the Engines page" in fragment
    assert "ANTHROPIC_API_KEY" not in fragment and KEY not in fragment and KEY[-8:] not in fragment
    assert len(mock.messages_requests()) == 1  # refused once, not retried


def test_only_people_who_manage_engines_set_one_up_test_or_remove_it(client_for, user, make_user, manager):
    staff = make_user("ops", is_staff=True)
    provider = EngineProvider.objects.create(
        kind="anthropic", slug="p", name="P", base_url="", model="claude-mock"
    )
    urls = [
        ("post", reverse("provider_add"), fields(slug="q")),
        ("post", reverse("provider_edit", args=[provider.pk]), fields(name="Taken")),
        ("post", reverse("provider_delete", args=[provider.pk]), {}),
        ("post", reverse("engine_test", args=["anthropic:p"]), {}),
    ]
    for person in (user, staff):
        client = client_for(person)
        for method, url, data in urls:
            assert getattr(client, method)(url, data).status_code == 403, (person, url)
    csrf = Client(enforce_csrf_checks=True)
    csrf.force_login(manager)
    assert csrf.post(reverse("provider_add"), fields(slug="q")).status_code == 403
    assert csrf.post(reverse("engine_test", args=["anthropic:p"])).status_code == 403
    assert [p.name for p in EngineProvider.objects.all()] == ["P"] and not EngineCheck.objects.exists()


def test_an_engine_name_of_the_other_kind_is_404_and_removal_takes_it_off_the_ask_form(client_for, manager):
    client = client_for(manager)
    provider = add_provider(client)
    assert client.post(reverse("engine_test", args=["openai:claude-team"])).status_code == 404
    client.post(reverse("provider_delete", args=[provider.pk]))
    assert not EngineProvider.objects.exists()
    assert 'value="anthropic:claude-team"' not in client.get(reverse("session_create")).content.decode()


def test_providers_saved_before_kinds_existed_are_openai_compatible():
    provider = EngineProvider.objects.create(
        slug="old", name="Old", base_url="http://127.0.0.1:9/v1", model="m"
    )
    assert (provider.kind, provider.engine_name) == ("openai", "openai:old")


def test_a_test_within_the_anthropic_time_limit_is_not_ended_as_an_orphan(settings):
    """A test still polled is left running for as long as an Anthropic run may last."""
    settings.ANTHROPIC_TIMEOUT = 3600
    running = EngineCheck.objects.create(engine="anthropic:p", polled_at=timezone.now())
    EngineCheck.objects.filter(pk=running.pk).update(started_at=timezone.now() - timedelta(minutes=40))
    assert check_poll(running.pk).status == "running"
