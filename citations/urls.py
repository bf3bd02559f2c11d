from __future__ import annotations

from django.urls import path

from citations import views

urlpatterns = [
    path(
        "sessions/<uuid:session_id>/files/<uuid:content_id>/<path:file_path>",
        views.file_viewer,
        name="file_viewer",
    ),
    path(
        "sessions/<uuid:session_id>/raw/<uuid:content_id>/<path:file_path>", views.file_raw, name="file_raw"
    ),
    path("citations/<int:citation_id>/feedback/", views.citation_feedback, name="citation_feedback"),
]
