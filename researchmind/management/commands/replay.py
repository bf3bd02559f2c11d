"""Replay a recorded stream-json transcript through the live pipeline.

``python manage.py replay TRANSCRIPT.jsonl [--sandbox DIR] [--json]`` creates a
research session (its sandbox a copy of DIR, whose manifest ids become
content items), records one question from the transcript through the same
parser, recorder and citation pipeline as a live run and, with ``--json``,
prints the report README.md describes ("Management commands")."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from core import sandbox as sandbox_mod
from core.engines.replay import ReplayEngine
from researchmind import services
from researchmind.models import ContentItem, Question, ResearchSession
from researchmind.runs import run_question_with
from researchmind.serializers import replay_report


class Command(BaseCommand):
    help = "Replay a recorded stream-json transcript as a question of a new research session."

    def add_arguments(self, parser):
        parser.add_argument("transcript")
        parser.add_argument("--sandbox", help="A folder to copy as the session's sandbox.")
        parser.add_argument("--json", action="store_true", help="Print the result as one JSON object.")
        parser.add_argument(
            "--timing", action="store_true", help="Replay with the transcript's original timing."
        )
        parser.add_argument("--question", default="", help="The question text to record.")
        parser.add_argument("--username", default="replay")

    def handle(self, *args, transcript, sandbox, json: bool, timing, question, username, **options):
        path = Path(transcript)
        if not path.is_file():
            raise CommandError(f"No transcript at {path}.")
        if sandbox and not Path(sandbox).is_dir():
            raise CommandError(f"The sandbox folder {sandbox} does not exist.")
        user, _ = get_user_model().objects.get_or_create(username=username)
        session = ResearchSession.objects.create(owner=user, title=f"Replay of {path.name}", engine="replay")
        if sandbox:
            shutil.copytree(sandbox, session.sandbox_path, symlinks=True, dirs_exist_ok=True)
            for content_id, meta in sandbox_mod.read_manifest(session.sandbox_path).items():
                try:
                    uid = uuid.UUID(content_id)
                except ValueError:
                    continue
                folder = session.sandbox_path / content_id
                files = [p for p in folder.rglob("*") if p.is_file()] if folder.is_dir() else []
                ContentItem.objects.create(
                    id=uid,
                    session=session,
                    kind=meta.get("kind") or ContentItem.Kind.FILE,
                    title=str(meta.get("title") or "")[:300],
                    source_url=str(meta.get("source_url") or "")[:2000],
                    status=ContentItem.Status.READY,
                    file_count=len(files),
                    byte_size=sum(p.stat().st_size for p in files),
                )
        services.sandbox_refresh(session)
        q = Question.objects.create(
            session=session, text=question or f"Replay of {path.name}", engine="replay"
        )
        run_question_with(q.pk, ReplayEngine(path, timing=timing))
        q.refresh_from_db()
        if json:
            self.stdout.write(_dumps(replay_report(q)))
        else:
            self.stdout.write(
                f"Question {q.pk}: {q.status}, {q.events.count()} events, {q.citations.count()} citations."
            )


def _dumps(data) -> str:
    return json.dumps(data, ensure_ascii=False)
