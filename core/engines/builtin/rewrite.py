"""A follow-up rewritten to stand alone by a model, for the built-in engine.

The built-in engine searches words, so a follow-up ("And a refresh token?")
is rewritten into a question that stands alone. The lexical rules
(``core.threads.resolve_follow_up``) guess the subject; where they fall short
("What happens when it is reused by someone else?" after two turns) a
configured OpenAI-compatible model may be asked instead (``FOLLOWUP_REWRITE``):
it is sent the earlier questions as background, the latest turn with its
clipped answer (the turn a follow-up is resolved against) and the follow-up,
and answers with one question. Anything unusable raises ``ChatFailed``; the
caller keeps the lexical rewrite.

Pure Python: no Django imports.
"""

from __future__ import annotations

from core.engines.chat import ChatFailed, ChatModel, ask
from core.threads import MAX_TURNS, Turn

INSTRUCTIONS = """# Rewriting a follow-up question

You are given the turns of a research conversation and a follow-up question.
The follow-up continues the LATEST turn: rewrite it so that it stands alone,
resolving pronouns and elliptical phrases ("it", "those numbers", "and for
containers?") against the latest question and its answer only. Earlier
questions are background: never bring back a subject the latest turn replaced.
Keep every other word of the follow-up, and add nothing the conversation does
not say. Do not answer it.

Answer with the rewritten question only, on one line.
"""
MAX_ANSWER_CHARS = 600  # of the latest answer sent: enough to name its subject and values
MAX_REWRITE_CHARS = 400


def rewrite_prompt(turns: list[Turn], follow_up: str) -> str:
    """What the model is sent: the earlier questions of the thread (the last
    ``MAX_TURNS`` turns) as background, then the latest turn with its answer
    clipped, then the follow-up. Older answers are left out: a follow-up is
    resolved against the latest turn, and their subjects would mix in."""
    shown = turns[-MAX_TURNS:]
    first = len(turns) - len(shown) + 1
    parts: list[str] = []
    if len(shown) > 1:
        parts += ["Earlier questions, oldest first (background only):", ""]
        for number, turn in enumerate(shown[:-1], start=first):
            parts.append(f"Question {number}: {turn.question.strip()}")
        parts.append("")
    if shown:
        latest, number = shown[-1], first + len(shown) - 1
        answer = " ".join(latest.answer.split()) or "(no answer)"
        if len(answer) > MAX_ANSWER_CHARS:
            answer = answer[:MAX_ANSWER_CHARS] + " …"
        parts += [
            "The latest turn, which the follow-up continues:",
            "",
            f"Question {number}: {latest.question.strip()}",
            f"Answer {number}: {answer}",
            "",
        ]
    parts.append(f"Follow-up to rewrite: {follow_up.strip()}")
    return "\n".join(parts)


def read_rewrite(text: str) -> str:
    """The one question in the model's answer, or "" when there is none usable."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    line = lines[0].lstrip("*#> ").strip()  # Markdown emphasis or a heading mark
    for prefix in ("rewritten question:", "rewritten:", "question:", "follow-up:"):
        if line.lower().startswith(prefix):
            line = line[len(prefix) :].strip()
    line = line.strip("\"'`*“”").strip()
    return line if 0 < len(line) <= MAX_REWRITE_CHARS else ""


async def rewrite_with_model(model: ChatModel, turns: list[Turn], follow_up: str) -> str:
    """``follow_up`` rewritten by ``model`` from the thread; raises ``ChatFailed``."""
    text = await ask(model, INSTRUCTIONS, rewrite_prompt(turns, follow_up))
    rewritten = read_rewrite(text)
    if not rewritten:
        raise ChatFailed("The model's answer holds no usable question.")
    return rewritten
