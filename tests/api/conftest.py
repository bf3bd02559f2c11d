"""Fixtures for the API tests: a token for the user, and a Django test
client that sends it as ``Authorization: Bearer`` (never a cookie)."""

from __future__ import annotations

import pytest

NOTES = """# Token lifetimes

Access tokens expire after 15 minutes.
Refresh tokens live for 30 days and rotate on every use.
"""


class BearerClient:
    """Django's test client with a bearer token on every request."""

    def __init__(self, client, token: str) -> None:
        self.client = client
        self.headers = {"Authorization": f"Bearer {token}"}

    def get(self, path: str, **params):
        return self.client.get(path, params, headers=self.headers)

    def post(self, path: str, json: dict | None = None, *, data: dict | None = None):
        if data is not None:  # multipart
            return self.client.post(path, data, headers=self.headers)
        return self.client.post(path, json or {}, content_type="application/json", headers=self.headers)

    def delete(self, path: str):
        return self.client.delete(path, headers=self.headers)


@pytest.fixture
def token(user) -> str:
    from researchmind.tokens import token_create

    return token_create(user=user, name="tests")[1]


@pytest.fixture
def api(client, token) -> BearerClient:
    return BearerClient(client, token)


@pytest.fixture
def other_api(other_user) -> BearerClient:
    from django.test import Client

    from researchmind.tokens import token_create

    return BearerClient(Client(), token_create(user=other_user, name="other")[1])


@pytest.fixture
def notes_session(research, add_text):
    add_text(research, "Auth notes", NOTES)
    return research
