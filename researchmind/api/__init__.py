"""The JSON API (django-ninja): bearer-token auth, OpenAPI schema at
``/api/openapi.json``, docs at ``/api/docs``."""

from __future__ import annotations

from ninja import NinjaAPI

from researchmind.api.auth import TokenAuth
from researchmind.api.docs import ApiDocs, docs_csp
from researchmind.api.endpoints import content, questions, sessions, tokens, uploads
from researchmind.api.errors import install_error_handlers
from researchmind.pages import SOCKET_PREFIX

api = NinjaAPI(
    title="Research Mind API",
    version="1",
    description=(
        "Research sessions, their content, questions and verified citations. Authenticate with "
        "'Authorization: Bearer <token>' (create tokens at /tokens/). Follow a question's progress on the "
        f"websocket /{SOCKET_PREFIX}<id>/ (same token, header or subprotocol 'researchmind.bearer, <token>') "
        "or poll /api/questions/<id>/events?after=<seq>."
    ),
    auth=TokenAuth(),
    urls_namespace="api",
    docs=ApiDocs(),
    docs_decorator=docs_csp,
)
install_error_handlers(api)
api.add_router("", sessions.router)
# Before content: its literal …/content/uploaded must match before content's …/content/{content_id}.
api.add_router("", uploads.router)
api.add_router("", content.router)
api.add_router("", questions.router)
api.add_router("", tokens.router)
