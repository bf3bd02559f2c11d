"""Running a question: the one path for every engine and executor.

``arun_question`` claims the question (at most once, with a lease), streams
the engine's lines through the stream-json interpreter into the recorder,
keeps the page alive while the engine is silent, honours cancellation from
any process, and finishes with the answer, its citations verified and an
``end`` event. ``run_question`` is the synchronous wrapper Celery runs.

- ``lease``: claiming, lease renewal, cancel requests, interrupted runs
- ``run``: the run itself and its ingestion loop
- ``heartbeat``: the events that keep a silent run's page alive
- ``finish``: the end status and the saved outcome
- ``executors``: where a run happens (embedded, Celery, a thread, tests)
"""

from researchmind.runs.executors import (
    dispatch,
    keep_task,
    remember_server_loop,
    run_question,
    run_question_with,
)
from researchmind.runs.finish import decide_status, finish_question, store_run_summary
from researchmind.runs.lease import (
    CANCEL_POLL_SECONDS,
    LEASE_RENEW_SECONDS,
    LEASE_SECONDS,
    cancel_requested,
    claim_question,
    finish_interrupted,
    lease_owner,
    question_cancel,
    questions_stop,
    recover_interrupted,
    renew_lease,
    sweep_interrupted,
    sweeper,
    watch_run,
)
from researchmind.runs.run import arun_question, ingest

__all__ = [
    "CANCEL_POLL_SECONDS",
    "LEASE_RENEW_SECONDS",
    "LEASE_SECONDS",
    "arun_question",
    "cancel_requested",
    "claim_question",
    "decide_status",
    "dispatch",
    "finish_interrupted",
    "finish_question",
    "ingest",
    "keep_task",
    "lease_owner",
    "question_cancel",
    "questions_stop",
    "recover_interrupted",
    "remember_server_loop",
    "renew_lease",
    "run_question",
    "run_question_with",
    "store_run_summary",
    "sweep_interrupted",
    "sweeper",
    "watch_run",
]
