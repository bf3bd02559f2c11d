"""A long run's question page in a real browser: it opens with the last items of
each timeline list, and "Show N earlier" loads the rest through htmx, in order."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from progress.selectors import FINISHED_TIMELINE_PAGE, TIMELINE_PAGE

pytestmark = [pytest.mark.browser, pytest.mark.slow]

FIXTURES = Path(__file__).resolve().parents[1] / "core" / "stream" / "fixtures" / "transcripts"


@pytest.fixture(scope="module")
def long_run(live, tmp_path_factory):
    """A recorded partial-messages run repeated 20 times (3,800 lines), replayed
    into the server's database for the ``replay`` user."""
    lines = [line for line in (FIXTURES / "simple_answer.jsonl").read_text().splitlines() if line.strip()]
    body = [line for line in lines if '"type":"result"' not in line.replace(" ", "")]
    result = [line for line in lines if '"type":"result"' in line.replace(" ", "")]
    path = tmp_path_factory.mktemp("long") / "long.jsonl"
    path.write_text("\n".join(body * 20 + result) + "\n")
    report = json.loads(live.manage("replay", str(path), "--json").stdout)
    (session_id,) = live.db(
        "SELECT session_id FROM researchmind_question WHERE id = ?", report["question_id"]
    )[0]
    sid = str(session_id)
    if "-" not in sid:
        sid = f"{sid[:8]}-{sid[8:12]}-{sid[12:16]}-{sid[16:20]}-{sid[20:]}"
    return report, f"/sessions/{sid}/questions/{report['question_id']}/"


def _seqs(page, selector: str) -> list[int]:
    return [int(s) for s in page.eval_on_selector_all(selector, "els => els.map(e => e.dataset.seq)")]


def test_earlier_details_load_on_demand_in_order(page, login, long_run):
    report, url = long_run
    assert report["status"] == "complete"
    login("replay")
    page.goto(url)
    expect(page.locator("#question-status .status")).to_have_text("Complete")
    page.locator("#details-log").evaluate(
        "el => { for (let d = el.closest('details'); d; d = d.parentElement.closest('details')) d.open = true; }"
    )
    shown = _seqs(page, "#details-log li.event")
    assert len(shown) == FINISHED_TIMELINE_PAGE  # a finished run opens with its last items
    button = page.locator("#details-log li.earlier button")
    expect(button).to_have_text(re.compile(r"Show \d+ earlier details"))
    remaining = int(re.search(r"\d+", button.inner_text())[0])
    first = len(shown)
    while page.locator("#details-log li.earlier button").count():
        before = len(_seqs(page, "#details-log li.event"))
        page.locator("#details-log li.earlier button").click()
        expect(page.locator("#details-log li.event")).to_have_count(
            min(before + TIMELINE_PAGE, first + remaining)
        )
    seqs = _seqs(page, "#details-log li.event")
    assert len(seqs) == first + remaining
    assert seqs == sorted(set(seqs)), "every detail once, oldest first"
