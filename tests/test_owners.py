"""One owner per decision: where a rule is decided once and read elsewhere, the
readers follow the owner. Each test pins one such agreement."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async

from citations.audit import SUPPORT_LABELS
from citations.models import Citation
from core import svgtimeline, text
from core.citations import markers, rendering
from core.citations.markers import MARKER_RE, drop_markers
from core.citations.parsing import parse_citations
from core.citations.parsing.model import FoundBy
from core.citations.rendering import links
from core.citations.states import SUPPORT_BADGES, SupportLabel
from core.citations.support import judge
from core.content_kinds import ADDED_AS, ContentKind
from core.engines.builtin import protocol as builtin_protocol
from core.engines.builtin.answer import _show
from core.engines.openai.research import TOOL_MODES
from core.protocols import FANOUT_RESULT_TYPES, RESULT_TYPES, Finding, severity_rank
from core.protocols.findings import SEVERITY_RANK, UNKNOWN_SEVERITY_RANK
from core.stream import events
from core.stream.markers import MarkerStripper, strip_markers
from progress import recorder
from researchmind import services
from researchmind.api.endpoints.content import router as content_api
from researchmind.api.endpoints.questions import websocket_path
from researchmind.forms import RESULT_TYPE_CHOICES
from researchmind.models import (
    PROVIDER_ENGINE_PREFIX,
    ContentItem,
    EngineCheck,
    EngineProvider,
    Question,
    ResearchSession,
)
from researchmind.pages import fanout_lanes, socket_path
from researchmind.routing import websocket_urlpatterns
from researchmind.runs import fanout, fanout_report, lease, run
from researchmind.runs import judge as model_judge
from researchmind.runs.fanout import RESULT_TYPES as FANOUT_TYPES
from researchmind.runs.fanout import is_fanout
from researchmind.views.content import CONTENT_FORMS, CONTENT_TABS

BLOCK_BODY = '[{"id": "c1", "source_file": "a/notes.md", "excerpt": "The lamp is visible."}]'


@pytest.mark.parametrize(
    "opener",
    [
        "<!-- CITATIONS:",
        "<!-- citations:",
        "<!--Citations :",
        "<!--\n  CITATIONS\t:",
        "<!-- CITATIONS",  # no colon: not a block
        "<!--" + " " * 21 + "CITATIONS:",  # too many blanks before the keyword: not a block
        "<!-- CİTATIONS:",  # not the keyword (a dotted capital I)
    ],
)
def test_the_shown_answer_hides_exactly_the_citations_blocks_the_parser_reads(opener):
    """A CITATIONS block is hidden from the shown answer if and only if its
    citations are recorded (core.answer_markers owns the grammar)."""
    raw = f"The lamp is visible [c1].\n\n{opener} {BLOCK_BODY} -->\n"
    shown = strip_markers(raw)
    recorded = [c for c in parse_citations(raw).citations if c.found_by == "citations_block"]
    hidden = "notes.md" not in shown
    assert hidden == bool(recorded), (shown, recorded)


def test_a_lowercase_citations_block_is_hidden_and_recorded():
    """The case the two rules disagreed on: a lowercase block was recorded as a
    citation yet stayed in the shown answer."""
    raw = f"The lamp is visible [c1].\n\n<!-- citations: {BLOCK_BODY} -->\n"
    assert strip_markers(raw).strip() == "The lamp is visible [c1]."
    assert [c.source_path for c in parse_citations(raw).citations] == ["a/notes.md"]


def test_a_lowercase_block_split_across_deltas_is_hidden():
    """The streaming stripper holds back a lowercase opener cut anywhere."""
    raw = f"Answer.\n<!-- citations: {BLOCK_BODY} -->\n"
    for cut in range(1, len(raw)):
        stripper = MarkerStripper()
        shown = stripper.feed(raw[:cut])[0] + stripper.feed(raw[cut:])[0] + stripper.flush()[0]
        assert shown == "Answer.\n\n", cut
        assert len(stripper.citations) == 1


QUOTED = "Codes [c1], [c2, c3], [c4; c5] and [c6-c8] appear in the quoted file."


def test_the_page_the_judge_and_the_parser_share_the_marker_grammar():
    """``[cN]`` is defined once (core.citations.markers): the renderer links and the
    support judge reads the same markers, and the parser's ids are those ids."""
    assert rendering.MARKER_RE is links.MARKER_RE is judge.MARKER_RE is markers.MARKER_RE
    linked = [cid for m in markers.MARKER_RE.finditer(QUOTED) for cid in markers.marker_ids(m[1]) or []]
    assert linked == [markers.citation_id(n) for n in range(1, 9)]
    assert parse_citations(QUOTED).inline_ids == linked


def test_quoted_text_never_passes_for_a_marker():
    """The built-in engine defuses every marker the page would link in quoted text
    (lists and ranges too), and a fan-out report drops every one."""
    assert not MARKER_RE.search(_show(QUOTED))
    assert not MARKER_RE.search(drop_markers(QUOTED))


def test_content_kinds_are_one_list_spelled_two_ways():
    """The stored kinds (model choices) and the names content is added under (the
    add form's tabs, its forms, the API's paths) all come from ContentKind."""
    assert ContentItem.Kind.choices == [(kind.value, kind.label) for kind in ContentKind]
    assert [name for name, _label in CONTENT_TABS] == list(ADDED_AS) == list(CONTENT_FORMS)
    added = [path.rsplit("/", 1)[1] for path in content_api.path_operations if "{content_id}" not in path]
    assert added[1:] == list(ADDED_AS)


def test_support_labels_follow_their_one_definition():
    """SupportLabel owns the support labels: the model's choices, the badges, the
    audit table, both judges' vocabularies and the stylesheet's colours follow it."""
    assert Citation.Support.choices == [(label.value, label.label) for label in SupportLabel]
    assert SUPPORT_BADGES == {label.value: (label.badge_label, label.tone) for label in SupportLabel}
    assert SUPPORT_LABELS == [label.value for label in SupportLabel] == list(judge.LABELS)
    assert set(model_judge.JUDGED) == set(SupportLabel) - {SupportLabel.UNJUDGED}
    css = (Path(__file__).resolve().parents[1] / "static/css/app.css").read_text(encoding="utf-8")
    for label in SupportLabel:
        rule = next(line for line in css.splitlines() if f".support-{label.value}," in line)
        assert rule.startswith(f".badge--{label.tone},"), label


def test_found_by_names_come_from_the_parser():
    """The parser owns the names of the forms it reads; the model's choices follow,
    and every citation it reads names one of them."""
    assert Citation.FoundBy.choices == [(form.value, form.label) for form in FoundBy]
    raw = f"See `a/notes.md` lines 1-2 and a/b.md:3 [c1].\n\n<!-- CITATIONS: {BLOCK_BODY} -->"
    assert {c.found_by for c in parse_citations(raw).citations} <= set(FoundBy)


def test_is_this_a_fanout_has_one_answer(user, make_session, add_text):
    """The model decides what a fan-out parent is and how its sub-runs are named; the
    runner, the queryset and the page's lanes follow it."""
    session = make_session(user)
    items = [add_text(session, f"Notes {n}", f"# Notes {n}\n\nThe pier is {n} m long.") for n in (1, 2)]
    parent = services.fanout_create(session=session, text="How long?", result_type="digest", items=items)
    single = Question.objects.create(session=session, text="How long is the pier?")
    subs = list(parent.sub_runs.order_by("pk"))
    for question in (parent, single, *subs):
        assert question.is_fanout == is_fanout(question.pk) == Question.objects.fanouts().contains(question)
    assert parent.is_fanout and not single.is_fanout
    assert [lane["label"] for lane in fanout_lanes(parent)] == [sub.sub_run_label for sub in subs]
    assert [sub.sub_run_label for sub in subs] == ["Notes 1", "Notes 2"]


def test_fanout_result_types_are_one_list():
    """core.protocols names what a fan-out can ask for; the form, the runner, the
    built-in engine and the report's scope column follow it."""
    types = list(FANOUT_RESULT_TYPES)
    assert [value for value, _label in RESULT_TYPE_CHOICES] == types
    assert list(FANOUT_TYPES) == list(builtin_protocol.SUPPORTED) == types
    assert list(fanout_report._SCOPE_METRIC) == types
    assert set(types) <= set(RESULT_TYPES)


@pytest.mark.parametrize("word", [*SEVERITY_RANK, "", "urgent"])
def test_severity_rank_has_one_definition(word):
    """A finding, the aggregated report and the report page's data rank a severity alike."""
    finding = Finding("F1", word, "contradiction", "a.md", None, "They disagree.", "")
    expected = SEVERITY_RANK.get(word, UNKNOWN_SEVERITY_RANK)
    assert finding.severity_rank == severity_rank(word) == expected


def test_the_question_socket_path_is_built_in_one_place():
    """researchmind.pages names the question page's socket; the router serves that
    path and the API hands it out."""
    (route,) = websocket_urlpatterns
    assert route.resolve(socket_path(7)).kwargs == {"question_id": 7}
    assert websocket_path(7) == "/" + socket_path(7)


@pytest.mark.parametrize("limit", [1, 2, 5, 40])
def test_text_is_cut_by_one_rule(limit):
    """core.text decides how text is cut: the stream's details, the recorder's and
    the timeline picture's labels follow it (at most ``limit`` characters, "…" last)."""
    long = "The lamp  on the north pier\nis visible for 18 nautical miles. " * 3
    clipped = text.clip(long, limit)
    assert events.clip(long, limit) == recorder._clip(long, limit) == clipped
    assert len(clipped) <= limit and clipped.endswith(text.ELLIPSIS)
    assert svgtimeline._clean(long, limit) == text.shorten(long, limit)
    assert text.clip("fits", limit + 4) == "fits"


def test_runs_and_fan_outs_watch_for_a_cancel_with_the_one_loop():
    """researchmind.runs.lease owns the watch loop (cancel requests, lease renewal);
    a run and a fan-out only say what to do when it fires."""
    for module in (run, fanout):
        source = inspect.getsource(module)
        assert "watch_run(" in source
        assert "renew_lease" not in source and "cancel_requested)(" not in source


@pytest.mark.django_db(transaction=True)
async def test_the_watch_loop_sees_a_cancel_once_and_renews_the_lease(user, make_session, monkeypatch):
    """A cancel request sets the run's event and calls its handler once; the lease is
    renewed while the run works; every pass ticks."""
    monkeypatch.setattr(lease, "CANCEL_POLL_SECONDS", 0.01)
    monkeypatch.setattr(lease, "LEASE_RENEW_SECONDS", 0)
    session = await sync_to_async(make_session)(user)
    question = await Question.objects.acreate(
        session=session, text="Q", status=Question.Status.RUNNING, cancel_requested=True
    )
    cancel, cancels, ticks = asyncio.Event(), [], []

    async def on_cancel():
        cancels.append(question.pk)

    watcher = asyncio.create_task(lease.watch_run(question.pk, cancel, on_cancel, ticks.append))
    while len(ticks) < 3:
        await asyncio.sleep(0.01)
    watcher.cancel()
    await question.arefresh_from_db()
    assert cancel.is_set() and cancels == [question.pk]
    assert question.lease_expires_at is not None


def test_a_provider_s_tool_modes_are_the_openai_engine_s():
    """The provider form offers exactly the tool modes the openai engine accepts
    (core/engines/openai/research.py owns them)."""
    assert tuple(EngineProvider.ToolMode.values) == TOOL_MODES


def test_a_provider_s_engine_name_fits_a_question_s_engine_field():
    """``openai:<slug>`` at the slug's longest still fits ``Question.engine``."""
    longest = len(PROVIDER_ENGINE_PREFIX) + EngineProvider._meta.get_field("slug").max_length
    assert longest <= Question._meta.get_field("engine").max_length
    assert longest <= ResearchSession._meta.get_field("engine").max_length
    assert longest <= EngineCheck._meta.get_field("engine").max_length
