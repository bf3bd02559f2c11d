"""The Celery app: at scale, questions run on workers (``celery -A researchmind worker``)."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchmind.settings")

app = Celery("researchmind")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["researchmind.runs"])  # researchmind/runs/tasks.py
