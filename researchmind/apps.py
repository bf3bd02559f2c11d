from __future__ import annotations

from django.apps import AppConfig


class ResearchMindConfig(AppConfig):
    name = "researchmind"
    verbose_name = "Research Mind"
    default_auto_field = "django.db.models.BigAutoField"
