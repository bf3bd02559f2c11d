"""A report-format answer laid out for a reader: the short answer first with no
heading, evidence after, the confidence folded; other answers untouched."""

from __future__ import annotations

from core.citations.rendering import render_answer
from core.citations.rendering.reader import for_reader

REPORT = """# Research Report: access tokens

## Quick Answer
An access token expires 15 minutes after it is issued.

## Supporting Evidence

### Auth notes — auth.md
- Refresh tokens live for 30 days.

## Confidence Score: HIGH
**Reasoning**: The quoted passage has every key word of the question.

**Sources:** Auth notes
"""


def _html(markdown: str) -> str:
    return render_answer(markdown, {}, link_for=lambda view: None)


def test_the_answer_comes_first_and_the_frame_is_light():
    html = _html(REPORT).strip()
    assert html.startswith("<p>An access token expires 15 minutes")
    assert "Research Report" not in html and "Quick Answer" not in html  # the page's heading says it
    assert html.index("<h3>Supporting Evidence</h3>") < html.index("<h4>Auth notes — auth.md</h4>")
    folded = html[html.index('<details class="answer-confidence">') :]
    assert folded.startswith('<details class="answer-confidence"><summary>Confidence: High</summary>')
    assert "The quoted passage has every key word" in folded and "Auth notes" in folded
    assert html.rstrip().endswith("</details>")


def test_a_no_answer_report_keeps_its_next_steps():
    html = _html(
        "# Research Report: x\n\n## Quick Answer\n⚠️ **No Definitive Answer Found**\n\n"
        "## Confidence Score: NONE\n**Reasoning**: Nothing.\n\n## Recommended Next Steps\n1. Look.\n"
    )
    assert html.strip().startswith("<p>⚠️ <strong>No Definitive Answer Found</strong>")
    assert html.index("<h3>Recommended Next Steps</h3>") < html.index("answer-confidence")
    assert "<summary>Confidence: None</summary>" in html


def test_other_answers_are_untouched():
    plain = "<h2>Notes</h2><p>Just prose.</p>"
    assert for_reader(plain) == plain
    assert for_reader("<p>One paragraph.</p>") == "<p>One paragraph.</p>"


def test_a_heading_cannot_smuggle_markup_into_the_summary():
    html = _html("## Quick Answer\nYes.\n\n## Confidence Score: <img src=x onerror=alert(1)>HIGH\nok\n")
    assert "<img" not in html  # shown as text at most, never a tag
    summary = html[html.index("<summary>") : html.index("</summary>")]
    assert "<" not in summary[len("<summary>") :]
