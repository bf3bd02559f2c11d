"""What every page and websocket fragment renders, and whose it is: the owned
session or question a request may see, and the context of the session's
content list and of the question page. Below views and fragments alike."""

from __future__ import annotations

from django.shortcuts import get_object_or_404

from researchmind.models import Question, ResearchSession


def owned_session(request, session_id) -> ResearchSession:
    return get_object_or_404(ResearchSession.objects.owned_by(request.user), pk=session_id)


def owned_question(request, session_id, question_id) -> Question:
    return get_object_or_404(
        Question.objects.owned_by(request.user).select_related("session"),
        pk=question_id,
        session_id=session_id,
    )


def content_context(session: ResearchSession) -> dict:
    from researchmind.filetree import file_tree

    items = list(session.content_items.all())
    for item in items:
        item.tree, item.tree_truncated = file_tree(item.folder) if item.status == "ready" else ([], False)
    return {"session": session, "items": items, "any_pending": any(i.status == "pending" for i in items)}


def question_context(question: Question) -> dict:
    """The question page. Each timeline list starts with its last
    ``TIMELINE_PAGE`` items; earlier ones load on demand (``question_timeline``)."""
    from citations.presenters import answer_context
    from progress import selectors
    from progress.svgtimeline import render_svg

    primary, earlier_primary = selectors.timeline_page(question.pk, "primary")
    details, earlier_details = selectors.timeline_page(question.pk, "details")
    state = selectors.page_state(question.pk, finished=question.is_finished)
    return {
        "question": question,
        "session": question.session,
        "timeline": primary,
        "details": details,
        "earlier_primary": earlier_primary,
        "earlier_details": earlier_details,
        "live_text": state["live_text"],
        "last_seq": state["last_seq"],
        "phase_event": state["phase_event"],
        "run_svg": render_svg(state["svg_events"]) if question.is_finished else "",
        "sub_runs": list(question.sub_runs.all()),
    } | answer_context(question)
