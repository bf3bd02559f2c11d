"""Writes with side effects: sessions, their sandbox, content ingestion and questions.

Views and management commands call these; nothing here renders."""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import shutil
import uuid
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import DatabaseError, router, transaction
from django.db.models.deletion import Collector
from django.utils import timezone

from citations.models import Citation
from citations.services import citations_mark_source_removed, citations_mark_stale
from core import ingest, sandbox
from core.citations.verification.linestore import forget_content
from core.content_kinds import ADDED_AS, BY_ADDED_AS, ContentKind
from core.ingest import IngestError, Limits
from core.ingest.digest import folder_digest
from core.threads import resolve_follow_up
from researchmind import runs
from researchmind.celery import app
from researchmind.models import FANOUT_KEY, SUB_RUN_KEY, ContentItem, Question, ResearchSession
from researchmind.runs import contentjobs
from researchmind.runs.fanout import (
    MAX_CONCURRENCY,
    RESULT_TYPES,
    item_label,
    plan_runs,
    sub_prompt,
    unique_labels,
)
from researchmind.uploads import uploads_sweep

log = logging.getLogger(__name__)


# Sessions and their sandbox ---------------------------------------------


def session_create(*, owner, title: str, engine: str | None = None) -> ResearchSession:
    session = ResearchSession.objects.create(
        owner=owner,
        title=title.strip()[:200] or "Untitled research",
        engine=engine or settings.DEFAULT_ENGINE,
    )
    sandbox_refresh(session)
    return session


DISK_FULL = "The server's disk is full: nothing was saved. Delete what you no longer need, or ask the server's administrator to free space."


def disk_full(error: BaseException) -> bool:
    """Whether ``error`` says the disk (or the user's quota) is full: a write
    that failed with ENOSPC/EDQUOT, or the database's own words for it
    (SQLite: "database or disk is full"; PostgreSQL: SQLSTATE 53100)."""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        if isinstance(error, DatabaseError) and (
            "disk is full" in str(error) or getattr(error, "sqlstate", None) == "53100"
        ):
            return True
        if getattr(getattr(error, "__cause__", None), "sqlstate", None) == "53100":
            return True
        error = error.__cause__ or error.__context__
    return False


def session_delete(session: ResearchSession) -> None:
    """Delete the session, its sandbox and its private state folder. Its
    questions still running are stopped first and waited for (at most
    ``RUN_STOP_WAIT_SECONDS``; a run still going then stops by itself when it
    finds its rows gone)."""
    folders = (session.sandbox_path, session.state_path)
    try:
        still = runs_stop_before_delete(session)
    except DatabaseError as error:  # a full disk refuses even the stop flag: the runs see their rows go
        if not disk_full(error):
            raise
        still = ["(not asked: the disk is full)"]
    if still:
        log.warning("Deleting session %s while questions %s still stop", session.pk, still)
    pk = session.pk
    try:
        with transaction.atomic():
            ResearchSession.objects.filter(pk=pk).delete()
    except DatabaseError as error:
        if not disk_full(error):
            raise
        # The database needs room to delete (its journal): the session's own
        # folders go first, as they were about to, and free it.
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)
        ResearchSession.objects.filter(pk=pk).delete()
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)


def sandbox_refresh(session: ResearchSession) -> None:
    """Rewrite ``_content_manifest.json`` and ``CLAUDE.md`` from the ready
    content items; called whenever content changes."""
    items = {
        str(item.id): {
            "title": item.title,
            "source_url": item.source_url,
            "kind": item.kind,
            "added_at": item.added_at.isoformat(),
        }
        for item in session.content_items.filter(status=ContentItem.Status.READY).order_by("added_at")
    }
    sandbox.ensure_layout(session.sandbox_path)
    sandbox.write_manifest(session.sandbox_path, items)
    sandbox.write_instructions(session.sandbox_path, items)


# Content ----------------------------------------------------------------


def _limits():
    return Limits(
        max_total_bytes=settings.MAX_UPLOAD_BYTES,
        max_pdf_pages=settings.DOCUMENT_MAX_PDF_PAGES,
        ocr_page_timeout=settings.DOCUMENT_OCR_PAGE_TIMEOUT,
        ocr_max_pages=settings.DOCUMENT_OCR_MAX_PAGES,
        ocr_timeout=settings.DOCUMENT_OCR_TIMEOUT,
    )


def _progress_saver(item_id) -> Callable[[int, int | None, str], None]:
    last = [0.0]

    def report(done: int, total: int | None, message: str) -> None:
        now = timezone.now().timestamp()
        if now - last[0] < 0.3 and (total is None or done < total):
            return  # at most a few writes a second
        last[0] = now
        ContentItem.objects.filter(pk=item_id).update(
            progress_done=done, progress_total=total, progress_message=message[:200]
        )

    return report


def _staging_root(session: ResearchSession) -> Path:
    """Where an ingest writes before its folder moves into the sandbox: the
    session's private state, so an engine never reads a half-written ingest."""
    return session.state_path / "staging"


def content_start(
    *, session: ResearchSession, kind: str, title: str = "", source_url: str = ""
) -> ContentItem:
    return ContentItem.objects.create(
        session=session, kind=kind, title=title[:300], source_url=source_url[:2000]
    )


def content_run(item: ContentItem, work: Callable[..., object]) -> ContentItem:
    """Run one ingest into the item's folder and record the outcome. The
    ingest writes into a staging folder and renames it into place, so a
    failure leaves nothing behind."""
    dest = item.session.sandbox_path / str(item.id)
    sandbox.ensure_layout(item.session.sandbox_path)
    try:
        result = work(dest, progress=_progress_saver(item.pk))
    except IngestError as exc:
        _content_failed(item, str(exc))
    except Exception as exc:  # a bug must still leave a clear, failed item
        log.exception("Ingest of content %s failed", item.pk)
        _content_failed(item, f"The content could not be added: {exc.__class__.__name__}: {exc}")
    else:
        item.title = (item.title or getattr(result, "title", "") or "Untitled")[:300]
        item.source_url = item.source_url or getattr(result, "source_url", "") or ""
        item.file_count = result.file_count
        item.byte_size = result.byte_size
        item.status = ContentItem.Status.READY
        item.error = ""
        item.note = getattr(result, "note", "")
        item.progress_done = item.progress_total or item.progress_done
        item.progress_message = "Done"
        item.note = " ".join(filter(None, [item.note, _same_as_earlier(item, dest)]))
        item.save()
        sandbox_refresh(item.session)
        _flag_changed_citations(item.session)
    item.refresh_from_db()
    return item


def _same_as_earlier(item: ContentItem, folder: Path) -> str:
    """A sentence when ``item`` holds exactly the files of an earlier ready item
    of its session (the same upload twice), else "". Both are kept; the
    fingerprints live in the session's private state, one JSON of item → digest."""
    store = item.session.state_path / "digests.json"
    try:
        known = json.loads(store.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    ready = {
        str(pk): title
        for pk, title in item.session.content_items.filter(status=ContentItem.Status.READY)
        .exclude(pk=item.pk)
        .values_list("pk", "title")
    }
    known = {pk: digest for pk, digest in known.items() if pk in ready}  # removed items forgotten
    digest = folder_digest(folder)
    twin = next((pk for pk, other in known.items() if other == digest), None)
    known[str(item.pk)] = digest
    store.parent.mkdir(parents=True, exist_ok=True)
    partial_store = store.with_name(f"digests.{uuid.uuid4().hex}.tmp")
    partial_store.write_text(json.dumps(known), encoding="utf-8")
    partial_store.replace(store)  # never a torn file (two ingests may finish together)
    if twin is None:
        return ""
    return (
        f"Same files as “{ready[twin] or 'an earlier item'}”, added earlier: both are kept and searched; "
        "remove one if it was added twice by mistake."
    )


def _flag_changed_citations(session: ResearchSession) -> None:
    """Content changed: citations whose file is no longer what was verified
    are flagged for re-verification (their answer keeps its text)."""
    citations_mark_stale(Citation.objects.filter(question__session=session).exclude(file_sha256=""))


def _content_failed(item: ContentItem, message: str) -> None:
    shutil.rmtree(item.session.sandbox_path / str(item.id), ignore_errors=True)
    shutil.rmtree(item.documents_path, ignore_errors=True)
    item.status = ContentItem.Status.FAILED
    item.error = message
    item.save(update_fields=["status", "error"])


RESTARTED = "The server restarted while this was being added; add it again."


def content_enqueue(item: ContentItem, spec: dict) -> None:
    """Queue the ingest ``spec`` (``_job_work`` reads it) of ``item``: after
    commit, on this process's ingest pool, or as a Celery task when questions
    go to Celery; ``INGEST_SYNC`` runs it inline (tests, commands). Until a
    worker takes it the item shows "Queued"."""
    session_id, item_id = str(item.session_id), str(item.pk)
    celery = settings.RUN_EXECUTOR == "celery"
    queued_by = contentjobs.QUEUED_BY_CELERY if celery else contentjobs.this_process()
    contentjobs.write_job(item.session.state_path, item_id, spec, queued_by=queued_by)
    if getattr(settings, "INGEST_SYNC", False):
        content_job_run(session_id, item_id)
        return
    ContentItem.objects.filter(pk=item_id).update(progress_message="Queued")
    if celery:
        # By name (researchmind/runs/tasks.py defines it): the task calls back into this module.
        transaction.on_commit(
            lambda: app.send_task("researchmind.ingest_content", args=(session_id, item_id))
        )
    else:
        transaction.on_commit(lambda: contentjobs.submit(content_job_run, session_id, item_id))


def content_job_run(session_id: str, item_id: str) -> str:
    """Run the queued ingest of one content item, wherever it runs (a pool
    worker, a Celery worker, inline): claim it (once, however often it is
    delivered), run it, and remove its job and spooled upload."""
    state = Path(settings.STATE_ROOT) / session_id
    if not contentjobs.claim(state, item_id):
        return "taken"
    job = contentjobs.read_job(state, item_id)
    try:
        item = ContentItem.objects.select_related("session").filter(pk=item_id).first()
        if item is None or item.status != ContentItem.Status.PENDING:
            return "gone"  # removed while queued, or a late duplicate of a finished job
        if job is None:
            _content_failed(item, "The content could not be added: its queued upload is missing.")
            return "failed"
        ContentItem.objects.filter(pk=item_id).update(progress_message="Starting…")
        with contentjobs.renewing(state, item_id):
            # Built inside the run, so that even a job it cannot read fails its item clearly.
            item = content_run(item, lambda dest, progress: _job_work(item, job["spec"])(dest, progress))
        return item.status
    finally:
        if job is not None and job["spec"].get("spool"):
            shutil.rmtree(state / "uploads" / job["spec"]["spool"], ignore_errors=True)
        contentjobs.release(state, item_id)


def _job_work(item: ContentItem, spec: dict) -> Callable[..., object]:
    session = item.session
    limits, staging_root = _limits(), _staging_root(session)
    kind = spec["kind"]
    if kind == "text":
        return partial(_text_work, title=spec["title"], markdown=spec["markdown"], staging_root=staging_root)
    if kind == "git":
        return partial(
            _git_work,
            url=spec["url"],
            limits=limits,
            staging_root=staging_root,
            documents_dir=item.documents_path,
        )
    if kind == "url":
        originals = session.state_path / "originals" / str(item.id)
        return partial(
            _url_work,
            url=spec["url"],
            limits=limits,
            staging_root=staging_root,
            original_dir=originals,
            documents_dir=item.documents_path,  # a URL serving a PDF, .docx … is a document
        )
    spool = session.state_path / "uploads" / spec["spool"]
    ingest_one = ingest.ingest_files if kind == "files" else _zip_work
    return lambda dest, progress: ingest_one(
        dest,
        spooled_files(spool),
        limits=limits,
        progress=progress,
        staging_root=staging_root,
        documents_dir=item.documents_path,
    )


def _zip_work(dest, files, **options):
    for _name, handle in files:
        return ingest.ingest_zip(dest, handle, **options)
    raise IngestError("The uploaded archive is missing.")


def content_recover() -> int:
    """Pending items whose ingest's process is gone (a restart, a killed
    worker): one that had started is failed with ``RESTARTED`` and what it had
    half-written is removed (the input may be what stopped the process, so it
    is not run again); one still queued is queued again here. Items without a
    job (ingested inline by a command) are left to that command. Returns how
    many items it failed or queued again."""
    handled = 0
    for item in ContentItem.objects.filter(status=ContentItem.Status.PENDING).select_related("session"):
        state, item_id = item.session.state_path, str(item.pk)
        job = contentjobs.read_job(state, item_id)
        if job is None:
            continue
        owner = contentjobs.claim_owner(state, item_id)
        if owner is not None:
            if contentjobs.process_gone(owner[0], idle=owner[1]):
                _content_interrupted(item, job)
                handled += 1
        elif job["queued_by"] != contentjobs.QUEUED_BY_CELERY and contentjobs.process_gone(job["queued_by"]):
            content_enqueue(item, job["spec"])
            handled += 1
    return handled


def _content_interrupted(item: ContentItem, job: dict) -> None:
    # What the interrupted ingest half-wrote goes first: once the item reads
    # "failed", nothing of it is left (a page or a program may look at once).
    sandbox_root, state = item.session.sandbox_path, item.session.state_path
    leftovers = [
        *sandbox_root.glob(f".{item.pk}.incoming-*"),
        *(state / "staging").glob(f"{item.pk}-*"),
        *(state / "documents").glob(f".{item.pk}.incoming-*"),
        state / "originals" / str(item.pk),
    ]
    if job["spec"].get("spool"):
        leftovers.append(state / "uploads" / job["spec"]["spool"])
    for path in leftovers:
        shutil.rmtree(path, ignore_errors=True)
    _content_failed(item, RESTARTED)
    ContentItem.objects.filter(pk=item.pk).update(progress_message="")
    contentjobs.release(state, str(item.pk))


async def content_sweeper(interval: float = 10.0) -> None:
    """In each web process: recover interrupted ingests at startup, then every
    ``interval`` seconds; abandoned chunked uploads are removed with them."""
    while True:
        try:
            await sync_to_async(content_recover, thread_sensitive=False)()
        except Exception:
            log.warning("Recovering interrupted ingests failed", exc_info=True)
        try:
            await sync_to_async(uploads_sweep, thread_sensitive=False)()
        except Exception:
            log.warning("Removing abandoned uploads failed", exc_info=True)
        await asyncio.sleep(interval)


def content_delete(item: ContentItem) -> None:
    """Remove a content item: its citations first say their source was
    removed (excerpts kept), then its folder and row go."""
    session = item.session
    citations_mark_source_removed(item)
    shutil.rmtree(session.sandbox_path / str(item.id), ignore_errors=True)
    shutil.rmtree(item.documents_path, ignore_errors=True)
    forget_content(session.state_path, str(item.id))  # its files' line indexes
    item.delete()
    sandbox_refresh(session)
    _flag_changed_citations(session)


def spool_uploads(session: ResearchSession, uploads) -> Path:
    """Copy uploaded files out of the request into the session's private
    state folder (never its sandbox), so the background ingest can read them
    after the request ends."""
    folder = session.state_path / "uploads" / uuid.uuid4().hex
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for index, upload in enumerate(uploads):
            move_to = getattr(upload, "move_to", None)  # a finished chunked upload is on disk already
            if move_to is not None:
                move_to(folder / f"{index:05d}")
            else:
                with (folder / f"{index:05d}").open("wb") as out:
                    for chunk in upload.chunks():
                        out.write(chunk)
            (folder / f"{index:05d}.name").write_text(upload.name or f"file-{index}", encoding="utf-8")
    except BaseException:  # a full disk, a dropped request: no partial spool is left behind
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return folder


def spooled_files(folder: Path):
    """Yield ``(original name, open file)`` pairs from ``spool_uploads``."""
    for data in sorted(p for p in folder.iterdir() if not p.name.endswith(".name")):
        name = (folder / f"{data.name}.name").read_text(encoding="utf-8")
        with data.open("rb") as handle:
            yield name, handle


def content_add(session: ResearchSession, kind: str, data: dict) -> ContentItem:
    """Start adding content of ``kind`` (``text``, ``files``, ``zip``, ``git``
    or ``url``) from validated form data; the ingest runs in the background
    (inline with ``INGEST_SYNC``). Used by the pages and the JSON API."""
    content_kind = BY_ADDED_AS.get(kind)
    if content_kind is None:
        raise ValueError(f"Unknown content kind {kind!r}; expected one of {', '.join(ADDED_AS)}.")
    if content_kind is ContentKind.TEXT:
        item = content_start(session=session, kind=content_kind, title=data["title"])
        content_enqueue(item, {"kind": "text", "title": data["title"], "markdown": data["markdown"]})
    elif content_kind is ContentKind.FILE:
        files = data["files"]
        spool = spool_uploads(session, files)
        title = data.get("title") or (files[0].name if len(files) == 1 else f"{len(files)} files")
        item = content_start(session=session, kind=content_kind, title=title)
        content_enqueue(item, {"kind": "files", "spool": spool.name})
    elif content_kind is ContentKind.ARCHIVE:
        spool = spool_uploads(session, [data["archive"]])
        title = data.get("title") or data["archive"].name
        item = content_start(session=session, kind=content_kind, title=title)
        content_enqueue(item, {"kind": "zip", "spool": spool.name})
    elif content_kind is ContentKind.GIT_REPO:
        url = data["repository"]
        title = data.get("title") or url.rstrip("/").rsplit("/", 1)[-1]
        item = content_start(session=session, kind=content_kind, title=title, source_url=url)
        content_enqueue(item, {"kind": "git", "url": url})
    else:
        item = content_start(session=session, kind=content_kind, source_url=data["url"])
        content_enqueue(item, {"kind": "url", "url": data["url"]})
    return item


def _text_work(dest, progress, *, title, markdown, staging_root):
    return ingest.ingest_text(dest, title=title, markdown=markdown, staging_root=staging_root)


def _git_work(dest, progress, *, url, limits, staging_root, documents_dir):
    # A path on the server is only for the command line (or when explicitly
    # allowed): from the web it would let anyone copy any repository here.
    return ingest.ingest_git(
        dest,
        url,
        limits=limits,
        progress=progress,
        allow_local=settings.INGEST_ALLOW_LOCAL_GIT,
        allow_loopback=settings.INGEST_ALLOW_LOOPBACK,
        staging_root=staging_root,
        documents_dir=documents_dir,
    )


def _url_work(dest, progress, *, url, limits, staging_root, original_dir, documents_dir):
    return ingest.ingest_url(
        dest,
        url,
        limits=limits,
        progress=progress,
        allow_loopback=settings.INGEST_ALLOW_LOOPBACK,
        staging_root=staging_root,
        original_dir=original_dir,
        documents_dir=documents_dir,
    )


# Questions --------------------------------------------------------------

# The engines that search the follow-up rewritten to stand alone (``asked_as``);
# the others are given the whole thread (``runs.run.engine_prompt``).
REWRITES_FOLLOW_UPS = ("builtin",)


class ScopeError(ValueError):
    """A scope that names no item, or an id that is not a ready item of the session."""


def followable(questions):
    """The questions a follow-up may follow: not a fan-out's sub-runs (one rule
    for the page and the API)."""
    return questions.filter(parent__isnull=True)


def scope_of(session: ResearchSession, content_ids) -> list[ContentItem]:
    """The session's ready content items named by ``content_ids`` (in the
    order given, once each), or ``ScopeError`` naming the first id that is not
    one of them: another session's item is refused, never silently dropped."""
    ready = {str(item.pk): item for item in session.content_items.filter(status=ContentItem.Status.READY)}
    unknown = [content_id for content_id in content_ids if content_id not in ready]
    if unknown:
        raise ScopeError(f"no ready content item {unknown[0]} in this session.")
    if not content_ids:
        raise ScopeError("name at least one item.")
    return [ready[content_id] for content_id in dict.fromkeys(content_ids)]


def question_ask(
    *,
    session: ResearchSession,
    text: str,
    engine: str | None = None,
    model: str = "",
    follows: Question | None = None,
    scope: list[ContentItem] | None = None,
) -> Question:
    """Ask a question, or a follow-up in ``follows``'s thread (never a fan-out
    sub-run's: ``followable``): it is rewritten to stand alone for the built-in
    engine (``asked_as``, shown on the answer); the engines that read prose get
    the thread's earlier turns with it when it runs, so nothing is rewritten."""
    text = text.strip()
    engine = engine or session.engine
    asked_as = ""
    if follows is not None and follows.parent_id is not None:
        raise ValueError("A fan-out sub-run takes no follow-up: follow up its fan-out question instead.")
    if follows is not None and engine in REWRITES_FOLLOW_UPS:
        # Against the latest turn only: its question as searched and its answer ("those numbers").
        resolved = resolve_follow_up(text, follows.asked_as or follows.text, follows.answer or "")
        asked_as = resolved if resolved != text else ""
    question = Question.objects.create(
        session=session,
        text=text,
        engine=engine,
        model=model or "",
        follows=follows,
        thread_id=follows.thread_root_id if follows is not None else None,
        asked_as=asked_as,
        # A follow-up searches what the turn before it searched, unless told otherwise.
        scope=[str(item.pk) for item in scope]
        if scope is not None
        else list(follows.scope if follows else []),
    )
    ResearchSession.objects.filter(pk=session.pk).update(updated_at=timezone.now())
    runs.dispatch(question.pk)
    return question


def question_delete(question: Question) -> None:
    """Delete a question and what goes with it (its sub-runs; for a thread's
    first question, its follow-ups): those still running are stopped first and
    waited for (``runs_stop_before_delete``), as when their session is deleted."""
    runs_stop_before_delete(question)
    Question.objects.filter(pk=question.pk).delete()


def runs_stop_before_delete(obj: ResearchSession | Question) -> list[int]:
    """Stop the runs of every question deleting ``obj`` would delete, and wait
    for them (at most ``RUN_STOP_WAIT_SECONDS``); returns those still going.
    Called outside any transaction: a runner must see the stop flag committed."""
    if isinstance(obj, ResearchSession):
        questions = obj.questions.all()
    else:
        collector = Collector(using=router.db_for_write(Question))
        collector.collect([obj])
        questions = Question.objects.filter(pk__in=[q.pk for q in collector.data.get(Question, ())])
    return runs.questions_stop(questions, wait=settings.RUN_STOP_WAIT_SECONDS)


def question_retry(question: Question) -> Question:
    """Ask the same question again (after an interruption or error); a
    fan-out question is fanned out again over the same content items."""
    if question.is_fanout:
        fanout = question.fanout_spec
        items = list(
            question.session.content_items.filter(
                pk__in=fanout.get("items") or [], status=ContentItem.Status.READY
            )
        )
        return fanout_create(
            session=question.session,
            text=question.text,
            result_type=fanout["type"],
            items=items,
            every_pair=bool(fanout.get("every_pair", True)),
            checklist=fanout.get("checklist") or [],
            engine=question.engine,
            concurrency=fanout.get("concurrency", 2),
        )
    return question_ask(
        session=question.session,
        text=question.text,
        engine=question.engine,
        model=question.model,
        follows=question.follows,
        scope=question.scope_items(),  # [] is every item, as before
    )


def fanout_create(
    *,
    session: ResearchSession,
    text: str,
    result_type: str,
    items: Sequence[ContentItem],
    every_pair: bool = True,
    checklist: Sequence[str] = (),
    engine: str | None = None,
    concurrency: int = 2,
) -> Question:
    """Create the parent question and its sub-runs, then dispatch the parent."""
    if result_type not in RESULT_TYPES:
        raise ValueError(f"A fan-out question's result type must be one of {', '.join(RESULT_TYPES)}.")
    checklist = [line.strip() for line in checklist if line.strip()]
    scopes = plan_runs(result_type, list(items), every_pair=every_pair)
    if not scopes:
        raise ValueError("A fan-out question needs at least one content item (two for a consistency check).")
    engine = engine or session.engine
    concurrency = max(1, min(MAX_CONCURRENCY, int(concurrency)))
    labels = unique_labels([" ↔ ".join(item_label(i) for i in scope) for scope in scopes])
    with transaction.atomic():
        parent = Question.objects.create(
            session=session,
            text=text.strip(),
            engine=engine,
            protocol={
                FANOUT_KEY: {
                    "type": result_type,
                    "items": [str(item.id) for item in items],
                    "pairs": [[str(i.id) for i in scope] for scope in scopes]
                    if result_type == "consistency"
                    else [],
                    "checklist": checklist,
                    "concurrency": concurrency,
                }
            },
        )
        Question.objects.bulk_create(
            [
                Question(
                    session=session,
                    parent=parent,
                    engine=engine,
                    text=sub_prompt(result_type, text.strip(), scope, checklist),
                    protocol={
                        SUB_RUN_KEY: {
                            "index": n,
                            "label": label,
                            "type": result_type,
                            "items": [str(i.id) for i in scope],
                        }
                    },
                )
                for n, (scope, label) in enumerate(zip(scopes, labels, strict=True), start=1)
            ]
        )
        ResearchSession.objects.filter(pk=session.pk).update(updated_at=timezone.now())
        runs.dispatch(parent.pk)
    return parent
