from __future__ import annotations

from django.apps import AppConfig


class CitationsConfig(AppConfig):
    name = "citations"
    verbose_name = "Citations"
    default_auto_field = "django.db.models.BigAutoField"
