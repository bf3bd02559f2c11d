"""Support judged by a model (``judged_by="llm"``), when the server is set up for it.

With ``SUPPORT_JUDGE=llm`` and Claude Code configured (credentials, and
``SUPPORT_JUDGE_MODEL`` or ``CLAUDE_MODEL``), or ``SUPPORT_JUDGE=openai`` and
the OpenAI-compatible model configured (``OPENAI_*``; ``SUPPORT_JUDGE_MODEL``
or ``OPENAI_MODEL``), a finished run's found citations
(verified, relocated, URL matched) that carry a sentence are sent to the model
in one request: each sentence of the answer with the text it cites. The model
is offered no tool and works in an empty folder; it answers with a JSON array
of labels. Labels it gives replace the lexical judge's (a reviewer's never);
anything it does not judge, or an answer that cannot be read, keeps the
lexical label, and the reason is recorded; so does a model that fails or
cannot be reached. The CLI's output (or the model's answer) is kept in the
run's raw log like the run's own, and which model judged is recorded on the
question (``protocol["support_judge_model"]``) and shown with its labels.
"""

from __future__ import annotations

import asyncio
import json
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.db import transaction

from citations.models import Citation
from citations.presenters import store_answer_html
from core.citations.states import JUDGED_LABELS
from core.citations.support.judge import FOUND
from core.engines.base import RunOutcome, batches_of
from core.engines.chat import ChatFailed, ChatModel, ask
from core.engines.claude import ClaudeCodeEngine
from core.stream import StreamInterpreter
from researchmind.engine_config import engine_settings, openai_settings

JUDGED = JUDGED_LABELS
MAX_PAIRS = 60  # one request; a longer answer's later citations keep the lexical label
MAX_CITED_CHARS = 2_000
REASON_CHARS = 300

INSTRUCTIONS = """# Judging citations

You check the citations of a research answer. Each item gives one sentence of
the answer (`sentence`) and the text that sentence cites (`cited_text`).
Decide from the cited text alone, never from what you know:

- `supports`: the cited text states everything the sentence claims (numbers,
  units, names and negations included).
- `partial`: the cited text states part of the claim; the sentence says more.
- `unsupported`: the cited text does not state the claim, or contradicts it.

Use no tools. Answer with one JSON array in a fenced code block and nothing
else, one entry per item, in this form:

```json
[{"id": "c1", "label": "supports", "reason": "The cited line gives the 15-minute lifetime."}]
```
"""


@dataclass
class Judgement:
    labels: dict[str, tuple[str, str]] = field(default_factory=dict)  # cid -> (label, reason)
    error: str = ""
    asked: int = 0
    raw_lines: list[str] = field(default_factory=list)
    model: str = ""  # who judged, as shown: "gpt-4o-mini (OpenAI-compatible)"


class JudgeEngine(ClaudeCodeEngine):
    """Claude Code with no tools and the judging instructions as its system prompt addition."""

    def write_instructions(self, sandbox: Path, scratch: Path) -> Path:
        path = scratch / "instructions.md"
        path.write_text(INSTRUCTIONS, encoding="utf-8")
        return path


MODEL_JUDGES = ("llm", "claude-code", "openai")  # SUPPORT_JUDGE values that ask a model


def enabled() -> bool:
    return settings.SUPPORT_JUDGE in MODEL_JUDGES


def judge_engine() -> JudgeEngine:
    config = dict(engine_settings()["claude-code"])
    config["model"] = settings.SUPPORT_JUDGE_MODEL or config.get("model")
    return JudgeEngine(**config, tools=())


def chat_model() -> ChatModel:
    """The OpenAI-compatible model the judge asks (``SUPPORT_JUDGE=openai``)."""
    config = openai_settings()
    return ChatModel(
        base_url=config["base_url"],
        model=settings.SUPPORT_JUDGE_MODEL or config["model"],
        api_key=config["api_key"],
        timeout=min(float(config["timeout"]), 120.0),
    )


def pairs_of(citations) -> list[dict]:
    """What the model is asked about: found citations that carry a sentence."""
    pairs = []
    for citation in citations:
        if citation.verification in FOUND and citation.claim.strip() and citation.excerpt.strip():
            pairs.append(
                {
                    "id": citation.cid,
                    "sentence": citation.claim.strip(),
                    "cited_text": citation.excerpt.strip()[:MAX_CITED_CHARS],
                }
            )
    return pairs[:MAX_PAIRS]


def prompt_for(pairs: list[dict]) -> str:
    return "Judge these citations:\n\n```json\n" + json.dumps(pairs, ensure_ascii=False, indent=1) + "\n```\n"


_FENCE = re.compile(r"```(?:json)?\s*\n(.*?)```", re.S)


def read_labels(text: str, asked: set[str]) -> tuple[dict[str, tuple[str, str]], str]:
    """The labels in the model's answer, for the ids that were asked; and a
    sentence saying what could not be read ("" when all was well)."""
    blocks = [m.group(1) for m in _FENCE.finditer(text)]
    start, end = text.find("["), text.rfind("]")
    if not blocks and 0 <= start < end:
        blocks = [text[start : end + 1]]
    value = None
    for block in blocks:
        try:
            value = json.loads(block)
        except ValueError:
            continue
        if isinstance(value, list):
            break
    if not isinstance(value, list):
        return {}, "The model's answer holds no readable JSON array of labels."
    labels: dict[str, tuple[str, str]] = {}
    odd = 0
    for entry in value:
        if not isinstance(entry, dict):
            odd += 1
            continue
        cid, label = str(entry.get("id", "")), str(entry.get("label", "")).strip().lower()
        if cid not in asked or label not in JUDGED:
            odd += 1
            continue
        reason = " ".join(str(entry.get("reason") or "").split())[:REASON_CHARS]
        labels[cid] = (label, reason or "Judged by the model.")
    problems = []
    if odd:
        problems.append(f"{odd} entr{'y' if odd == 1 else 'ies'} of the model's answer could not be used")
    missing = len(asked - labels.keys())
    if missing:
        problems.append(f"{missing} citation{'' if missing == 1 else 's'} left unjudged by the model")
    return labels, ("; ".join(problems) + ".") if problems else ""


async def judge(pairs: list[dict], engine: JudgeEngine | None = None) -> Judgement:
    """Ask the model about ``pairs``; never raises."""
    result = Judgement(asked=len(pairs))
    if not pairs:
        return result
    if engine is None and settings.SUPPORT_JUDGE == "openai":
        return await judge_with_chat(pairs, chat_model(), result)
    engine = engine or judge_engine()
    result.model = f"{engine.model or 'the CLI default'} ({engine.label})"
    availability = engine.availability()
    if not availability.available:
        result.error = f"The model could not judge support: {availability.reason}"
        return result
    interpreter = StreamInterpreter()
    outcome = RunOutcome()
    try:
        await engine.prepare()
        with tempfile.TemporaryDirectory(prefix="researchmind-judge-") as empty:
            batches = batches_of(
                engine, prompt_for(pairs), Path(empty), cancel=asyncio.Event(), outcome=outcome
            )
            async for batch in batches:
                for line in batch:
                    result.raw_lines.append(line.text if line.source == "stdout" else f"[stderr] {line.text}")
                    if line.source == "stdout":
                        interpreter.feed(line.text)
        interpreter.finish()
    except Exception as exc:  # a broken CLI leaves the lexical labels, with the reason
        result.error = f"The model could not judge support: {type(exc).__name__}: {exc}"[:500]
        return result
    if interpreter.is_error or not interpreter.saw_result:
        why = "; ".join(interpreter.errors or []) or f"the CLI ended with exit code {outcome.returncode}"
        result.error = f"The model could not judge support: {why}"[:500]
        return result
    result.labels, result.error = read_labels(interpreter.answer_text, {p["id"] for p in pairs})
    return result


async def judge_with_chat(pairs: list[dict], model: ChatModel, result: Judgement) -> Judgement:
    """``judge`` through one request to an OpenAI-compatible model."""
    result.model = model.label
    try:
        text = await ask(model, INSTRUCTIONS, prompt_for(pairs))
    except ChatFailed as failed:
        result.error = f"The model could not judge support: {failed.sentence} The lexical labels stand."[:500]
        return result
    result.raw_lines.append(json.dumps({"type": "support_judge", "model": model.model, "answer": text}))
    result.labels, result.error = read_labels(text, {p["id"] for p in pairs})
    return result


def apply_judgement(question, judgement: Judgement) -> int:
    """Store the model's labels (never over a reviewer's); returns how many changed hands."""
    changed = 0
    with transaction.atomic():
        for citation in question.citations.filter(cid__in=list(judgement.labels)):
            label, reason = judgement.labels[citation.cid]
            citation.auto_support = label
            fields = ["auto_support"]
            if citation.support_judged_by != Citation.JudgedBy.HUMAN:
                citation.support = label
                citation.support_judged_by = Citation.JudgedBy.LLM
                citation.support_reason = reason
                fields += ["support", "support_judged_by", "support_reason"]
                changed += 1
            citation.save(update_fields=fields)
        protocol = dict(question.protocol or {})
        if judgement.error:
            protocol["support_judge_problem"] = judgement.error
        if judgement.labels and judgement.model:
            protocol["support_judge_model"] = judgement.model
        if protocol != (question.protocol or {}):
            question.protocol = protocol
            question.save(update_fields=["protocol"])
        store_answer_html(question)
    return changed
