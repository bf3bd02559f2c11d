"""API tokens from a program: list yours, and make one (for instance a
short-lived one for a job). A token made here is revoked with the token that
made it and never outlives it; revoking is on the API tokens page (/tokens/)."""

# No `from __future__ import annotations` here: django-ninja reads these
# signatures at runtime.

from ninja import Router
from ninja.pagination import paginate
from ninja.responses import Status

from researchmind.api.access import Pages
from researchmind.api.errors import ApiError
from researchmind.api.schemas import ERRORS, TokenCreatedOut, TokenIn, TokenOut
from researchmind.models import ApiToken
from researchmind.tokens import TokenRefused, token_create

router = Router(tags=["tokens"])


@router.get("/tokens", response={200: list[TokenOut], **ERRORS}, summary="List your API tokens")
@paginate(Pages, page_size=20)
def token_list(request):
    return ApiToken.objects.filter(user=request.auth)


@router.post("/tokens", response={201: TokenCreatedOut, **ERRORS}, summary="Create an API token")
def token_make(request, payload: TokenIn):
    try:
        token, plaintext = token_create(
            user=request.auth,
            name=payload.name,
            expires_in_days=payload.expires_in_days,
            parent=request.api_token,
        )
    except TokenRefused as error:
        raise ApiError(422, str(error)) from None
    return Status(201, {**TokenOut.from_orm(token).dict(), "token": plaintext})
