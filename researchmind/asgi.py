"""ASGI entry point: HTTP through Django, websockets through Channels."""

from __future__ import annotations

import asyncio
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchmind.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from researchmind import runs, services  # noqa: E402
from researchmind.ratelimit import ApiRateEdge  # noqa: E402
from researchmind.routing import websocket_urlpatterns  # noqa: E402
from researchmind.runs import contentjobs  # noqa: E402
from researchmind.tokens import TokenAuthMiddleware  # noqa: E402

router = ProtocolTypeRouter(
    {
        "http": ApiRateEdge(django_asgi_app),
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(TokenAuthMiddleware(URLRouter(websocket_urlpatterns)))
        ),
    }
)


class ResearchMindASGI:
    """Remembers the server's event loop (the embedded executor runs
    questions on it, beside the consumers of the in-memory channel layer) and
    starts the sweepers that mark runs of dead processes interrupted and
    recover the ingests they left (``services.content_recover``)."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self._started = False

    async def __call__(self, scope, receive, send):
        if not self._started:
            self._started = True
            loop = asyncio.get_running_loop()
            runs.remember_server_loop(loop)
            runs.keep_task(loop.create_task(runs.sweeper()))
            runs.keep_task(loop.create_task(services.content_sweeper()))
            contentjobs.warm()
        return await self.inner(scope, receive, send)


application = ResearchMindASGI(router)
