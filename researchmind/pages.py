"""What every page and websocket fragment renders, and whose it is: the owned
session or question a request may see, and the context of the session's
content list and of the question page. Below views and fragments alike."""

from __future__ import annotations

from django.db.models import OuterRef, Subquery
from django.shortcuts import get_object_or_404

from citations.models import Citation
from citations.presenters import answer_context
from core.filetree import file_tree
from core.ingest.documents import original_path
from core.threads import lead_sentence
from progress import selectors
from progress.models import ProgressEvent
from researchmind.models import Question, ResearchSession
from researchmind.runs.fanout_report import lead_paragraph

# The question page's websocket (researchmind/routing.py serves it): its route, and its
# path from the site's root for a question (the page's ws-connect, the API's "websocket").
SOCKET_PREFIX = "ws/questions/"
SOCKET_ROUTE = f"{SOCKET_PREFIX}<int:question_id>/"


def socket_path(question_id: int) -> str:
    """``ws/questions/<id>/``: the question's live progress, relative to the site's root."""
    return f"{SOCKET_PREFIX}{question_id}/"


def owned_session(request, session_id) -> ResearchSession:
    return get_object_or_404(ResearchSession.objects.owned_by(request.user), pk=session_id)


def owned_question(request, session_id, question_id) -> Question:
    return get_object_or_404(
        Question.objects.owned_by(request.user).select_related("session"),
        pk=question_id,
        session_id=session_id,
    )


def shown_question(request, session_id, question_id) -> Question:
    """``owned_question`` as the question page reads it (``QuestionQuerySet.for_page``)."""
    return get_object_or_404(
        Question.objects.owned_by(request.user).for_page().select_related("session"),
        pk=question_id,
        session_id=session_id,
    )


MAX_ORIGINALS_LISTED = 20


def document_originals(item) -> list[str]:
    """The documents' originals kept for the item (their paths in the item), for download links."""
    root = original_path(item.documents_path, "")
    if not root.is_dir():
        return []
    found = sorted(
        p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and not p.is_symlink()
    )
    return found[:MAX_ORIGINALS_LISTED]


def content_context(session: ResearchSession) -> dict:
    items = list(session.content_items.all())
    for item in items:
        item.tree, item.tree_truncated = file_tree(item.folder) if item.status == "ready" else ([], False)
        item.originals = document_originals(item) if item.status == "ready" else []
    return {"session": session, "items": items, "any_pending": any(i.status == "pending" for i in items)}


def question_context(question: Question) -> dict:
    """The question page. Each timeline list starts with its last
    ``TIMELINE_PAGE`` items (``FINISHED_TIMELINE_PAGE`` once the run is over);
    earlier ones load on demand (``question_timeline``)."""
    # Recorded as the run ended; a run from before summaries is summarised now
    # and not kept (GET only reads).
    summary = (question.summary or selectors.run_summary(question.pk)) if question.is_finished else {}
    limit = selectors.FINISHED_TIMELINE_PAGE if question.is_finished else selectors.TIMELINE_PAGE
    items = summary.get("items") or {}
    # The last seq first, then the lists up to it: a run commits events
    # between these reads, and the socket resumes after this seq, so each
    # event is on the page or in the replay, once. (Read after the lists, an
    # event committed in between was in neither: lost from the live page.)
    state = selectors.page_state(question.pk, finished=question.is_finished)
    if state.get("ended"):
        # A run can end between reading the question and reading its events (a
        # built-in run takes tens of milliseconds): the page would show it running
        # while resuming after its end event, and never see it finish. The end
        # event is recorded after the question's final state, so read it again.
        question.refresh_from_db()
        if question.is_finished:  # (a retried question keeps its earlier run's end)
            return question_context(question)
    last_seq = state["last_seq"]
    primary, earlier_primary = selectors.timeline_page(
        question.pk, "primary", limit=limit, total=items.get("primary")
    )
    details, earlier_details = selectors.timeline_page(
        question.pk, "details", limit=limit, total=items.get("details")
    )
    primary = [event for event in primary if event["seq"] <= last_seq]
    details = [event for event in details if event["seq"] <= last_seq]
    sub_runs = list(question.sub_runs.all())
    return (
        {
            "question": question,
            "session": question.session,
            "socket_path": socket_path(question.pk),
            "timeline": primary,
            "details": details,
            "earlier_primary": earlier_primary,
            "earlier_details": earlier_details,
            "live_text": state["live_text"],
            "last_seq": last_seq,
            "phase_event": state["phase_event"],
            "run_svg": summary.get("svg", ""),
            "run_summary": summary,
            "run_summary_line": summary_line(summary),
            "scope_items": question.scope_items(),
            "sub_runs": sub_runs,
            "lanes": fanout_lanes(question) if sub_runs else [],
            "fanout_lead": lead_paragraph(question.text, question.protocol["aggregate"])
            if (question.protocol or {}).get("aggregate")
            else "",
            "citation_groups": fanout_citations(question)
            if (question.protocol or {}).get("aggregate")
            else [],
        }
        | answer_context(question, files_read=summary.get("files_read"))
        | thread_context(question)
    )


def summary_line(summary: dict) -> str:
    """A finished run in one line: "12 steps · 3 files read · 0.8 s"."""
    if not summary:
        return ""
    steps, files, seconds = (
        summary.get("steps", 0),
        len(summary.get("files_read") or ()),
        summary.get("seconds", 0),
    )
    when = f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.1f} s"
    return f"{steps} step{'s' if steps != 1 else ''} · {files} file{'s' if files != 1 else ''} read · {when}"


def thread_context(question: Question) -> dict:
    """The thread around a question: its earlier turns, answer first, each
    with its run in one line; stored HTML only (no turn's events are read)."""
    earlier = list(question.earlier_turns().filter(parent__isnull=True).for_page())
    turns = []
    for turn in earlier:
        summary = (turn.summary or selectors.run_summary(turn.pk)) if turn.is_finished else {}
        turns.append(
            {
                "question": turn,
                "lead": lead_sentence(turn.answer or ""),  # the folded turn's line, beside its question
                "summary_line": summary_line(summary),
                "svg": summary.get("svg", ""),
            }
        )
    later = question.thread_questions().filter(created_at__gt=question.created_at, parent__isnull=True)
    later_turns = list(later.only("pk", "text", "status"))
    return {
        "thread_turns": turns,
        "turn_number": len(earlier) + 1,
        "later_turns": later_turns,
        "turn_count": len(earlier) + 1 + len(later_turns),
    }


# A fan-out question's lanes and its citations by sub-run, one query each.

STEP_KINDS = ("run_start", "tool_start", "phase", "citations", "cancelling", "end", "stderr")


def fanout_lanes(question) -> list[dict]:
    """Each sub-run with its label, latest phase and latest step."""
    events = ProgressEvent.objects.filter(question=OuterRef("pk")).order_by("-seq")
    subs = question.sub_runs.order_by("pk").annotate(
        phase_name=Subquery(events.filter(kind="phase").values("phase")[:1]),
        phase_step=Subquery(events.filter(kind="phase").values("step")[:1]),
        phase_total=Subquery(events.filter(kind="phase").values("total")[:1]),
        latest_step=Subquery(events.filter(kind__in=STEP_KINDS, stage="primary").values("detail")[:1]),
    )
    return [{"sub": sub, "label": sub.sub_run_label} for sub in subs]


def fanout_citations(question) -> list[dict]:
    """The sub-runs' citations (verified by the normal path), grouped by sub-run.
    Each sub-run is read once, not joined to each of its citations (its answer
    and output would come with every row), and each citation's content item
    with it (its readable location names the item)."""
    rows = list(
        Citation.objects.filter(question__parent=question)
        .select_related("content_item")
        .order_by("question_id", "position")
    )
    # Read after the citations: a sub-run with citations is there (none is deleted alone).
    subs = {sub.pk: sub for sub in question.sub_runs.for_page()}
    groups: dict[int, dict] = {}
    for citation in rows:
        sub = subs[citation.question_id]
        group = groups.setdefault(
            citation.question_id, {"sub": sub, "label": sub.sub_run_label, "citations": []}
        )
        group["citations"].append(citation)
    return list(groups.values())


def ask_context(items, *, scope_checked=None, offered=None, **ask) -> dict:
    """The ask form's "Search in": every ready item, checked as the person
    left it; an item the form did not offer yet (added since the page was
    loaded: ``offered`` lists those it showed) is checked and marked new."""
    ready = [item for item in items if item.status == "ready"]
    checked = {str(item.pk) for item in ready} if scope_checked is None else set(scope_checked)
    new = set()
    if scope_checked is not None and offered is not None:
        new = {str(item.pk) for item in ready} - set(offered)
        checked |= new
    return {"ready_items": ready, "scope_checked": checked, "scope_new": new, **ask}
