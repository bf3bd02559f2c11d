"""Audit exports of citations (CSV and JSON), shared by the admin actions."""

from __future__ import annotations

import csv
import io
import json

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
