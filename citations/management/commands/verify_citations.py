"""Verify citations again against the sandbox: all, one session's or one question's."""

from __future__ import annotations

from collections import Counter

from django.core.management.base import BaseCommand

from citations.models import Citation
from citations.services import citations_reverify


class Command(BaseCommand):
    help = "Verify citations again against the sandbox (all, --session ID or --question ID)."

    def add_arguments(self, parser):
        parser.add_argument("--session", help="A research session id.")
        parser.add_argument("--question", type=int, help="A question id.")

    def handle(self, *args, session, question, **options):
        qs = Citation.objects.all()
        if session:
            qs = qs.filter(question__session_id=session)
        if question:
            qs = qs.filter(question_id=question)
        count = citations_reverify(qs)
        states = Counter(qs.values_list("verification", flat=True))
        summary = ", ".join(f"{state}: {n}" for state, n in sorted(states.items())) or "none"
        self.stdout.write(f"Verified {count} citation(s). {summary}")
