"""Bearer-token authentication for the JSON API.

Only ``Authorization: Bearer <token>`` is accepted: the API never looks at
the session cookie, so a browser cannot be tricked into calling it (no CSRF
to defend) and a signed-in page cannot use it by accident."""

from __future__ import annotations

from ninja.security import HttpBearer

from researchmind.tokens import user_for_token

MISSING_CREDENTIALS = (
    "Authentication is required: send an 'Authorization: Bearer <token>' header with an API token "
    "(create one on the API tokens page, /tokens/)."
)
INVALID_CREDENTIALS = "The API token is not valid: it is unknown, revoked, or its user is inactive."


class TokenAuth(HttpBearer):
    openapi_description = (
        "An API token from the API tokens page (/tokens/), sent as 'Authorization: Bearer <token>'."
    )

    def authenticate(self, request, token: str):
        user = user_for_token(token)
        if user is None:
            request.api_auth_error = INVALID_CREDENTIALS
            return None
        return user


def auth_error_message(request) -> str:
    return getattr(request, "api_auth_error", MISSING_CREDENTIALS)
