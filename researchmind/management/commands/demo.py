"""Create (or refresh) the demo user and a ready demo research session."""

from __future__ import annotations

import contextlib
import io
import os
import zipfile
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from core.ingest import DEFAULT_LIMITS, ingest_files, ingest_text, ingest_zip
from researchmind import services
from researchmind.models import ContentItem, Question, ResearchSession
from researchmind.runs import run_question

DEMO_DIR = Path(__file__).resolve().parents[2] / "demo"
DEMO_TITLE = "Demo: authentication and operations notes"
DEMO_QUESTION = "How long do refresh tokens live, and what happens when one is reused?"


def _served_at() -> str:
    """Where the app is served when no --url is given: PORT (as hosts set it), else Django's default."""
    return f"http://127.0.0.1:{os.environ.get('PORT') or '8000'}"


class Command(BaseCommand):
    help = "Create the demo user (printing its login) and a demo research session with content and an answered question."

    def add_arguments(self, parser):
        parser.add_argument("--username", default="demo")
        parser.add_argument("--password", default=os.environ.get("DEMO_PASSWORD", "research-mind-demo"))
        parser.add_argument("--no-question", action="store_true", help="Do not ask the demo question.")
        parser.add_argument(
            "--url",
            default=os.environ.get("RESEARCHMIND_URL") or _served_at(),
            help="Where the app is served, for the printed links "
            "(default: RESEARCHMIND_URL, else http://127.0.0.1:PORT, else port 8000; `make run` passes it).",
        )

    def handle(self, *args, username, password, no_question, url, **options):
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
            self._add_demo_content(session)
        if not no_question and not session.questions.exists():
            question = Question.objects.create(session=session, text=DEMO_QUESTION, engine="builtin")
            run_question(question.pk)

        self.stdout.write(self.style.SUCCESS("Demo research session ready."))
        base = url.rstrip("/")
        self.stdout.write(f"  Sign in at {base}/login/ as  {username} / {password}")
        self.stdout.write(f"  Session:  {base}/sessions/{session.id}/")
        self.stdout.write(f"  Admin (citation audit): {base}/admin/")

    def _add_demo_content(self, session) -> None:
        """Three kinds of content from files shipped in the repo (no network):
        pasted text, uploaded files, and a zip archive built from a folder."""
        staging = session.state_path / "staging"  # private: never inside the sandbox
        for kind, title, work in (
            (ContentItem.Kind.TEXT, None, self._text_work(DEMO_DIR / "auth-design.md", staging)),
            (
                ContentItem.Kind.FILE,
                "Incident review (uploaded)",
                self._files_work([DEMO_DIR / "incident-2026-03.md"], staging),
            ),
            (ContentItem.Kind.ARCHIVE, "Runbooks (zip)", self._zip_work(DEMO_DIR / "runbooks", staging)),
        ):
            item = services.content_start(session=session, kind=kind, title=title or "")
            item = services.content_run(item, work)
            if item.status != ContentItem.Status.READY:
                raise CommandError(f"The demo content {item} could not be added: {item.error}")

    @staticmethod
    def _text_work(path: Path, staging: Path):
        text = path.read_text(encoding="utf-8")
        title = text.splitlines()[0].lstrip("# ").strip()
        return lambda dest, progress: ingest_text(dest, title=title, markdown=text, staging_root=staging)

    @staticmethod
    def _files_work(paths: list[Path], staging: Path):
        def work(dest, progress):
            with contextlib.ExitStack() as stack:
                files = [(p.name, stack.enter_context(p.open("rb"))) for p in paths]
                return ingest_files(
                    dest, files, limits=DEFAULT_LIMITS, progress=progress, staging_root=staging
                )

        return work

    @staticmethod
    def _zip_work(folder: Path, staging: Path):
        def work(dest, progress):
            buffer = io.BytesIO()
            with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
                for path in sorted(folder.rglob("*.md")):
                    archive.write(path, f"runbooks/{path.relative_to(folder)}")
            buffer.seek(0)
            return ingest_zip(dest, buffer, limits=DEFAULT_LIMITS, progress=progress, staging_root=staging)

        return work
