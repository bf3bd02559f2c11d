"""The app keeps line indexes in the session's private state folder: taken
when an answer's citations are recorded, used when they are verified again,
removed with the content item they index and with the session."""

from __future__ import annotations

import json

from citations.models import Citation
from citations.services import citations_record, citations_reverify
from core.citations.verification import linestore
from researchmind import services
from researchmind.models import Question


def _answer(session, item, name: str = "notes.md") -> Question:
    block = [
        {"id": f"c{n}", "source_file": f"{item.id}/{name}", "source_type": "file", "excerpt": excerpt}
        for n, excerpt in ((1, "Refresh daily."), (2, "expire after 15"))
    ]
    question = Question.objects.create(
        session=session,
        text="When?",
        engine="builtin",
        status=Question.Status.COMPLETE,
        answer="They expire after 15 minutes [c2] and refresh daily [c1].",
        answer_raw=f"They expire [c1][c2].\n<!-- CITATIONS: {json.dumps(block)} -->",
    )
    citations_record(question)
    return question


def test_recorded_citations_index_their_files_in_the_private_state(research, add_text):
    item = add_text(research, "Notes", "# Notes\n\nAccess tokens expire after 15 minutes.\nRefresh daily.\n")
    question = _answer(research, item)
    folder = research.state_path / linestore.FOLDER / str(item.id)
    assert [p.suffix for p in folder.iterdir()] == [".idx"]
    assert not (research.sandbox_path / linestore.FOLDER).exists()
    recorded = list(Citation.objects.filter(question=question).values_list("verification", "line_start"))
    assert sorted(recorded) == [("verified", 3), ("verified", 4)]
    citations_reverify(Citation.objects.filter(question=question))
    again = list(Citation.objects.filter(question=question).values_list("verification", "line_start"))
    assert sorted(again) == sorted(recorded)


def test_removing_content_removes_its_line_indexes(research, add_text):
    item = add_text(research, "Notes", "# Notes\n\nAccess tokens expire after 15 minutes.\nRefresh daily.\n")
    kept = add_text(research, "Other", "Tokens expire after 15 days.\nRefresh daily.\n")
    _answer(research, item)
    _answer(research, kept, "other.md")
    base = research.state_path / linestore.FOLDER
    assert (base / str(item.id)).is_dir()
    services.content_delete(item)
    assert not (base / str(item.id)).exists()
    assert (base / str(kept.id)).is_dir()
    services.session_delete(research)
    assert not research.state_path.exists()
