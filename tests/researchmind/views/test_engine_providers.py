"""OpenAI-compatible providers set up on the Engines page: only people who
may manage engines add, edit, remove and test them; the key is stored sealed
and never comes back in a page; a test runs in the background against a real
HTTP server double on 127.0.0.1 and reports what it saw."""

from __future__ import annotations

import re
import time

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from researchmind.models import EngineCheck, EngineProvider
from researchmind.providers import provider_settings
from testing.chat_model_double import ChatResearcher
from testing.mock_openai import MockOpenAI, Stall

pytestmark = pytest.mark.django_db(transaction=True)

KEY = "sk-prov-7a1e5c93d2b8-do-not-show"
GUARD = 60  # seconds: a hang guard, not a timing assertion


@pytest.fixture
def staff(make_user):
    return make_user("ops", is_staff=True)


@pytest.fixture
def fast_retries(settings):
    settings.OPENAI_RETRY_DELAY = 0.01
    settings.OPENAI_MAX_RETRIES = 0
    return settings


def add_provider(client, url: str, **fields) -> EngineProvider:
    data = {
        "name": "Local model",
        "slug": "local",
        "base_url": url,
        "model": "mock-model",
        "context_length": 8192,
        "tool_mode": "auto",
        "api_key": KEY,
    } | fields
    response = client.post(reverse("provider_add"), data)
    assert response.status_code == 302, response.content.decode()
    return EngineProvider.objects.get(slug=data["slug"])


def start_test(client, engine: str) -> int:
    response = client.post(reverse("engine_test", args=[engine]), HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    return int(re.search(r'id="check-(\d+)"', response.content.decode()).group(1))


def test_the_key_is_stored_sealed_and_only_whether_one_is_set_is_shown(client_for, manager):
    client = client_for(manager)
    provider = add_provider(client, "http://127.0.0.1:9/v1")
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM researchmind_engineprovider")
        row = " ".join(str(value) for value in cursor.fetchone())
    assert KEY not in row and provider.api_key_sealed in row
    assert provider_settings(provider)["api_key"] == KEY
    page = client.get(reverse("engine_settings")).content.decode()
    section = page.split('id="provider-local"', 1)[1].split("</section>", 1)[0]
    assert "<dt>API key</dt><dd>a key is set</dd>" in section
    assert "<code>openai:local</code>" in section
    form = client.get(reverse("provider_edit", args=[provider.pk])).content.decode()
    assert "A key is set" in form and KEY not in form and provider.api_key_sealed not in form


def test_editing_keeps_replaces_or_clears_the_key(client_for, manager):
    client = client_for(manager)
    provider = add_provider(client, "http://127.0.0.1:9/v1")
    edit = reverse("provider_edit", args=[provider.pk])
    fields = {"name": "Renamed", "base_url": provider.base_url, "model": "other", "context_length": 4096}
    client.post(edit, fields | {"tool_mode": "off", "api_key": ""})
    provider.refresh_from_db()
    assert provider.name == "Renamed" and provider_settings(provider)["api_key"] == KEY
    assert provider.slug == "local"  # the engine's name does not change under its questions
    client.post(edit, fields | {"tool_mode": "off", "api_key": "sk-new-key-2"})
    provider.refresh_from_db()
    assert provider_settings(provider)["api_key"] == "sk-new-key-2"
    client.post(edit, fields | {"tool_mode": "off", "clear_key": "on"})
    provider.refresh_from_db()
    assert provider.api_key_sealed == "" and provider_settings(provider)["api_key"] == ""


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"base_url": "ftp://127.0.0.1/v1"}, "The base URL starts with http:// or https://."),
        ({"base_url": "not a url"}, "Enter a valid URL."),
        ({"base_url": "http://user:pw@127.0.0.1/v1"}, "Put the key in the API key field"),
        ({"model": "-rf"}, "A model is a name such as"),
        ({"model": "gpt\u0007x"}, "A model is a name such as"),
        ({"api_key": "sk two"}, "no spaces or control characters"),
        ({"slug": "Not a slug!"}, "Enter a valid"),
        ({"context_length": 10}, "greater than or equal to 512"),
    ],
)
def test_bad_input_gets_a_sentence_and_saves_nothing(client_for, manager, fields, message):
    data = {
        "name": "X",
        "slug": "x",
        "base_url": "http://127.0.0.1:9/v1",
        "model": "m",
        "context_length": 8192,
    }
    response = client_for(manager).post(reverse("provider_add"), data | {"tool_mode": "auto"} | fields)
    assert response.status_code == 200 and message in response.content.decode()
    assert not EngineProvider.objects.exists()


def test_a_changed_secret_key_is_a_sentence_on_the_page_not_a_crash(client_for, manager, settings):
    client = client_for(manager)
    add_provider(client, "http://127.0.0.1:9/v1")
    settings.SECRET_KEY = "a-different-server-secret-after-rotation"
    client.force_login(manager)  # the session was signed with the old secret
    page = client.get(reverse("engine_settings"))
    assert page.status_code == 200
    section = page.content.decode().split('id="provider-local"', 1)[1].split("</section>", 1)[0]
    assert "SECRET_KEY changed since it was saved" in section and "Enter the key again" in section
    assert "Unavailable" in section
    ask = client.get(reverse("session_create")).content.decode()
    option = ask.split('value="openai:local"', 1)[1].split("</option>", 1)[0]
    assert "disabled" in option


def test_only_people_who_manage_engines_set_them_up_or_test_them(client_for, user, staff, manager):
    provider = EngineProvider.objects.create(slug="p", name="P", base_url="http://127.0.0.1:9/v1", model="m")
    urls = [
        ("post", reverse("provider_add")),
        ("get", reverse("provider_add")),
        ("post", reverse("provider_edit", args=[provider.pk])),
        ("post", reverse("provider_delete", args=[provider.pk])),
        ("post", reverse("engine_test", args=["builtin"])),
        ("post", reverse("engine_test", args=["openai:p"])),
    ]
    for person in (user, staff):
        client = client_for(person)
        for method, url in urls:
            assert getattr(client, method)(url).status_code == 403, (person, url)
    assert client_for(user).get(reverse("engine_settings")).status_code == 403
    page = client_for(staff).get(reverse("engine_settings")).content.decode()
    assert 'id="test-builtin"' not in page and 'id="provider-add"' not in page  # staff may look only
    assert not EngineCheck.objects.exists() and EngineProvider.objects.count() == 1
    assert Client().post(reverse("provider_add")).status_code == 302  # to the login page


def test_every_change_needs_the_csrf_token(manager):
    provider = EngineProvider.objects.create(slug="p", name="P", base_url="http://127.0.0.1:9/v1", model="m")
    client = Client(enforce_csrf_checks=True)
    client.force_login(manager)
    data = {
        "name": "X",
        "slug": "x",
        "base_url": "http://127.0.0.1:9/v1",
        "model": "m",
        "context_length": 8192,
    }
    assert client.post(reverse("provider_add"), data | {"tool_mode": "auto"}).status_code == 403
    assert client.post(reverse("provider_delete", args=[provider.pk])).status_code == 403
    assert client.post(reverse("engine_test", args=["openai:p"])).status_code == 403
    assert EngineProvider.objects.count() == 1 and not EngineCheck.objects.exists()


def test_removing_a_provider_takes_it_off_the_ask_form(client_for, manager):
    client = client_for(manager)
    provider = add_provider(client, "http://127.0.0.1:9/v1")
    assert 'value="openai:local"' in client.get(reverse("session_create")).content.decode()
    client.post(reverse("provider_delete", args=[provider.pk]))
    assert not EngineProvider.objects.exists()
    assert 'value="openai:local"' not in client.get(reverse("session_create")).content.decode()


def test_unknown_engines_are_404(client_for, manager):
    client = client_for(manager)
    assert client.post(reverse("engine_test", args=["openai:nobody"])).status_code == 404
    assert client.post(reverse("engine_test", args=["replay"])).status_code == 404
    assert client.get(reverse("engine_check", args=[999])).status_code == 404


def test_a_provider_test_runs_in_the_background_and_reports_what_it_saw(
    client_for, manager, fast_retries, polled
):
    """The start answers at once with a polling fragment; the test then asks
    the double for its models and researches with its tools; the report says
    reachable, the models listed, tool calling seen working, the first token's
    time and the cited answer verified; the listed models are kept for the ask form."""
    with MockOpenAI(default=ChatResearcher(), api_key=KEY, models=["mock-model", "mock-large"]) as mock:
        client = client_for(manager)
        add_provider(client, mock.url)
        started = client.post(reverse("engine_test", args=["openai:local"]), HTTP_HX_REQUEST="true")
        assert 'hx-trigger="load delay:1s"' in started.content.decode()
        check = EngineCheck.objects.get(engine="openai:local")
        fragment = polled(client, check.pk)
    assert "<strong>OK:</strong> 1 of 1 citation(s) verified." in fragment, fragment
    assert "<dt>Reachable</dt><dd>yes</dd>" in fragment
    assert "<dt>Models listed</dt><dd>mock-large, mock-model</dd>" in fragment
    assert "<dt>Tool calling</dt><dd>seen working</dd>" in fragment
    assert "<dt>First token</dt><dd>none</dd>" not in fragment
    assert "harbour-notes.md</code> → verified" in fragment
    assert [r.path for r in mock.requests if r.method == "GET"] == ["/v1/models"]
    assert {r.headers["authorization"] for r in mock.requests} == {f"Bearer {KEY}"}
    assert {r.body["model"] for r in mock.chat_requests()} == {"mock-model"}
    assert EngineProvider.objects.get().models_listed == ["mock-large", "mock-model"]
    check.refresh_from_db()
    assert check.status == "ok" and KEY not in str(check.report)


def test_a_wrong_key_reports_where_to_enter_it(client_for, manager, fast_retries, polled):
    with MockOpenAI(default=ChatResearcher(), api_key="the-right-key") as mock:
        client = client_for(manager)
        add_provider(client, mock.url)
        fragment = polled(client, start_test(client, "openai:local"))
    assert "<strong>Failed:</strong>" in fragment
    assert "enter a key this server accepts for the provider “local” on the Engines page" in fragment
    assert "OPENAI_API_KEY" not in fragment and KEY not in fragment and KEY[-8:] not in fragment


def test_one_test_runs_at_a_time_per_engine(client_for, manager, fast_retries):
    with MockOpenAI(default=Stall(seconds=GUARD)) as mock:
        client = client_for(manager)
        add_provider(client, mock.url)
        first = start_test(client, "openai:local")
        second = start_test(client, "openai:local")
        assert first == second and EngineCheck.objects.count() == 1
        deadline = time.monotonic() + GUARD
        while not mock.chat_requests() and time.monotonic() < deadline:  # the model is streaming
            time.sleep(0.05)
        assert EngineCheck.objects.get(pk=first).running
        EngineCheck.objects.filter(pk=first).update(polled_at="2000-01-01T00:00:00Z")  # nobody polls it
        while EngineCheck.objects.get(pk=first).running and time.monotonic() < deadline:
            time.sleep(0.1)
        assert mock.disconnected.wait(GUARD)  # the model's stream was closed, not left running
    assert EngineCheck.objects.get(pk=first).status == "cancelled"
    page = client.get(reverse("engine_settings") + f"?check={first}").content.decode()
    assert "<strong>Cancelled:</strong>" in page


def test_a_test_left_running_by_a_stopped_process_does_not_block_the_next(client_for, manager, polled):
    """A "running" test whose thread died with its server process (nobody has
    polled it since long before) is ended, and a new test starts."""
    orphan = EngineCheck.objects.create(engine="builtin", polled_at="2000-01-01T00:00:00Z")
    client = client_for(manager)
    check_id = start_test(client, "builtin")
    assert check_id != orphan.pk
    orphan.refresh_from_db()
    assert orphan.status == "cancelled" and "server process" in orphan.report["why"]
    assert 'class="engine-check ok"' in polled(client, check_id)


def test_testing_the_environment_s_engine_unset_asks_no_server(client_for, manager, polled, settings):
    """With no OPENAI_MODEL the test says what to set and sends nothing anywhere."""
    settings.OPENAI_MODEL = ""
    settings.OPENAI_BASE_URL = ""
    client = client_for(manager)
    check_id = start_test(client, "openai")
    fragment = polled(client, check_id)
    assert "The openai engine is unavailable: No model is named: set OPENAI_MODEL" in fragment
    assert "reachable" not in EngineCheck.objects.get(pk=check_id).report  # no server was probed
