from __future__ import annotations

from django.apps import AppConfig


class ProgressConfig(AppConfig):
    name = "progress"
    verbose_name = "Progress"
    default_auto_field = "django.db.models.BigAutoField"
