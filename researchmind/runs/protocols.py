"""Apply the answer protocols (envelope, thinking/answer, RESULT line) to a
finished question's text. Pure parsing lives in ``core.protocols``."""

from __future__ import annotations

from core.protocols import parse_answer, parse_result
from core.protocols.summary_line import RESULT_LINE


def apply_protocols(question) -> None:
    text = question.answer or ""
    if not text.strip():
        return
    parsed = parse_answer(text)
    protocol = dict(question.protocol or {})
    if parsed.thinking:
        question.thinking = "\n\n".join(filter(None, [question.thinking, parsed.thinking]))
    if parsed.answer is not None and parsed.answer != text:
        question.answer = parsed.answer
    if parsed.confidence:
        question.confidence = parsed.confidence
    if parsed.frontmatter:
        protocol["envelope"] = parsed.frontmatter
    if parsed.no_results:
        protocol["no_results"] = True
        protocol["next_steps"] = parsed.next_steps
        question.confidence = question.confidence or "NONE"
    if parsed.problems:
        protocol["envelope_problems"] = parsed.problems
    if RESULT_LINE.search(text) or question.parent_id:
        result = parse_result(text)
        question.result_status = result.status
        protocol["result"] = result.to_dict()
        if result.confidence and not question.confidence:
            question.confidence = result.confidence
    question.protocol = protocol
