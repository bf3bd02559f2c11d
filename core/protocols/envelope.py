"""Split a research answer into its envelope parts (docs/FORMATS.md, Answer envelope):
YAML frontmatter, ``<thinking>`` blocks and the ``<answer>``.

Thinking is reasoning, shown collapsed and never mixed into the answer, so
when in doubt text goes to thinking rather than leaking into the answer: an
unterminated ``<thinking>`` runs to the next ``<answer>`` or to the end.
Tags inside code fences or backticks are text, not tags, because answers
often explain this very format. ``parse_answer`` never raises on any text.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ._markdown import fenced_spans, in_spans
from ._yaml import load_mapping
from .answer_body import AnswerSource, read_body, resolve_confidence

ENVELOPE_FIELDS = (
    "message_id",
    "correlation_id",
    "timestamp",
    "message_type",
    "query_type",
    "researcher_version",
    "sources_found",
    "search_tools_used",
    "confidence",
)
_FRONTMATTER_RE = re.compile(
    r"\A\ufeff?\s*^---[ \t]*\r?\n(.*?)^(?:---|\.\.\.)[ \t]*$\r?\n?", re.DOTALL | re.MULTILINE
)
_KEY_LINE_RE = re.compile(r"^[ \t]*[\"']?[A-Za-z_][\w.-]*[\"']?[ \t]*:(?:[ \t]|$)")
_TAG_RE = re.compile(r"<(/?)(thinking|answer)\s*>", re.IGNORECASE)


@dataclass(slots=True)
class ParsedAnswer:
    """A research answer taken apart.

    ``frontmatter`` holds the envelope's keys (the nine of the convention and any
    others); ``missing_fields`` names the nine that a present envelope lacks.
    ``thinking`` joins the ``thinking_blocks``. ``answer`` is the inside of
    ``<answer>`` or, without one, the text minus frontmatter and thinking;
    ``outside`` keeps any other text found beside an ``<answer>`` block.
    ``confidence`` is HIGH, MEDIUM, LOW, NONE or None. ``no_results`` marks the
    "No Definitive Answer Found" form."""

    frontmatter: dict[str, Any]
    thinking: str
    answer: str
    confidence: str | None
    no_results: bool
    next_steps: list[str]
    problems: list[str]
    thinking_blocks: list[str] = field(default_factory=list)
    outside: str = ""
    missing_fields: list[str] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)
    sources: list[AnswerSource] = field(default_factory=list)


def _looks_like_fields(block: str) -> bool:
    """Whether a block opens with a ``key:`` line, as an envelope does."""
    for line in block.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            return bool(_KEY_LINE_RE.match(line))
    return True


def split_frontmatter(text: str, problems: list[str]) -> tuple[dict[str, Any], str]:
    """Return the frontmatter mapping and the text after it.

    A block that is not valid YAML, or not a mapping, may just be Markdown
    between two horizontal rules, so it stays in the text."""
    match = _FRONTMATTER_RE.match(text)
    if match is None:
        if text.lstrip("\ufeff \t\r\n").startswith("---\n") and "\n---" not in text[4:]:
            problems.append("The text starts with '---' but the frontmatter is never closed.")
        return {}, text
    if not _looks_like_fields(match.group(1)):
        # Markdown between two horizontal rules, not an attempted envelope.
        return {}, text
    data, reason = load_mapping(match.group(1))
    if data is None:
        problems.append(f"The frontmatter was kept as text: {reason}.")
        return {}, text
    return data, text[match.end() :]


def _tags(text: str) -> list[re.Match[str]]:
    """The thinking/answer tags that are markup, not quoted text."""
    spans = fenced_spans(text)
    return [
        match
        for match in _TAG_RE.finditer(text)
        if not in_spans(match.start(), spans) and not (match.start() > 0 and text[match.start() - 1] == "`")
    ]


def split_tags(body: str, problems: list[str]) -> tuple[list[str], list[str], str]:
    """Return ``(thinking_blocks, answer_blocks, outside_text)``.

    Text between two tags belongs to the innermost open block. A
    ``<thinking>`` inside ``<answer>`` is still thinking (it must not show in
    the answer); other nesting and mismatches are kept as content or dropped
    with a problem noted."""
    parts: dict[str, list[str]] = {"thinking": [], "answer": [], "": []}
    stack: list[str] = []
    # <thinking> opened inside an open <thinking> (or <answer> in <answer>) is content, and so is
    # the close that pairs with it: the first close must not end the outer block and let the
    # rest of the reasoning out.
    nested = 0  # pragma: no mutate: set to 0 when a block opens
    cursor = 0  # pragma: no mutate: a slice from None starts at 0
    for tag in _tags(body):
        closing, name = tag.group(1) == "/", tag.group(2).lower()
        top = stack[-1] if stack else ""
        if name == top and (not closing or nested):
            nested += -1 if closing else 1  # pragma: no mutate: only zero or not is read
            continue
        if not closing and not (name in stack or (name == "answer" and stack)):
            parts[top].append(body[cursor : tag.start()])
            stack.append(name)
            nested = 0
        elif not closing and name == "answer" and stack == ["thinking"]:
            problems.append("A <thinking> block is not closed before <answer>; it was ended there.")
            parts["thinking"].append(body[cursor : tag.start()])
            stack = ["answer"]
            nested = 0
        elif closing and name in stack:
            parts[top].append(body[cursor : tag.start()])
            if top != name:
                problems.append(f"The <{top}> block is not closed before </{name}>; it was ended there.")
            del stack[stack.index(name) :]
            nested = 0
        elif closing:
            problems.append(f"A </{name}> tag has no opening <{name}>; it was ignored.")
            parts[top].append(body[cursor : tag.start()])
        else:
            # <answer> opened inside a thinking block nested in the answer: content.
            continue
        cursor = tag.end()
    top = stack[-1] if stack else ""
    parts[top].append(body[cursor:])
    for name in reversed(stack):
        problems.append(f"The <{name}> block is never closed; it was taken to run to the end.")
    pieces = [piece.strip() for piece in parts[""]]
    return (
        [block.strip() for block in parts["thinking"]],
        [block.strip() for block in parts["answer"]],
        "\n\n".join(piece for piece in pieces if piece),
    )


def parse_answer(text: str) -> ParsedAnswer:
    """Parse a research answer. Never raises; see ``ParsedAnswer.problems``."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    problems: list[str] = []
    frontmatter, body = split_frontmatter(text, problems)
    thinking_blocks, answer_blocks, outside = split_tags(body, problems)
    if answer_blocks:
        answer = "\n\n".join(block for block in answer_blocks if block)
        outside = outside.strip()
        if outside:
            problems.append("There is text outside the <answer> block; it is kept in 'outside'.")
    else:
        answer, outside = outside.strip(), ""
    missing = [name for name in ENVELOPE_FIELDS if name not in frontmatter] if frontmatter else []
    if missing:
        problems.append(f"The frontmatter lacks {', '.join(missing)}.")
    body_facts = read_body(answer)
    confidence, no_results = resolve_confidence(frontmatter.get("confidence"), body_facts, problems)
    return ParsedAnswer(
        frontmatter=frontmatter,
        thinking="\n\n".join(block for block in thinking_blocks if block),
        answer=answer,
        confidence=confidence,
        no_results=no_results,
        next_steps=body_facts.next_steps,
        problems=problems + body_facts.problems,
        thinking_blocks=thinking_blocks,
        outside=outside,
        missing_fields=missing,
        sections=body_facts.sections,
        sources=body_facts.sources,
    )
