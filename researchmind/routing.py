from __future__ import annotations

from django.urls import path

from researchmind.consumers import QuestionConsumer

websocket_urlpatterns = [
    path("ws/questions/<int:question_id>/", QuestionConsumer.as_asgi()),
]
