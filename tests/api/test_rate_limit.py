"""The API's rate limit (issue #35, item 8), for real: a token over its
rate, and a user over theirs across tokens, get a JSON 429 with a sentence
and a Retry-After header, while other people's programs go on; concurrent
requests are counted exactly, in local memory and on Redis."""

from __future__ import annotations

import json
import threading
import time

import pytest
from asgiref.sync import async_to_sync
from channels.testing import HttpCommunicator
from django.core.cache import caches

from researchmind.ratelimit import RateLimited, check_token_rate
from researchmind.tokens import token_create

pytestmark = pytest.mark.django_db(transaction=True)  # the server answers from its own threads
LOCAL = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "rate-tests"}}
REDIS = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://127.0.0.1:6379/12",
    }
}


@pytest.fixture(params=["local", "redis"])
def cache_settings(request, settings):
    settings.CACHES = LOCAL if request.param == "local" else REDIS
    caches["default"].clear()
    yield settings
    caches["default"].clear()


class Answer:
    """An HTTP response from the ASGI application, as the server sends it."""

    def __init__(self, response: dict) -> None:
        self.status_code = response["status"]
        self.headers = {name.decode().lower(): value.decode() for name, value in response["headers"]}
        self.body = response["body"]

    def __getitem__(self, name: str) -> str:
        return self.headers[name.lower()]

    def json(self):
        return json.loads(self.body)


def _get(token: str, path: str = "/api/sessions") -> Answer:
    """A GET through the whole server (researchmind.asgi), as daphne serves it."""
    from researchmind.asgi import application

    async def call():
        headers = [(b"host", b"127.0.0.1"), (b"authorization", f"Bearer {token}".encode())]
        return await HttpCommunicator(application, "GET", path, headers=headers).get_response(timeout=30)

    return Answer(async_to_sync(call)())


def test_a_token_over_its_rate_gets_a_json_429_with_retry_after(cache_settings, user, other_user):
    cache_settings.API_RATE_PER_TOKEN = "5/60s"
    token = token_create(user=user, name="busy")[1]
    other = token_create(user=other_user, name="quiet")[1]
    assert [_get(token).status_code for _ in range(5)] == [200] * 5
    refused = _get(token)
    assert refused.status_code == 429
    assert refused["Content-Type"].startswith("application/json")
    assert refused.json()["detail"].startswith("Too many requests with this API token: try again in ")
    # The next window, then until this one's 5 weigh less than 4 (60 s x 1/5).
    assert 1 <= int(refused["Retry-After"]) <= 72
    assert f"try again in {refused['Retry-After']} second(s)" in refused.json()["detail"]
    assert _get(other).status_code == 200  # someone else's program goes on


def test_the_user_rate_spans_all_their_tokens(cache_settings, user, other_user):
    cache_settings.API_RATE_PER_USER = "4/60s"
    first, second = (token_create(user=user, name=name)[1] for name in ("one", "two"))
    assert [_get(first).status_code for _ in range(2)] == [200, 200]
    assert [_get(second).status_code for _ in range(2)] == [200, 200]
    refused = _get(second)
    assert refused.status_code == 429 and "Too many requests by you" in refused.json()["detail"]
    assert _get(first).status_code == 429
    assert _get(token_create(user=other_user, name="theirs")[1]).status_code == 200


def test_refused_requests_do_not_push_the_wait_further(cache_settings, user):
    """Hammering after a 429 is not counted: each later Retry-After is at most
    the first (counted, 20 refusals would add about 6 s to it)."""
    cache_settings.API_RATE_PER_TOKEN = "3/10s"
    token = token_create(user=user, name="hammering")[1]
    while (first := _get(token)).status_code == 200:
        pass
    hammered = [_get(token) for _ in range(20)]
    assert {response.status_code for response in hammered} == {429}
    assert max(int(response["Retry-After"]) for response in hammered) <= int(first["Retry-After"])


def test_waiting_as_retry_after_says_gets_through(cache_settings, user):
    cache_settings.API_RATE_PER_TOKEN = "3/2s"
    token = token_create(user=user, name="patient")[1]
    while (refused := _get(token)).status_code == 200:
        pass
    time.sleep(int(refused["Retry-After"]))
    assert _get(token).status_code == 200


def test_limits_are_off_by_setting(cache_settings, user):
    cache_settings.API_RATE_PER_TOKEN = cache_settings.API_RATE_PER_USER = "off"
    token = token_create(user=user, name="unlimited")[1]
    assert {_get(token).status_code for _ in range(30)} == {200}


def test_concurrent_requests_are_counted_exactly(cache_settings):
    """A burst from 40 threads at once against a limit of 10: exactly 10 pass."""
    cache_settings.API_RATE_PER_TOKEN = "10/60s"
    start = threading.Barrier(40)
    passed, refused = [], []

    def call():
        start.wait()
        try:
            check_token_rate("concurrent-token")
            passed.append(1)
        except RateLimited:
            refused.append(1)

    threads = [threading.Thread(target=call) for _ in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert (len(passed), len(refused)) == (10, 30)


def test_an_unreachable_cache_lets_requests_through(settings, user):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
        }
    }
    settings.API_RATE_PER_TOKEN = "1/60s"
    token = token_create(user=user, name="no cache")[1]
    assert [_get(token).status_code for _ in range(3)] == [200, 200, 200]


def test_the_schema_documents_the_429(client):
    schema = client.get("/api/openapi.json").json()
    assert "429" in schema["paths"]["/api/sessions"]["get"]["responses"]
