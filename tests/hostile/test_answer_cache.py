"""The rendered-answer cache must never keep an answer without its citation
links (seen in the browser suite: a page loaded just as a builtin run
finished showed `[c1]` as plain text for good)."""

from __future__ import annotations

import json

from researchmind.models import Question


def test_answer_cached_while_citations_are_recorded_keeps_its_links(research, add_text, monkeypatch):
    from citations import presenters
    from citations.services import citations_record

    item = add_text(research, "Notes", "# Notes\n\nAccess tokens expire after 15 minutes.\n")
    block = [
        {
            "id": "c1",
            "source_file": f"{item.id}/notes.md",
            "source_type": "file",
            "excerpt": "Access tokens expire after 15 minutes.",
        }
    ]
    question = Question.objects.create(
        session=research,
        text="When?",
        engine="builtin",
        status=Question.Status.COMPLETE,
        answer="Access tokens expire after 15 minutes [c1].",
        answer_raw=f"Access tokens expire after 15 minutes [c1].\n<!-- CITATIONS: {json.dumps(block)} -->",
    )
    real_render = presenters.render_answer

    def render_while_the_run_records_citations(*args, **kwargs):
        citations_record(Question.objects.select_related("session").get(pk=question.pk))  # the run's commit
        return real_render(*args, **kwargs)

    monkeypatch.setattr(presenters, "render_answer", render_while_the_run_records_citations)
    presenters.answer_context(Question.objects.get(pk=question.pk))  # a page load racing the run's end
    monkeypatch.setattr(presenters, "render_answer", real_render)

    later = presenters.answer_context(Question.objects.get(pk=question.pk))
    assert question.citations.count() == 1
    assert 'class="cite' in later["answer_html"]
