from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import path

from researchmind.api import api
from researchmind.views import (
    content,
    documents,
    engines,
    fanout,
    files,
    questions,
    sessions,
    tokens,
    uploads,
)

handler404 = "researchmind.views.errors.page_not_found"  # Django's "No X matches" in plain words

urlpatterns = [
    path("", sessions.home, name="home"),
    path("login/", auth_views.LoginView.as_view(template_name="registration/login.html"), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("sessions/", sessions.session_list, name="sessions"),
    path("settings/engines/", engines.engine_settings_page, name="engine_settings"),
    path("settings/engines/<str:name>/test/", engines.engine_test, name="engine_test"),
    path("settings/engines/checks/<int:pk>/", engines.engine_check, name="engine_check"),
    path("settings/engines/providers/new/", engines.provider_add, name="provider_add"),
    path("settings/engines/providers/<int:pk>/", engines.provider_edit, name="provider_edit"),
    path("settings/engines/providers/<int:pk>/delete/", engines.provider_delete, name="provider_delete"),
    path("sessions/new/", sessions.session_create, name="session_create"),
    path("sessions/<uuid:session_id>/", sessions.session_detail, name="session_detail"),
    path("sessions/<uuid:session_id>/delete/", sessions.session_delete, name="session_delete"),
    path("sessions/<uuid:session_id>/content/", content.content_list, name="content_list"),
    path("sessions/<uuid:session_id>/content/<str:kind>/", content.content_add, name="content_add"),
    path(
        "sessions/<uuid:session_id>/content/<str:kind>/uploaded/", uploads.upload_finish, name="upload_finish"
    ),
    path("sessions/<uuid:session_id>/uploads/", uploads.upload_start, name="upload_start"),
    path("sessions/<uuid:session_id>/uploads/<str:upload_id>/", uploads.upload_detail, name="upload_detail"),
    path(
        "sessions/<uuid:session_id>/content/item/<uuid:content_id>/delete/",
        content.content_delete,
        name="content_delete",
    ),
    path(
        "sessions/<uuid:session_id>/content/item/<uuid:content_id>/original/",
        content.content_original,
        name="content_original",
    ),
    path(
        "sessions/<uuid:session_id>/content/item/<uuid:content_id>/original/<path:path>",
        content.content_document_original,
        name="content_document_original",
    ),
    path("sessions/<uuid:session_id>/ask/", questions.question_ask, name="question_ask"),
    path(
        "sessions/<uuid:session_id>/questions/<int:question_id>/",
        questions.question_detail,
        name="question_detail",
    ),
    path(
        "sessions/<uuid:session_id>/questions/<int:question_id>/cancel/",
        questions.question_cancel,
        name="question_cancel",
    ),
    path(
        "sessions/<uuid:session_id>/questions/<int:question_id>/retry/",
        questions.question_retry,
        name="question_retry",
    ),
    path(
        "sessions/<uuid:session_id>/questions/<int:question_id>/follow-up/",
        questions.question_follow_up,
        name="question_follow_up",
    ),
    path(
        "sessions/<uuid:session_id>/questions/<int:question_id>/answer/",
        questions.question_answer,
        name="question_answer",
    ),
    path(
        "sessions/<uuid:session_id>/questions/<int:question_id>/timeline/",
        questions.question_timeline,
        name="question_timeline",
    ),
    path("sessions/<uuid:session_id>/ask-across/", fanout.fanout_ask, name="fanout_ask"),
    path("tokens/", tokens.token_list, name="tokens"),
    path("tokens/<int:token_id>/revoke/", tokens.token_revoke, name="token_revoke"),
    path("api/", api.urls),
    path(
        "sessions/<uuid:session_id>/files/<uuid:content_id>/<path:file_path>",
        files.file_viewer,
        name="file_viewer",
    ),
    path(
        "sessions/<uuid:session_id>/raw/<uuid:content_id>/<path:file_path>", files.file_raw, name="file_raw"
    ),
    path(
        "sessions/<uuid:session_id>/pages/<uuid:content_id>/<path:file_path>",
        documents.document_page,
        name="document_page",
    ),
    path(
        "sessions/<uuid:session_id>/page-image/<uuid:content_id>/<int:page>/<path:file_path>",
        documents.document_page_image,
        name="document_page_image",
    ),
    path("citations/<int:citation_id>/feedback/", files.citation_feedback, name="citation_feedback"),
    path("admin/", admin.site.urls),
]
