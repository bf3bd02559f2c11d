"""Sessions live in the database; the cache (Redis in scale-out) only keeps a
session the full disk would not take. With the cache unreachable, people stay
signed in and pages answer: a real Redis client pointed at a loopback port
nobody listens on, as when Redis is stopped."""

from __future__ import annotations

import socket

import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings

pytestmark = pytest.mark.django_db


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # closed again when the probe is


@pytest.fixture
def unreachable_cache():
    location = f"redis://127.0.0.1:{_closed_port()}/0"
    with override_settings(
        CACHES={"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": location}}
    ):
        from django.core.cache import caches
        from redis.exceptions import ConnectionError as RedisConnectionError

        with pytest.raises(RedisConnectionError):  # the cache really is unreachable
            caches["default"].get("anything")
        yield


def test_a_signed_in_page_answers_while_the_cache_is_unreachable(client, unreachable_cache):
    user = get_user_model().objects.create_user("reader", password="a long enough password")
    client.force_login(user)

    page = client.get("/sessions/")

    assert page.status_code == 200
    assert page.wsgi_request.user == user


def test_signing_in_and_out_work_while_the_cache_is_unreachable(client, unreachable_cache):
    get_user_model().objects.create_user("reader", password="a long enough password")

    signed_in = client.post("/login/", {"username": "reader", "password": "a long enough password"})
    assert signed_in.status_code == 302
    assert client.get("/sessions/").status_code == 200

    signed_out = client.post("/logout/")
    assert signed_out.status_code in (200, 302)
    assert client.get("/sessions/").status_code == 302  # to the sign-in page
