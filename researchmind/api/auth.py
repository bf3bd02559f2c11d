"""Bearer-token authentication for the JSON API.

Only ``Authorization: Bearer <token>`` is accepted: the API never looks at
the session cookie, so a browser cannot be tricked into calling it (no CSRF
to defend) and a signed-in page cannot use it by accident. Every request a
token makes counts against its rate and its user's (``researchmind.ratelimit``)."""

from __future__ import annotations

from ninja.security import HttpBearer

from researchmind.ratelimit import check_user_rate
from researchmind.tokens import INVALID, note_token_used, present_token

MISSING_CREDENTIALS = (
    "Authentication is required: send an 'Authorization: Bearer <token>' header with an API token "
    "(create one on the API tokens page, /tokens/)."
)
INVALID_CREDENTIALS = INVALID


class TokenAuth(HttpBearer):
    openapi_description = (
        "An API token from the API tokens page (/tokens/), sent as 'Authorization: Bearer <token>'."
    )

    def authenticate(self, request, token: str):
        presented = present_token(token, note_use=False)
        if presented.user is None:
            request.api_auth_error = presented.refusal
            return None
        # The token's own rate was counted before Django ran (ApiRateEdge); the
        # user's, over all their tokens, before any write.
        check_user_rate(presented.user.pk)
        note_token_used(presented.token)
        request.api_token = presented.token
        return presented.user


def auth_error_message(request) -> str:
    return getattr(request, "api_auth_error", MISSING_CREDENTIALS)
