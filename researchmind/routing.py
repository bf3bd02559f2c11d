from __future__ import annotations

from django.urls import path

from researchmind.consumers import QuestionConsumer
from researchmind.pages import SOCKET_ROUTE

websocket_urlpatterns = [
    path(SOCKET_ROUTE, QuestionConsumer.as_asgi()),
]
