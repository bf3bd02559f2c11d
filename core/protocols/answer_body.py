"""Facts read from the body of a research answer (docs/FORMATS.md, Answer body):
section headings, ``## Source N`` sections with their YAML metadata, the
confidence line, the "No Definitive Answer Found" marker and the Recommended
Next Steps list.

Pure Python: no Django imports.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Any

from ._markdown import fenced_spans, in_spans, strip_markup
from ._yaml import load_mapping

CONFIDENCE_LEVELS = ("HIGH", "MEDIUM", "LOW", "NONE")
SOURCE_FIELDS = ("url", "type", "date", "version", "authority")

# Engine text is untrusted: every pattern here runs in linear time. Runs of
# spaces are matched possessively (``*+``), and a value's trailing spaces or
# closing hashes are stripped in Python, not by a lazy group before ``\s*$``
# (each of those was quadratic on a long line of spaces).
_HEADING_RE = re.compile(r"^(#{1,6})[ \t]++(.+)$", re.MULTILINE)
_SOURCE_HEADING_RE = re.compile(r"^Source\s++(\d+)\s*+[:.\-–—]?\s*+(.*)$", re.IGNORECASE)
_CONFIDENCE_RE = re.compile(
    r"^[ \t]*+(?:#{1,6}[ \t]*+)?(?:[-+][ \t]++)?[*_]*+[ \t]*+Confidence(?:[ \t]++(?:Score|Level))?"
    r"[ \t]*+[*_]*+[ \t]*+:[ \t]*+(.*)$",
    re.IGNORECASE | re.MULTILINE,
)
_NO_ANSWER_RE = re.compile(r"No\s+Definitive\s+Answer\s+Found", re.IGNORECASE)
_NEXT_STEPS_RE = re.compile(
    r"^[ \t]*+(?:#{1,6}[ \t]++)?[*_]*+[ \t]*+(?:Recommended[ \t]++)?Next[ \t]++Steps\b", re.IGNORECASE
)
_ITEM_RE = re.compile(r"^[ \t]*+(?:\d+[.)]|[-*+])[ \t]++(.*)$")
# A fenced block's opening line: indent, fence, an optional one-word label.
_FENCE_OPEN_RE = re.compile(r"[ \t]*+(`{3,}|~{3,})[ \t]*+(\w*)[ \t]*+\r?")


@dataclass(frozen=True, slots=True)
class AnswerSource:
    """One ``## Source N: Title`` section. ``metadata`` is its YAML block
    (url, type, date, version, authority); ``text`` is the whole
    section body."""

    number: int
    title: str
    metadata: dict[str, Any]
    text: str


@dataclass(slots=True)
class BodyFacts:
    sections: list[str] = field(default_factory=list)
    sources: list[AnswerSource] = field(default_factory=list)
    confidence: str | None = None
    no_answer_marker: bool = False
    next_steps: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def normalise_confidence(value: object) -> str | None:
    """HIGH/MEDIUM/LOW/NONE from what an agent wrote (``high``, ``**HIGH**``,
    ``HIGH (three official sources)``), or None. A template placeholder such as
    ``[HIGH | MEDIUM | LOW]`` names no single level, so it gives None."""
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if not isinstance(value, str):
        return None
    text = strip_markup(value).strip("[]() ")
    if "|" in text:
        return None
    word = re.match(r"[A-Za-z]+", text)
    level = word.group(0).upper() if word else ""  # pragma: no mutate: 'XXXX' is no level either
    return level if level in CONFIDENCE_LEVELS else None


def _headings(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int, int, str]]:
    """``(start, end_of_line, level, title)`` for headings outside code fences."""
    return [
        (match.start(), match.end(), len(match.group(1)), strip_markup(_heading_title(match.group(2))))
        for match in _HEADING_RE.finditer(text)
        if not in_spans(match.start(), spans)
    ]


def _heading_title(rest: str) -> str:
    """A heading's text without its trailing spaces and closing hashes
    (``## Title ##``); a heading made only of hashes keeps its first."""
    return rest.rstrip(" \t#") or rest[:1]


def _section_end(headings: list[tuple[int, int, int, str]], index: int, text_length: int) -> int:
    level = headings[index][2]
    for start, _end, other_level, _title in headings[index + 1 :]:
        if other_level <= level:
            return start
    return text_length


def _metadata_fence(body: str) -> str | None:
    """The source's YAML block: the first fence labelled yaml, else the first
    unlabelled one (the code example is labelled with its language)."""
    fences = [(label.lower(), content) for label, content in _fence_blocks(body)]
    for wanted in (("yaml", "yml"), ("",)):
        for label, content in fences:
            if label in wanted:
                return content
    return None


def _fence_blocks(text: str) -> list[tuple[str, str]]:
    """``(label, content)`` of each fenced block, in order: an opening line
    closed by a later line holding just the same fence; an opening line never
    closed is ordinary text. One pass, each closer found by bisection: linear
    however many fences are left open."""
    lines = text.split("\n")
    closers: dict[str, list[int]] = {}
    for number, line in enumerate(lines):
        # "\r" too: split on "\n" leaves it on every line of a CRLF answer.
        bare = line.strip(" \t\r")
        # Not mutated: a line whose first three characters are one fence character has that character at [1]
        # too
        if bare[:3] in ("```", "~~~") and bare == bare[0] * len(bare):  # pragma: no mutate
            closers.setdefault(bare, []).append(number)
    blocks: list[tuple[str, str]] = []
    number = 0  # pragma: no mutate: line 0 is the heading's empty rest
    while number < len(lines):
        opening = _FENCE_OPEN_RE.fullmatch(lines[number])
        if opening:
            candidates = closers.get(opening.group(1), [])
            at = bisect.bisect_right(candidates, number)
            if at < len(candidates):
                end = candidates[at]
                blocks.append((opening.group(2), "".join(line + "\n" for line in lines[number + 1 : end])))
                number = end + 1
                continue
        number += 1
    return blocks


def _read_sources(text: str, headings: list[tuple[int, int, int, str]], facts: BodyFacts) -> None:
    for index, (_start, line_end, _level, title) in enumerate(headings):
        match = _SOURCE_HEADING_RE.match(title)
        if not match:
            continue
        # Not mutated: a slice ending at None ends at len(text)
        body = text[line_end : _section_end(headings, index, len(text))]  # pragma: no mutate
        metadata: dict[str, Any] = {}
        fence = _metadata_fence(body)
        if fence is None:
            facts.problems.append(f"Source {match.group(1)} has no YAML metadata block.")
        else:
            loaded, reason = load_mapping(fence)
            if loaded is None:
                facts.problems.append(f"Source {match.group(1)}'s metadata was not read: {reason}.")
            else:
                metadata = loaded
                missing = [name for name in SOURCE_FIELDS if name not in metadata]
                if missing:
                    facts.problems.append(f"Source {match.group(1)}'s metadata lacks {', '.join(missing)}.")
        facts.sources.append(
            AnswerSource(int(match.group(1)), match.group(2).strip(), metadata, body.strip())
        )


def _read_next_steps(text: str, spans: list[tuple[int, int]]) -> list[str]:
    steps: list[str] = []
    collecting = False  # pragma: no mutate: only tested for truth
    offset = 0  # pragma: no mutate: only an empty line moves, read as nothing
    for line in text.splitlines(keepends=True):
        position, offset = offset, offset + len(line)
        line = line.rstrip("\r\n")  # pragma: no mutate: $ and strip() absorb it
        if in_spans(position, spans):
            continue
        if _NEXT_STEPS_RE.match(line):
            collecting = True
            continue
        if not collecting:
            continue
        if _HEADING_RE.match(line):
            break
        item = _ITEM_RE.match(line)
        if item:
            if item.group(1).strip():  # a bullet with nothing after it is no step
                steps.append(item.group(1).strip())
        elif line.strip() and steps and line[:1] in " \t":
            # An indented line continues the item above it.
            steps[-1] = f"{steps[-1]} {line.strip()}"
        elif line.strip() and steps:
            break
    return steps


def read_body(answer: str) -> BodyFacts:
    """Read the structure of an answer's Markdown; never raises."""
    facts = BodyFacts()
    spans = fenced_spans(answer)
    headings = _headings(answer, spans)
    facts.sections = [title for _start, _end, _level, title in headings]
    _read_sources(answer, headings, facts)
    for match in _CONFIDENCE_RE.finditer(answer):
        if in_spans(match.start(), spans):
            continue
        # Not mutated: normalise_confidence strips the value's whitespace again
        facts.confidence = normalise_confidence(match.group(1).rstrip(" \t"))  # pragma: no mutate
        if facts.confidence is None:
            facts.problems.append(f"The confidence line {match.group(0).strip()!r} names no single level.")
        break
    facts.no_answer_marker = any(not in_spans(m.start(), spans) for m in _NO_ANSWER_RE.finditer(answer))
    facts.next_steps = _read_next_steps(answer, spans)
    return facts


def resolve_confidence(declared: object, facts: BodyFacts, problems: list[str]) -> tuple[str | None, bool]:
    """Settle the answer's confidence and whether it is the "no results" form.

    The frontmatter wins over the body (it is the field consumers read
    first); a disagreement is noted. The "No Definitive Answer Found" form
    implies NONE when nothing else is said."""
    # Not mutated: normalise_confidence(None) is None
    from_frontmatter = normalise_confidence(declared) if declared is not None else None  # pragma: no mutate
    if declared is not None and from_frontmatter is None:
        problems.append(
            f"The frontmatter confidence {declared!r} is not one of {', '.join(CONFIDENCE_LEVELS)}."
        )
    if from_frontmatter and facts.confidence and from_frontmatter != facts.confidence:
        problems.append(
            f"The frontmatter says confidence {from_frontmatter} but the answer says {facts.confidence}."
        )
    confidence = from_frontmatter or facts.confidence
    if facts.no_answer_marker and confidence is None:
        confidence = "NONE"
    if facts.no_answer_marker and confidence != "NONE":
        problems.append(f"The answer says no definitive answer was found but its confidence is {confidence}.")
    return confidence, facts.no_answer_marker or confidence == "NONE"
