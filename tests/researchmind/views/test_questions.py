"""A long run's question page: each timeline list opens with its last items and
loads earlier ones on demand, in order, each once, for the owner only."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from progress.models import ProgressEvent
from progress.selectors import FINISHED_TIMELINE_PAGE, TIMELINE_PAGE
from researchmind.models import Question
from researchmind.runs import store_run_summary

pytestmark = pytest.mark.django_db

STEPS, DETAILS = 450, 330


@pytest.fixture
def long_run(user, make_session):
    """A finished run with 450 tool steps (every third failed) and 330 system details,
    interleaved, plus text deltas the timeline never shows."""
    session = make_session(user)
    question = Question.objects.create(
        session=session, text="q", status=Question.Status.COMPLETE, answer="Done."
    )
    rows, seq = [], 0

    def add(kind, stage, detail, payload):
        nonlocal seq
        seq += 1
        rows.append(
            ProgressEvent(question=question, seq=seq, kind=kind, stage=stage, detail=detail, payload=payload)
        )

    for n in range(STEPS):
        tool = {"tool_use_id": f"toolu_{n}"}
        add("tool_start", "primary", f"Reading file {n}", tool)
        add("tool_end", "primary", f"Done: file {n}", {**tool, "is_error": n % 3 == 0})
        add("text_delta", "primary", "Writing the answer", {"text": f"part {n} "})
        if n < DETAILS:
            add("system", "expandable", f"hook {n}", {"subtype": "hook_response"})
    add("end", "primary", "Complete", {"status": "complete"})
    ProgressEvent.objects.bulk_create(rows)
    return question


def _list(html: str, list_id: str) -> str:
    return re.search(rf'<ol id="{list_id}".*?</ol>', html, re.DOTALL)[0]


def _seqs(html: str) -> list[int]:
    return [int(s) for s in re.findall(r'data-seq="(\d+)"', html)]


def _more(html: str) -> str | None:
    match = re.search(r'hx-get="([^"]+)"', html)
    return match[1].replace("&amp;", "&") if match else None


@pytest.mark.parametrize("summarised", [True, False], ids=["summary recorded", "run from before summaries"])
def test_page_opens_with_the_last_items_of_each_list(long_run, user, client_for, summarised):
    """A finished run's page opens with the last FINISHED_TIMELINE_PAGE items of
    each list and says how many earlier ones there are, whether the counts come
    from the summary recorded as the run ended or are counted now."""
    if summarised:
        assert store_run_summary(long_run.pk)["items"] == {"primary": STEPS + 1, "details": STEPS + DETAILS}
    client = client_for(user)
    html = client.get(reverse("question_detail", args=[long_run.session_id, long_run.pk])).content.decode()
    steps, details = _list(html, "timeline"), _list(html, "details-log")
    all_steps = list(long_run.events.filter(kind__in=["tool_start", "end"]).values_list("seq", flat=True))
    assert _seqs(steps) == all_steps[-FINISHED_TIMELINE_PAGE:]
    assert f"Show {len(all_steps) - FINISHED_TIMELINE_PAGE} earlier steps" in steps
    assert f"Show {STEPS + DETAILS - FINISHED_TIMELINE_PAGE} earlier details" in details
    # A step on the page carries the state of its tool_end, found without loading the whole run.
    last = STEPS - 1
    assert re.search(
        rf'id="tool-toolu_{last}" class="event kind-tool_start {"failed" if last % 3 == 0 else "done"}', steps
    )


@pytest.mark.parametrize(
    "list_id, kinds", [("timeline", ["tool_start", "end"]), ("details-log", ["tool_end", "system"])]
)
def test_earlier_items_load_in_order_each_once(long_run, user, client_for, list_id, kinds):
    client = client_for(user)
    html = _list(
        client.get(reverse("question_detail", args=[long_run.session_id, long_run.pk])).content.decode(),
        list_id,
    )
    pages = [_seqs(html)]
    url = _more(html)
    while url:
        chunk = client.get(url)
        assert chunk.status_code == 200
        text = chunk.content.decode()
        pages.insert(0, _seqs(text))
        assert len(pages[0]) <= TIMELINE_PAGE
        url = _more(text)
    expected = list(long_run.events.filter(kind__in=kinds).order_by("seq").values_list("seq", flat=True))
    assert [seq for page in pages for seq in page] == expected


def test_timeline_pages_are_the_owners_only(long_run, user, other_user, client_for):
    url = reverse("question_timeline", args=[long_run.session_id, long_run.pk]) + "?part=primary&before=100"
    assert client_for(other_user).get(url).status_code == 404
    owner = client_for(user)
    assert owner.get(url).status_code == 200
    for bad in ("?part=primary", "?part=raw&before=5", "?part=details&before=x", "?part=details&before=0"):
        base = reverse("question_timeline", args=[long_run.session_id, long_run.pk])
        assert owner.get(base + bad).status_code == 400


def test_page_read_as_the_run_ends_shows_it_finished(user, make_session):
    """A run can end between the page reading its question and reading its
    events (a built-in run takes milliseconds): the page must not show it
    running while resuming after its end event, or it never sees it finish."""
    from researchmind.pages import question_context

    question = Question.objects.create(
        session=make_session(user), text="q", engine="builtin", status=Question.Status.RUNNING
    )
    read_as_running = Question.objects.get(pk=question.pk)
    # The run then finishes: its final state first, then its end event.
    Question.objects.filter(pk=question.pk).update(status=Question.Status.COMPLETE, answer="Done.")
    ProgressEvent.objects.create(question=question, seq=1, kind="run_start", stage="primary")
    ProgressEvent.objects.create(question=question, seq=2, kind="end", stage="primary", detail="Complete")
    context = question_context(read_as_running)
    assert context["question"].status == "complete"
    assert context["last_seq"] == 2


def test_running_page_before_its_end_resumes_from_its_last_event(user, make_session):
    """Without an end event the page shows the run as running and resumes after its last seq."""
    from researchmind.pages import question_context

    question = Question.objects.create(
        session=make_session(user), text="q", engine="builtin", status=Question.Status.RUNNING
    )
    ProgressEvent.objects.create(question=question, seq=1, kind="run_start", stage="primary")
    context = question_context(Question.objects.get(pk=question.pk))
    assert context["question"].status == "running"
    assert context["last_seq"] == 1
