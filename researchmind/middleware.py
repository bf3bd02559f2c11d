"""Requests the server refuses before any view runs get the app's own answer.

Django raises ``RequestDataTooBig`` (and its relatives) the first time a view,
or the CSRF check, reads a form that is over the limits; left alone that is
Django's 400 page, or with ``DEBUG`` on its traceback, and the person's text
is gone. A multipart body Django cannot parse is a bare 400 the same way.
Reading the form here first turns it into a 413 (or 400) that says what
happened: a sentence for htmx (app.js shows it in the form, whose fields keep
what was typed), JSON for the API, a page for a plain form post.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParser, MultiPartParserError
from django.template.loader import render_to_string

FORM_TYPES = ("multipart/form-data", "application/x-www-form-urlencoded")
MALFORMED = "The upload could not be read: its multipart body is malformed. Nothing was saved."


# What a name with nothing visible in it becomes here: still nothing visible,
# so the ingest names the file "unnamed" and its note says so
# (``core.ingest.files.clean_filename``).
INVISIBLE_NAME = "\u2060"


class KeepingParser(MultiPartParser):
    """Django's parser drops a file whose name has no printable character
    left (zero-width marks, "."): the file is kept instead, for the ingest to
    name. A part sent with an empty name (no file chosen) is still no file."""

    def sanitize_file_name(self, file_name):
        return super().sanitize_file_name(file_name) or INVISIBLE_NAME


def refusal(exc: Exception) -> tuple[int, str]:
    """The status and sentence for a form the server would not read."""
    if isinstance(exc, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE / 1_048_576
        return 413, (
            f"This request is too large: its fields (files aside) may hold {limit:.0f} MB together. "
            "Nothing was saved. Add a long text as a file instead (the Files tab)."
        )
    if isinstance(exc, TooManyFilesSent):
        return 413, (
            f"Too many files in one go (at most {settings.DATA_UPLOAD_MAX_NUMBER_FILES}). Nothing was saved. "
            "Put them in a zip archive instead (the Zip tab)."
        )
    if isinstance(exc, MultiPartParserError):
        return 400, MALFORMED
    return 400, "This form has too many fields to read. Nothing was saved."


class RequestLimitsMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method in ("POST", "PUT", "PATCH"):
            try:
                # Django checks the limits when the body is read (JSON, url-encoded)
                # or its form fields parsed (multipart, whose files stream to disk).
                if request.content_type != "multipart/form-data":
                    request.body  # noqa: B018
                if request.content_type in FORM_TYPES:
                    request.multipart_parser_class = KeepingParser
                    request.POST  # noqa: B018 (parsed once here; views read the same QueryDict)
            except (RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent, MultiPartParserError) as exc:
                return self.refuse(request, exc)
        return self.get_response(request)

    def refuse(self, request, exc: Exception) -> HttpResponse:
        status, message = refusal(exc)
        if request.path.startswith("/api/"):
            return JsonResponse({"detail": message}, status=status)
        if request.headers.get("HX-Request") == "true":
            return HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")
        html = render_to_string(
            "errors/refused.html", {"status": status, "message": message}, request=request
        )
        return HttpResponse(html, status=status)
