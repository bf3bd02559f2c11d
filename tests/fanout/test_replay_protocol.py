"""``replay --json`` fills result_status, confidence and thinking from a
transcript whose final answer has a ``<thinking>`` block and a RESULT line."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

TRANSCRIPT = Path(__file__).parent / "fixtures" / "protocol_result_with_thinking.jsonl"


@pytest.mark.django_db(transaction=True)
def test_replay_json_fills_result_status_confidence_and_thinking():
    """The RESULT line sets result_status, the metadata Confidence sets confidence, thinking is kept apart."""
    out = StringIO()
    call_command("replay", str(TRANSCRIPT), "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["status"] == "complete"
    assert report["result_status"] == "FINDINGS"
    assert report["confidence"] == "HIGH"
    assert report["thinking"] == "I compared the two documents' token lifetimes line by line."
    assert "<thinking>" not in report["answer"] and "compared the two documents" not in report["answer"]
    assert report["answer"].startswith("RESULT: FINDINGS | Type: consistency")
