"""A report-format answer laid out for a reader.

The engines write the seeds' report ("# Research Report: …", "## Quick
Answer", "## Supporting Evidence", "## Confidence Score: HIGH" with its
"**Reasoning**", …), which the protocols parse and the raw answer keeps. On
the page that frame was heavier than its content: a title restating the
page's heading and five headings around a one-sentence answer. Here the
short answer comes first with no heading, the evidence and the report's other
sections follow one level down, and the confidence with its reasoning is
folded at the end.

Works on the sanitised HTML (headings carry no attributes there); only
headings are moved or rewritten, every other element is kept as it was.
Pure Python, no Django imports.
"""

from __future__ import annotations

import html
import re

_HEADING = re.compile(r"<h([12])>(.*?)</h\1>", re.S)
_TAGS = re.compile(r"<[^>]+>")
_TITLE = re.compile(r"^(?:web\s+)?research\s+report\b", re.I)
_ANSWER = re.compile(r"^(?:quick\s+answer|answer|short\s+answer|summary)$", re.I)
_CONFIDENCE = re.compile(r"^confidence(?:\s+score)?\s*:?\s*(.*)$", re.I)


_SUBHEADING = re.compile(r"<(/?)h([3-5])>")


def _demoted(match: re.Match) -> str:
    return f"<{match.group(1)}h{int(match.group(2)) + 1}>"


def _text(fragment: str) -> str:
    return " ".join(html.unescape(_TAGS.sub("", fragment)).split())


def for_reader(answer_html: str) -> str:
    """``answer_html`` reordered for reading when it is a report (it has a
    "Quick Answer" section); any other answer is returned unchanged."""
    parts = _HEADING.split(answer_html)  # [before, level, heading, body, level, heading, body, …]
    before = parts[0]
    sections = [(parts[i], parts[i + 1], parts[i + 2]) for i in range(1, len(parts), 3)]
    if not any(level == "2" and _ANSWER.match(_text(heading)) for level, heading, _ in sections):
        return answer_html
    lead, rest, folded = [before] if before.strip() else [], [], []
    for level, heading, body in sections:
        title = _text(heading)
        if level == "1" and _TITLE.match(title):
            rest.append(body)  # the page's heading already says what was asked
        elif _ANSWER.match(title):
            lead.append(body)
        elif confidence := _CONFIDENCE.match(title):
            level_name = confidence.group(1).strip() or "not given"
            folded.append(
                '<details class="answer-confidence"><summary>Confidence: '
                f"{html.escape(level_name.capitalize())}</summary>{body}</details>"
            )
        else:  # one level down: the card's own heading is an <h2>
            rest.append(f"<h3>{heading}</h3>{_SUBHEADING.sub(_demoted, body)}")
    return "".join(lead + rest + folded)
