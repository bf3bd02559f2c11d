"""The fan-out pages: the form, the lanes partial, the report on the question
page and the admin; ownership is checked on every new view."""

from __future__ import annotations

import pytest
from django.urls import reverse

from researchmind import services
from researchmind.models import Question
from researchmind.runs import run_question

pytestmark = pytest.mark.django_db(transaction=True)


def _run_consistency(session, items):
    parent = services.fanout_create(
        session=session, text="Do these agree?", result_type="consistency", items=items[:2], every_pair=False
    )
    run_question(parent.pk)
    parent.refresh_from_db()
    return parent


def test_session_page_links_to_the_fanout_form(token_session, client_for, user):
    """The session page offers "Ask across content items"."""
    session, _ = token_session
    page = client_for(user).get(reverse("session_detail", args=[session.id])).content.decode()
    assert reverse("fanout_ask", args=[session.id]) in page and "Ask across content items" in page


def test_form_lists_ready_items(token_session, client_for, user):
    """The form offers each ready content item as a checkbox and the three result types."""
    session, items = token_session
    page = client_for(user).get(reverse("fanout_ask", args=[session.id])).content.decode()
    for item in items:
        assert f'value="{item.id}"' in page and item.title in page
    assert 'value="verification"' in page and 'name="concurrency"' in page


def test_post_creates_parent_with_chosen_subset(token_session, client_for, user):
    """Posting two ticked items makes a parent with two sub-runs and redirects to its page."""
    session, items = token_session
    response = client_for(user).post(
        reverse("fanout_ask", args=[session.id]),
        {
            "text": "Summarise token rules",
            "result_type": "digest",
            "items": [items[0].id, items[2].id],
            "pairs": "all",
            "checklist": "",
            "engine": "builtin",
            "concurrency": 3,
        },
    )
    parent = Question.objects.get(parent__isnull=True, session=session)
    assert response.status_code == 302
    assert response["Location"] == reverse("question_detail", args=[session.id, parent.pk])
    assert parent.protocol["fanout"]["items"] == [str(items[0].id), str(items[2].id)]
    assert parent.protocol["fanout"]["concurrency"] == 3
    assert parent.sub_runs.count() == 2


def test_post_defaults_to_all_ready_items(token_session, client_for, user):
    """With no item ticked, every ready content item gets a sub-run."""
    session, items = token_session
    client_for(user).post(
        reverse("fanout_ask", args=[session.id]),
        {
            "text": "Digest",
            "result_type": "digest",
            "pairs": "all",
            "engine": "builtin",
            "concurrency": 2,
        },
    )
    assert Question.objects.get(parent__isnull=True).sub_runs.count() == len(items)


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"result_type": "verification", "checklist": ""}, "checklist"),
        ({"result_type": "consistency", "pairs": "chosen"}, "items"),
        ({"result_type": "digest", "concurrency": 5}, "concurrency"),
    ],
)
def test_invalid_posts_are_refused(token_session, client_for, user, data, field):
    """A verification needs a checklist; "the two chosen" needs exactly two; concurrency is at most 4."""
    session, _ = token_session
    form = {"text": "Q", "pairs": "all", "engine": "builtin", "concurrency": 2} | data
    response = client_for(user).post(reverse("fanout_ask", args=[session.id]), form)
    assert response.status_code == 422
    assert field in response.context["form"].errors
    assert not Question.objects.exists()


def test_other_users_get_404(token_session, client_for, other_user):
    """Another user can neither open the form, post to it, nor open the question page."""
    session, items = token_session
    parent = services.fanout_create(session=session, text="Q", result_type="digest", items=items)
    client = client_for(other_user)
    assert client.get(reverse("fanout_ask", args=[session.id])).status_code == 404
    assert client.post(reverse("fanout_ask", args=[session.id]), {"text": "x"}).status_code == 404
    assert client.get(reverse("question_detail", args=[session.id, parent.pk])).status_code == 404
    assert Question.objects.count() == 4


def test_lanes_before_the_run_and_no_polling(token_session, client_for, user):
    """Before the run, the page shows a lane per sub-run and an empty report
    placeholder; nothing on it polls: the question's websocket updates both."""
    session, items = token_session
    parent = services.fanout_create(session=session, text="Q", result_type="digest", items=items)
    page = client_for(user).get(reverse("question_detail", args=[session.id, parent.pk])).content.decode()
    assert page.count('class="lane lane-queued"') == 3
    assert "Waiting for a free slot" in page
    assert "hx-trigger" not in page and "every 1s" not in page and "/lanes/" not in page
    assert page.count("ws-connect=") == 1
    assert '<section id="fanout-report" hidden></section>' in page


def test_report_page_after_the_run(token_session, client_for, user):
    """After the run: finished lanes (no polling), the report with its finding table and citations by sub-run."""
    session, items = token_session
    parent = _run_consistency(session, items)
    page = client_for(user).get(reverse("question_detail", args=[session.id, parent.pk])).content.decode()
    assert 'id="fanout-lanes"' in page and "?poll=1" not in page
    assert 'id="fanout-report"' in page and 'id="findings-table"' in page
    assert 'data-severity="major" data-type="contradiction"' in page
    assert 'data-filter="severity"' in page and "js/findings.js" in page
    assert "Citations by sub-run" in page and "Access tokens expire after 60 minutes." in page
    (sub,) = parent.sub_runs.all()
    assert reverse("question_detail", args=[session.id, sub.pk]) in page


def test_the_report_is_said_once_in_the_persons_words(token_session, client_for, user):
    """One report (not again as the answer), titled by the question typed, opened by a
    paragraph that answers it; items by title, never by folder UUID; finished lanes
    show no phase; a sub-run's page is named by its items and the question, its
    internal prompt folded."""
    session, items = token_session
    parent = _run_consistency(session, items)
    page = client_for(user).get(reverse("question_detail", args=[session.id, parent.pk])).content.decode()
    assert page.count("<h3>Findings</h3>") == 1 and 'class="answer prose"' not in page
    assert "Across 1 sub-run: Do these agree?" in page
    assert '<p class="fanout-lead">“Do these agree?” was asked of 1 sub-run: 1 reported findings.' in page
    coverage = page[
        page.index('class="coverage-map"') : page.index("</table>", page.index('class="coverage-map"'))
    ]
    assert str(items[0].id) not in coverage and items[0].title in coverage
    lanes = page[page.index('id="fanout-lanes"') : page.index("</section>", page.index('id="fanout-lanes"'))]
    assert 'class="lane-phase"' not in lanes
    (sub,) = parent.sub_runs.all()
    sub_page = client_for(user).get(reverse("question_detail", args=[session.id, sub.pk])).content.decode()
    heading = sub_page[sub_page.index('<h1 class="question-text">') : sub_page.index("</h1>")]
    assert f"{sub.sub_run_label} — Do these agree?" in heading and "Scope:" not in heading
    assert "The prompt this sub-run was given" in sub_page


def test_sub_run_events_update_the_lanes_over_the_websocket(token_session, user):
    """The parent's "subrun" events carry the lanes, re-rendered from the
    database, for an out-of-band swap; its end carries the report too."""
    from researchmind.fragments import render_events_html

    session, items = token_session
    parent = services.fanout_create(session=session, text="Q", result_type="digest", items=items)
    first = parent.sub_runs.order_by("pk").first()
    Question.objects.filter(pk=first.pk).update(status="running")
    started = {
        "seq": 2,
        "kind": "subrun",
        "stage": "primary",
        "phase": "",
        "step": None,
        "total": None,
        "detail": "Sub-run 1/3 started",
        "payload": {"question_id": first.pk, "state": "started"},
    }
    html = render_events_html(parent.pk, [started])
    assert (
        '<section id="fanout-lanes" class="card fanout-lanes" aria-labelledby="lanes-heading" hx-swap-oob="true">'
        in html
    )
    assert html.count('class="lane lane-running"') == 1 and html.count('class="lane lane-queued"') == 2
    assert "fanout-report" not in html
    plain = {
        "seq": 3,
        "kind": "heartbeat",
        "stage": "expandable",
        "phase": "",
        "step": None,
        "total": None,
        "detail": "Still working",
        "payload": {},
    }
    assert "fanout-lanes" not in render_events_html(parent.pk, [plain])


def test_the_end_of_a_fanout_brings_the_report_over_the_websocket(token_session, user):
    from researchmind.fragments import render_events_html

    session, items = token_session
    parent = _run_consistency(session, items)
    end = {
        "seq": 99,
        "kind": "end",
        "stage": "primary",
        "phase": "",
        "step": None,
        "total": None,
        "detail": "Complete",
        "payload": {"status": parent.status},
    }
    html = render_events_html(parent.pk, [end])
    assert (
        'id="fanout-report" class="card fanout-report" aria-labelledby="report-heading" hx-swap-oob="true"'
        in html
    )
    assert 'id="findings-table"' in html and "hx-swap-oob" in html.split('id="fanout-lanes"')[1][:200]


def test_admin_shows_findings(token_session, client, admin_user):
    """QuestionAdmin lists a findings count, filters fan-out parents and shows the findings table."""
    session, items = token_session
    parent = _run_consistency(session, items)
    client.force_login(admin_user)
    listing = client.get(
        reverse("admin:researchmind_question_changelist") + "?fanout=parent"
    ).content.decode()
    assert "Findings" in listing and "Do these agree?" in listing
    change = client.get(reverse("admin:researchmind_question_change", args=[parent.pk])).content.decode()
    assert "Findings table" in change and "contradiction" in change and "G1" in change
