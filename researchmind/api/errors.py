"""One error shape for every failure: ``{"detail": "A clear sentence."}``,
with ``errors`` listing the fields at fault on validation errors."""

from __future__ import annotations

import logging

from django.http import Http404
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, ValidationError

from researchmind.api.auth import auth_error_message
from researchmind.ratelimit import RateLimited
from researchmind.services import DISK_FULL, disk_full

log = logging.getLogger(__name__)
UNEXPECTED = "The server could not answer this request: an unexpected error (logged for its administrator)."


class ApiError(Exception):
    def __init__(self, status: int, detail: str, errors: list[dict] | None = None) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.errors = errors


def not_found(what: str) -> ApiError:
    # The same sentence whether the object does not exist or is someone
    # else's: a 404 never tells which.
    return ApiError(404, f"No {what} with that id was found among yours.")


def form_error(form) -> ApiError:
    errors = [
        {"field": field if field != "__all__" else "", "message": str(message)}
        for field, messages in form.errors.items()
        for message in messages
    ]
    summary = "; ".join(f"{e['field']}: {e['message']}" if e["field"] else e["message"] for e in errors[:3])
    return ApiError(422, f"The request is not valid: {summary}", errors)


def _location(loc) -> str:
    parts = [str(part) for part in loc]
    if parts and parts[0] in {"body", "query", "path", "form", "file"} and len(parts) > 1:
        parts = parts[1:]
    if parts and parts[0] in {"payload", "data", "filters", "pagination"} and len(parts) > 1:
        parts = parts[1:]
    return ".".join(parts)


def install_error_handlers(api: NinjaAPI) -> None:
    def respond(request, status: int, detail: str, errors: list[dict] | None = None, **headers):
        body = {"detail": detail} if errors is None else {"detail": detail, "errors": errors}
        response = api.create_response(request, body, status=status)
        for name, value in headers.items():
            response[name.replace("_", "-")] = value
        return response

    @api.exception_handler(ApiError)
    def api_error(request, exc: ApiError):
        return respond(request, exc.status, exc.detail, exc.errors)

    @api.exception_handler(ValidationError)
    def validation_error(request, exc: ValidationError):
        errors = [
            {"field": _location(e.get("loc", ())), "message": str(e.get("msg", "is not valid"))}
            for e in exc.errors
        ]
        summary = "; ".join(f"{e['field']}: {e['message']}" for e in errors[:3])
        return respond(request, 422, f"The request is not valid: {summary}", errors)

    @api.exception_handler(AuthenticationError)
    def authentication_error(request, exc: AuthenticationError):
        return respond(request, 401, auth_error_message(request), WWW_Authenticate='Bearer realm="api"')

    @api.exception_handler(RateLimited)
    def rate_limited(request, exc: RateLimited):
        return respond(request, 429, str(exc), Retry_After=exc.retry_after)

    @api.exception_handler(Http404)
    def http404(request, exc: Http404):
        return respond(request, 404, "Nothing was found at this address.")

    @api.exception_handler(HttpError)
    def http_error(request, exc: HttpError):
        message = str(exc)
        if exc.status_code == 400 and message.startswith("Cannot parse request body"):
            message = "The request body could not be read: send JSON (or multipart form data for uploads)."
        return respond(request, exc.status_code, message)

    @api.exception_handler(Exception)
    def unexpected(request, exc: Exception):
        # Never Django's HTML error page on the API: a full disk says so
        # (507 Insufficient Storage), anything else is a 500 with a sentence.
        if disk_full(exc):
            log.warning("Refused %s %s: the disk is full", request.method, request.path, exc_info=exc)
            return respond(request, 507, DISK_FULL)
        log.error("Unexpected error on %s %s", request.method, request.path, exc_info=exc)
        return respond(request, 500, UNEXPECTED)
