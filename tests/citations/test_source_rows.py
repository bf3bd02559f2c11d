"""The sources list's rows, written out in Python, are the markup the page's template
loop gave for the same citations: every value escaped as ``{{ }}`` escapes it, each
optional part where the loop put it, the request's CSRF input between the halves."""

from __future__ import annotations

import uuid

import pytest
from django.template import engines

from citations.models import Citation
from citations.presenters import Links, citation_view, source_rows
from researchmind.models import Question

# The loop as the page's template had it, kept here as the reference.
LOOP = """{% for row in rows %}
          <li id="source-{{ row.citation.cid }}" class="source">
            <span class="cid">[{{ row.citation.cid }}]</span>
            {% if row.view.href %}<a href="{{ row.view.href }}"{% if row.view.is_url %} rel="noopener noreferrer" target="_blank"{% endif %}>{{ row.view.label }}</a>{% else %}<span>{{ row.view.label }}</span>{% endif %}
            <span class="badge verify-{{ row.citation.verification }}" title="{{ row.citation.verification_detail }}">{{ row.view.status_label }}</span>
            <span class="{{ row.support_class }} support-{{ row.citation.support }}" title="{{ row.support_title }}">{{ row.view.support_label }}</span>
            {% if row.citation.found_by == "attached" %}<span class="badge badge--info attached-by-app" title="The model gave no citation that verifies: the app matched this sentence to the lines of a passage the model was given or read.">Attached by the app</span>{% endif %}
            {% if row.citation.found_by == "api" %}<span class="badge badge--info extracted-by-api" title="The Anthropic API extracted this quote from a passage the app sent, one line per block: the lines are the blocks it cited.">Extracted by the API</span>{% endif %}
            <span class="meta">{{ row.kind }}{% if row.confidence %} · confidence {{ row.confidence }}{% endif %}</span>
            {% if row.excerpt %}<blockquote class="excerpt">{{ row.excerpt }}</blockquote>{% endif %}
            {# the labels, URLs and shown excerpt come worked out (citations/presenters.py source_rows) #}
            <form method="post" action="{{ row.feedback_url }}" hx-post="{{ row.feedback_url }}" hx-swap="outerHTML" class="feedback-form inline-form">
              {% csrf_token %}
              <button type="submit" name="verdict" value="helpful" class="button tiny">Helpful</button>
              <button type="submit" name="verdict" value="wrong" class="button tiny">Wrong</button>
            </form>
          </li>
          {% endfor %}"""
# The page's template now.
ROWS = "{% for row in citations %}{{ row.opening }}{% csrf_token %}{{ row.closing }}{% endfor %}"
HOSTILE = "<b>\"quoted\" & 'single'</b> {{ x }} {% y %}"


def rows_of_old(question, citations, model=None):
    """What the loop was given: each row's values as ``source_rows`` worked them out before."""
    links = Links()
    views = {c.cid: citation_view(c, links) for c in citations}
    rows = []
    for citation in citations:
        title = citation.support_reason
        if citation.support_judged_by:
            judge = citation.get_support_judged_by_display()
            if citation.support_judged_by == "llm" and model:
                judge += f": {model}"
            title += f" ({judge})"
        view = views[citation.cid]
        excerpt = view.excerpt[:1199] + "…" if len(view.excerpt) > 1200 else view.excerpt
        rows.append(
            {
                "citation": citation,
                "view": view,
                "support_class": "meta support-quiet" if citation.support == "unjudged" else "badge",
                "support_title": title,
                "kind": citation.get_source_type_display()
                + (f" · {citation.relevance}" if citation.relevance else ""),
                "confidence": f"{citation.confidence:.2f}" if citation.confidence is not None else "",
                "excerpt": excerpt,
                "feedback_url": links.feedback(citation.pk),
            }
        )
    return rows


def citations_for(question) -> list[Citation]:
    item = uuid.uuid4()
    common = {"question": question, "verification_detail": HOSTILE}
    return [
        Citation(
            pk=11,
            cid="c1",
            content_item_id=item,
            source_path=f"{item}/a <b>.md",
            line_start=3,
            line_end=4,
            excerpt='x < y && z > "w"',
            verification="verified",
            support="supports",
            support_judged_by="lexical",
            support_reason=HOSTILE,
            confidence=0.9,
            relevance="direct",
            found_by="citations_block",
            **common,
        ),
        Citation(
            pk=12,
            cid="c2",
            source_type="url",
            url="https://example.org/?a=1&b=<2>",
            title=HOSTILE,
            verification="url_matched",
            support="unjudged",
            support_judged_by="llm",
            found_by="attached",
            excerpt="",
            confidence=None,
            **common,
        ),
        Citation(
            pk=13,
            cid="c3",
            source_type="url",
            url="javascript:alert(1)",
            verification="excerpt_mismatch",
            support="partial",
            found_by="api",
            excerpt="é" * 1500,
            confidence=0.0,
            **common,
        ),
        Citation(
            pk=14,
            cid="c<4>",
            source_path="loose.md",
            verification="missing_file",
            support="unsupported",
            support_judged_by="human",
            support_reason="",
            relevance="contextual",
            confidence=0.123,
            excerpt="  lines\n  kept\t ",
            **common,
        ),
    ]


@pytest.mark.parametrize("token", ["masked-token-1", ""])
def test_rows_are_the_loops_markup(token):
    """Each kind of row (linked to the viewer or the web, unlinked, attached, extracted,
    with and without a confidence or an excerpt, hostile text everywhere) is the loop's."""
    question = Question(pk=7, session_id=uuid.uuid4(), protocol={"support_judge_model": "m<1>"})
    citations = citations_for(question)
    links = Links()
    views = {c.cid: citation_view(c, links) for c in citations}
    django_engine = engines["django"]
    old = django_engine.from_string(LOOP).render(
        {"rows": rows_of_old(question, citations, "m<1>"), "csrf_token": token}
    )
    new = django_engine.from_string(ROWS).render(
        {"citations": source_rows(question, citations, views, links), "csrf_token": token}
    )
    assert new == old
    assert "&lt;b&gt;&quot;quoted&quot; &amp; &#x27;single&#x27;&lt;/b&gt;" in new
