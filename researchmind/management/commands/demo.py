"""Create (or refresh) the demo user and a ready demo research session."""

from __future__ import annotations

import os
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from researchmind import services
from researchmind.ingest import ingest_text
from researchmind.models import ContentItem, Question, ResearchSession

DEMO_DIR = Path(__file__).resolve().parents[2] / "demo"
DEMO_TITLE = "Demo: authentication and operations notes"
DEMO_QUESTION = "How long do refresh tokens live, and what happens when one is reused?"


class Command(BaseCommand):
    help = "Create the demo user (printing its login) and a demo research session with content and an answered question."

    def add_arguments(self, parser):
        parser.add_argument("--username", default="demo")
        parser.add_argument("--password", default=os.environ.get("DEMO_PASSWORD", "research-mind-demo"))
        parser.add_argument("--no-question", action="store_true", help="Do not ask the demo question.")

    def handle(self, *args, username, password, no_question, **options):
        User = get_user_model()
        user, _created = User.objects.get_or_create(
            username=username, defaults={"email": f"{username}@example.com"}
        )
        user.set_password(password)
        # The demo user may open the admin: the citation audit lives there.
        user.is_staff = user.is_superuser = True
        user.save()

        session = ResearchSession.objects.filter(owner=user, title=DEMO_TITLE).first()
        if session is None:
            session = services.session_create(owner=user, title=DEMO_TITLE, engine="builtin")
            for path in sorted(DEMO_DIR.glob("*.md")):
                text = path.read_text(encoding="utf-8")
                title = text.splitlines()[0].lstrip("# ").strip()
                item = services.content_start(session=session, kind=ContentItem.Kind.TEXT, title=title)
                services.content_run(
                    item,
                    lambda dest, progress, text=text, title=title: ingest_text(
                        dest, title=title, markdown=text
                    ),
                )
        if not no_question and not session.questions.exists():
            from researchmind.runs import run_question

            question = Question.objects.create(session=session, text=DEMO_QUESTION, engine="builtin")
            run_question(question.pk)

        self.stdout.write(self.style.SUCCESS("Demo research session ready."))
        self.stdout.write(f"  Sign in at http://127.0.0.1:8000/login/ as  {username} / {password}")
        self.stdout.write(f"  Session:  http://127.0.0.1:8000/sessions/{session.id}/")
        self.stdout.write("  Admin (citation audit): http://127.0.0.1:8000/admin/")
