"""Add content to a research session from the command line, with a progress bar.

manage.py ingest SESSION text --title T FILE.md
manage.py ingest SESSION files PATH [PATH …]
manage.py ingest SESSION zip ARCHIVE.zip
manage.py ingest SESSION git URL_OR_PATH
manage.py ingest SESSION url https://…
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from core import ingest
from core.content_kinds import ADDED_AS, BY_ADDED_AS, ContentKind
from researchmind import services
from researchmind.models import ContentItem, ResearchSession


class ProgressBar:
    def __init__(self, stream) -> None:
        self.stream = stream

    def __call__(self, done: int, total: int | None, message: str) -> None:
        if total:
            filled = int(30 * min(done, total) / total)
            bar = f"[{'#' * filled}{'.' * (30 - filled)}] {100 * done // total:3d}%"
        else:
            bar = f"[{done:,}]"
        self.stream.write(f"\r{bar} {message[:60]:<60}")
        self.stream.flush()


class Command(BaseCommand):
    help = f"Add content ({', '.join(ADDED_AS)}) to a research session."

    def add_arguments(self, parser):
        parser.add_argument("session")
        parser.add_argument("kind", choices=sorted(ADDED_AS))
        parser.add_argument("sources", nargs="+")
        parser.add_argument("--title", default="")

    def handle(self, *args, session, kind, sources, title, **options):
        try:
            research = ResearchSession.objects.get(pk=session)
        except (ResearchSession.DoesNotExist, ValueError):
            raise CommandError(f"No research session {session}.") from None
        limits = services._limits()
        bar = ProgressBar(sys.stderr)
        allow = settings.INGEST_ALLOW_LOOPBACK
        staging = research.state_path / "staging"  # private: never inside the sandbox

        def documents(dest) -> Path:
            """Where the item's documents' originals and maps go (``ContentItem.documents_path``)."""
            return research.state_path / "documents" / Path(dest).name

        content_kind = BY_ADDED_AS[kind]
        if content_kind is ContentKind.TEXT:
            text = Path(sources[0]).read_text(encoding="utf-8")
            name = title or Path(sources[0]).stem
            work = lambda dest, progress: ingest.ingest_text(  # noqa: E731
                dest, title=name, markdown=text, staging_root=staging
            )
        elif content_kind is ContentKind.FILE:

            def work(dest, progress):
                with contextlib.ExitStack() as stack:
                    files = [(Path(s).name, stack.enter_context(open(s, "rb"))) for s in sources]
                    return ingest.ingest_files(
                        dest,
                        files,
                        limits=limits,
                        progress=_both(progress, bar),
                        staging_root=staging,
                        documents_dir=documents(dest),
                    )
        elif content_kind is ContentKind.ARCHIVE:

            def work(dest, progress):
                with open(sources[0], "rb") as handle:
                    return ingest.ingest_zip(
                        dest,
                        handle,
                        limits=limits,
                        progress=_both(progress, bar),
                        staging_root=staging,
                        documents_dir=documents(dest),
                    )
        elif content_kind is ContentKind.GIT_REPO:
            work = lambda dest, progress: ingest.ingest_git(  # noqa: E731
                dest,
                sources[0],
                limits=limits,
                progress=_both(progress, bar),
                allow_loopback=allow,
                staging_root=staging,
                documents_dir=documents(dest),
            )
        else:
            work = lambda dest, progress: ingest.ingest_url(  # noqa: E731
                dest,
                sources[0],
                limits=limits,
                progress=_both(progress, bar),
                allow_loopback=allow,
                staging_root=staging,
                original_dir=research.state_path / "originals" / Path(dest).name,
                documents_dir=documents(dest),
            )
        item = services.content_start(
            session=research,
            kind=content_kind,
            title=title,
            source_url=sources[0] if content_kind in (ContentKind.GIT_REPO, ContentKind.URL_SCRAPE) else "",
        )
        item = services.content_run(item, work)
        sys.stderr.write("\n")
        if item.status != ContentItem.Status.READY:
            raise CommandError(item.error)
        self.stdout.write(
            self.style.SUCCESS(
                f"Added {item} ({item.file_count} files, {item.byte_size:,} bytes) as {item.id}"
            )
        )


def _both(first, second):
    def report(done, total, message):
        first(done, total, message)
        second(done, total, message)

    return report
