"""Plain-data views of questions and citations, shared by the websocket
``answer`` message, ``replay --json`` and the JSON API."""

from __future__ import annotations

from collections import Counter


def citation_payload(citation) -> dict:
    return {
        "cid": citation.cid,
        "found_by": citation.found_by,
        "attached_by_app": citation.found_by == "attached",
        "source_type": citation.source_type,
        "source_path": citation.source_path,
        "url": citation.url,
        "title": citation.title,
        "content_id": str(citation.content_item_id) if citation.content_item_id else None,
        "line_start": citation.line_start,
        "line_end": citation.line_end,
        "excerpt": citation.excerpt,
        "relevance": citation.relevance,
        "confidence": citation.confidence,
        "verification": citation.verification,
        "verification_detail": citation.verification_detail,
        "match_score": citation.match_score,
        "review_status": citation.review_status,
        "claim": citation.claim,
        "support": citation.support,
        "support_judged_by": citation.support_judged_by,
        "support_reason": citation.support_reason,
        # Which model judged, when one did (the question records it once).
        "support_judge_model": (citation.question.protocol or {}).get("support_judge_model", "")
        if citation.support_judged_by == "llm"
        else "",
        "locator": citation.locator,
        "label": citation.location_label,
    }


def question_payload(question, *, with_citations: bool = False) -> dict:
    data = {
        "question_id": question.pk,
        "session_id": str(question.session_id),
        "question": question.text,
        "engine": question.engine,
        "model": question.model,
        "status": question.status,
        "result_status": question.result_status or None,
        "confidence": question.confidence or None,
        "answer": question.answer,
        "thinking": question.thinking,
        "error": question.error,
        "cost_usd": float(question.cost_usd) if question.cost_usd is not None else None,
        "duration_ms": question.duration_ms,
        "created_at": question.created_at.isoformat() if question.created_at else None,
        "finished_at": question.finished_at.isoformat() if question.finished_at else None,
        "thread_id": question.thread_root_id,
        "follows": question.follows_id,
        "asked_as": question.asked_as,
        "scope": list(question.scope or []),
    }
    if with_citations:
        data["citations"] = [citation_payload(c) for c in question.citations.order_by("position")]
    return data


def replay_report(question) -> dict:
    """The ``replay --json`` object (README.md, Management commands)."""
    events = list(question.events.order_by("seq").values_list("kind", "detail"))
    data = question_payload(question, with_citations=True)
    return {
        "question_id": question.pk,
        "status": question.status,
        "result_status": data["result_status"],
        "confidence": data["confidence"],
        "events": len(events),
        "event_kinds": dict(Counter(kind for kind, _ in events)),
        "answer": question.answer,
        "thinking": question.thinking,
        "tool_steps": [detail for kind, detail in events if kind == "tool_start"],
        "citations": [
            {
                key: c[key]
                for key in (
                    "cid",
                    "found_by",
                    "source_type",
                    "source_path",
                    "url",
                    "line_start",
                    "line_end",
                    "excerpt",
                    "verification",
                    "verification_detail",
                )
            }
            for c in data["citations"]
        ],
    }
