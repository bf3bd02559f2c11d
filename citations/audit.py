"""Audit exports of citations (CSV, JSON, and the reviewed support labels
as JSONL), and how far the automatic support judge agrees with reviewers."""

from __future__ import annotations

import csv
import io
import json

from core.citations.states import SupportLabel

FIELDS = [
    "session",
    "question_id",
    "question",
    "engine",
    "cid",
    "source_type",
    "found_by",
    "source_path",
    "url",
    "line_start",
    "line_end",
    "excerpt",
    "relevance",
    "confidence",
    "verification",
    "verification_detail",
    "match_score",
    "claim",
    "support",
    "support_judged_by",
    "support_reason",
    "review_status",
    "reviewer",
    "review_note",
    "reviewed_at",
    "feedback_helpful",
    "feedback_wrong",
]


def audit_rows(citations) -> list[dict]:
    rows = []
    for c in citations.select_related("question__session", "reviewer").prefetch_related("feedback"):
        verdicts = [f.verdict for f in c.feedback.all()]
        rows.append(
            {
                "session": c.question.session.title,
                "question_id": c.question_id,
                "question": c.question.text,
                "engine": c.question.engine,
                "cid": c.cid,
                "source_type": c.source_type,
                "found_by": c.found_by,
                "source_path": c.source_path,
                "url": c.url,
                "line_start": c.line_start,
                "line_end": c.line_end,
                "excerpt": c.excerpt,
                "relevance": c.relevance,
                "confidence": c.confidence,
                "verification": c.verification,
                "verification_detail": c.verification_detail,
                "match_score": c.match_score,
                "claim": c.claim,
                "support": c.support,
                "support_judged_by": c.support_judged_by,
                "support_reason": c.support_reason,
                "review_status": c.review_status,
                "reviewer": c.reviewer.get_username() if c.reviewer else "",
                "review_note": c.review_note,
                "reviewed_at": c.reviewed_at.isoformat() if c.reviewed_at else "",
                "feedback_helpful": verdicts.count("helpful"),
                "feedback_wrong": verdicts.count("wrong"),
            }
        )
    return rows


def _safe_cell(value):
    # Spreadsheet formula injection: a cell starting with = + - @ is neutralised.
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def audit_csv(citations) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=FIELDS)
    writer.writeheader()
    for row in audit_rows(citations):
        writer.writerow({k: _safe_cell(v) for k, v in row.items()})
    return out.getvalue()


def audit_json(citations) -> str:
    return json.dumps(audit_rows(citations), indent=2, default=str)


SUPPORT_LABELS = [label.value for label in SupportLabel]


def reviewed_support(citations):
    """Citations whose support a reviewer recorded, with the judge's label kept."""
    return citations.filter(support_judged_by="human").exclude(auto_support="")


def support_agreement(citations) -> dict:
    """How often the automatic judge gave the reviewer's label: the count of
    reviewed citations, the share agreed, and the confusion table (rows: the
    judge's label, columns: the reviewer's)."""
    pairs = list(reviewed_support(citations).values_list("auto_support", "support"))
    table = {auto: dict.fromkeys(SUPPORT_LABELS, 0) for auto in SUPPORT_LABELS}
    for auto, human in pairs:
        if auto in table and human in table[auto]:
            table[auto][human] += 1
    agreed = sum(auto == human for auto, human in pairs)
    return {
        "count": len(pairs),
        "agreed": agreed,
        "rate": round(100 * agreed / len(pairs)) if pairs else None,
        "labels": SUPPORT_LABELS,
        "rows": [(auto, [table[auto][human] for human in SUPPORT_LABELS]) for auto in SUPPORT_LABELS],
    }


def reviewed_support_jsonl(citations) -> str:
    """One JSON object per reviewed citation (claim, cited text, both labels):
    to grow an evaluation set for the support judge."""
    lines = []
    for c in reviewed_support(citations).select_related("question").order_by("pk"):
        record = {
            "question_id": c.question_id,
            "cid": c.cid,
            "claim": c.claim,
            "cited_text": c.excerpt,
            "source_path": c.source_path,
            "line_start": c.line_start,
            "line_end": c.line_end,
            "verification": c.verification,
            "auto_support": c.auto_support,
            "human_support": c.support,
            "reviewer_note": c.review_note,
        }
        lines.append(json.dumps(record, ensure_ascii=False))
    return "\n".join(lines) + ("\n" if lines else "")
