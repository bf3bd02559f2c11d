"""Bring the built-in engine's search index of one or all sessions up to date."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from core.engines.builtin.index import build_index
from researchmind.models import ResearchSession


class Command(BaseCommand):
    help = "Update the built-in engine's search index (incremental) for --session ID or every session."

    def add_arguments(self, parser):
        parser.add_argument("--session", help="A research session id.")

    def handle(self, *args, session, **options):
        sessions = ResearchSession.objects.all()
        if session:
            sessions = sessions.filter(pk=session)
        for s in sessions:
            if not s.sandbox_path.is_dir():
                continue
            stats = build_index(s.sandbox_path, state=s.state_path)
            self.stdout.write(f"{s.title}: {stats}")
