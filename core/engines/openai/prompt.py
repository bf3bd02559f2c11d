"""The messages a model server is sent: the research instructions the Claude
engines get (``core.sandbox.instructions_text``, not a copy) with a short
preface for how this engine works, the thread's earlier turns as chat turns,
and the question with its scope.

Pure Python: no Django imports.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.engines.scope import PREFIX, split_scope
from core.sandbox import instructions_text
from core.threads import split_conversation

from .tools import LIST_FILES, READ_LINES, SEARCH_TEXT

TOOLS_PREFACE = f"""\
You are answering through an API, not in a shell. Your tools: `{SEARCH_TEXT}` (use it where the rules
below say Grep or Glob), `{LIST_FILES}`, and `{READ_LINES}` (where they say Read). `{READ_LINES}` and
`{SEARCH_TEXT}` show each line as `number→text`: cite those line numbers, and copy each excerpt from the
text after the arrow. Call the tools to find the answer before you write it."""

RETRIEVAL_PREFACE = """\
You are answering through an API, without tools: the app searched the content for you. The passages it
found are in the user's message, each headed by its file path and line range, every line shown as
`number→text`. Answer only from those passages; where the rules below say to search or read, use them.
Cite their paths and line numbers, and copy each excerpt from the text after the arrow."""


def system_message(manifest: dict, *, tools: bool) -> str:
    return f"{TOOLS_PREFACE if tools else RETRIEVAL_PREFACE}\n\n{instructions_text(manifest)}"


@dataclass(frozen=True, slots=True)
class Asked:
    """The prompt the app built (``researchmind.runs.run.engine_prompt``), taken apart."""

    earlier: list[dict]  # the thread's earlier turns as chat messages
    question: str  # the question itself
    folders: tuple[str, ...]  # the scope (empty: every content folder)
    search_words: str  # what retrieval searches for: a follow-up with the turn before it

    def user_message(self, body: str | None = None) -> str:
        text = body if body is not None else self.question
        if self.earlier:
            text = "(This continues the conversation above; cite only the files.)\n" + text
        if self.folders:
            named = ", ".join(f"{folder}/" for folder in self.folders)
            text += f"\n\n{PREFIX} {named}. Do not search or cite other folders."
        return text


def asked(prompt: str) -> Asked:
    rest, folders = split_scope(prompt)
    turns, question = split_conversation(rest)
    earlier: list[dict] = []
    for turn in turns:
        answer = turn.answer or "(no answer)"
        if turn.sources:
            answer += "\n\nCited: " + ", ".join(turn.sources)
        earlier += [{"role": "user", "content": turn.question}, {"role": "assistant", "content": answer}]
    words = f"{turns[-1].question} {question}" if turns else question
    return Asked(earlier, question, folders, words)
