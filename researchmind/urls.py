from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from researchmind import views, views_fanout, views_tokens
from researchmind.api import api

urlpatterns = [
    path("", views.home, name="home"),
    path("login/", auth_views.LoginView.as_view(template_name="registration/login.html"), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("sessions/", views.session_list, name="sessions"),
    path("sessions/new/", views.session_create, name="session_create"),
    path("sessions/<uuid:session_id>/", views.session_detail, name="session_detail"),
    path("sessions/<uuid:session_id>/delete/", views.session_delete, name="session_delete"),
    path("sessions/<uuid:session_id>/content/", views.content_list, name="content_list"),
    path("sessions/<uuid:session_id>/content/<str:kind>/", views.content_add, name="content_add"),
    path(
        "sessions/<uuid:session_id>/content/item/<uuid:content_id>/delete/",
        views.content_delete,
        name="content_delete",
    ),
    path("sessions/<uuid:session_id>/ask/", views.question_ask, name="question_ask"),
    path(
        "sessions/<uuid:session_id>/questions/<int:question_id>/",
        views.question_detail,
        name="question_detail",
    ),
    path(
        "sessions/<uuid:session_id>/questions/<int:question_id>/cancel/",
        views.question_cancel,
        name="question_cancel",
    ),
    path(
        "sessions/<uuid:session_id>/questions/<int:question_id>/retry/",
        views.question_retry,
        name="question_retry",
    ),
    path(
        "sessions/<uuid:session_id>/questions/<int:question_id>/answer/",
        views.question_answer,
        name="question_answer",
    ),
    path(
        "sessions/<uuid:session_id>/questions/<int:question_id>/timeline/",
        views.question_timeline,
        name="question_timeline",
    ),
    path("sessions/<uuid:session_id>/ask-across/", views_fanout.fanout_ask, name="fanout_ask"),
    path(
        "sessions/<uuid:session_id>/questions/<int:question_id>/lanes/",
        views_fanout.fanout_lanes,
        name="fanout_lanes",
    ),
    path("tokens/", views_tokens.token_list, name="tokens"),
    path("tokens/<int:token_id>/revoke/", views_tokens.token_revoke, name="token_revoke"),
    path("api/", api.urls),
    path("", include("citations.urls")),
    path("admin/", admin.site.urls),
]
