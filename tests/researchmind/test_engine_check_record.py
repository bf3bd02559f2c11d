"""An engine test's end is recorded even when the table is busy at that moment.

The test runs in a thread; its page polls meanwhile, and each poll writes the
row (``polled_at``). A write from the thread that meets the poll's used to fail
("database table is locked") and turned a finished test into "stopped on an
error in the app" (seen once in a full run).
"""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connections, transaction
from django.utils import timezone

from researchmind.engine_checks import record_end
from researchmind.models import EngineCheck


@pytest.mark.django_db(transaction=True)
def test_the_end_of_a_test_waits_out_a_write_that_holds_the_table(manager):
    check = EngineCheck.objects.create(engine="builtin", started_by=manager, polled_at=timezone.now())
    outcome: dict = {}

    def finish() -> None:
        try:
            record_end(
                check.pk, status="passed", report={"status": "passed"}, raw_report={"status": "passed"}
            )
            outcome["ok"] = True
        except Exception as error:  # the failure this test is about
            outcome["error"] = error
        finally:
            connections.close_all()

    with transaction.atomic():  # a poll's write, still open when the thread records the end
        EngineCheck.objects.filter(pk=check.pk).update(polled_at=timezone.now())
        thread = threading.Thread(target=finish)
        thread.start()
        time.sleep(0.4)
        assert thread.is_alive(), "the thread's write should have waited for this transaction"
    thread.join(10)
    assert outcome == {"ok": True}
    check.refresh_from_db()
    assert check.status == "passed" and check.finished_at is not None
