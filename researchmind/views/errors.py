"""The site's 404 page in plain words: Django's ``get_object_or_404`` says
"No ResearchSession matches the given query.", a class name where a reader
expects the thing they were looking for."""

from __future__ import annotations

import re

from django.apps import apps
from django.http import Http404
from django.views import defaults

_DEFAULT_MESSAGE = re.compile(r"^No (\w+) matches the given query\.$")


def plain_message(message: str) -> str:
    """``message`` with Django's default "No <Model> matches …" said in words."""
    match = _DEFAULT_MESSAGE.match(message)
    if not match:
        return message
    noun = "page"
    for model in apps.get_models():
        if model.__name__ == match.group(1):
            noun = str(model._meta.verbose_name)
            break
    return f"This {noun} was not found: it may have been removed, or it belongs to another account."


def page_not_found(request, exception=None, template_name="404.html"):
    message = exception.args[0] if exception is not None and exception.args else ""
    if isinstance(message, str) and _DEFAULT_MESSAGE.match(message):
        exception = Http404(plain_message(message))
    return defaults.page_not_found(request, exception, template_name)
