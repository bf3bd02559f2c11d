"""How a reader's work grows with its input, measured without a wall clock.

Two measures, chosen by where the work happens:

* ``python_steps``: the steps of Python code taken during the call, counted
  with ``sys.monitoring``: every new line run, every loop turn (a backward
  jump: a loop or comprehension on one line is still counted per turn) and
  every call or generator resume. Deterministic: the same input gives the
  same count on a busy machine or an idle one. It sees Python code only, so
  it is the measure where the reader's work is Python (a parser walking the
  text).
* ``cpu_seconds``: this process's CPU time (``time.process_time``), the best
  of three. It sees work inside C code (the regex engine, ``str`` methods)
  that no Python line reveals, and unlike the wall clock it does not count
  the turns other processes take.

A test compares two input sizes, ``GROWTH`` times apart: linear work grows
about ``GROWTH`` times, quadratic work about ``GROWTH**2`` times. ``LIMIT``
sits between (4x the linear growth, a quarter of the quadratic)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

GROWTH = 16
LIMIT = GROWTH * 4


def _free_tool() -> int:
    # Leave the ids of debuggers, coverage and profilers alone if they are taken.
    for tool in (4, 3, 2):
        if sys.monitoring.get_tool(tool) is None:
            return tool
    raise RuntimeError("No sys.monitoring tool id is free to count Python steps.")


class _OverBudget(BaseException):
    """Stops a reader that has already done more work than the test allows
    (a BaseException, so the reader's own ``except Exception`` lets it through)."""


# A new line run, a loop turn, a call, a generator resumed.
STEP_EVENTS = ("LINE", "JUMP", "PY_START", "PY_RESUME")


def python_steps(read: Callable[[str], object], text: str, *, budget: int | None = None) -> int:
    """The number of Python steps (lines, loop turns, calls) taken while ``read(text)`` runs.

    With a ``budget``, the reader is stopped as soon as it exceeds it and
    ``budget + 1`` is returned: a quadratic reader fails the test in seconds
    instead of running for minutes."""
    monitoring = sys.monitoring
    tool, count = _free_tool(), [0]

    def on_step(*event: object) -> None:
        count[0] += 1
        if budget is not None and count[0] > budget:
            monitoring.set_events(tool, monitoring.events.NO_EVENTS)
            raise _OverBudget

    kinds = [getattr(monitoring.events, name) for name in STEP_EVENTS]
    monitoring.use_tool_id(tool, "tests.growth")
    for kind in kinds:
        monitoring.register_callback(tool, kind, on_step)
    try:
        monitoring.set_events(tool, sum(kinds))
        read(text)
    except _OverBudget:
        pass
    finally:
        monitoring.set_events(tool, monitoring.events.NO_EVENTS)
        for kind in kinds:
            monitoring.register_callback(tool, kind, None)
        monitoring.free_tool_id(tool)
    return count[0]


def cpu_seconds(read: Callable[[str], object], text: str) -> float:
    """This process's CPU time for ``read(text)``, the best of three (another
    process's burst can still cost us cache; the best run shows the work)."""
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        read(text)
        best = min(best, time.process_time() - started)
    return best


def step_growth(read: Callable[[str], object], small: str, large: str) -> float:
    """How many times more Python steps ``large`` costs than ``small``.

    ``read`` runs once first, so one-off work (compiling a regex, filling a
    cache, importing a module) is not counted against the small input. The
    large input is stopped once past ``LIMIT`` times the small one's steps:
    a quadratic reader then fails at once with a ratio just over ``LIMIT``."""
    read(small)
    small_steps = max(python_steps(read, small), 1)
    return python_steps(read, large, budget=small_steps * LIMIT) / small_steps


def cpu_growth(read: Callable[[str], object], small: str, large: str) -> float:
    """How many times more CPU time ``large`` costs than ``small``; a floor
    of 1 ms keeps timer noise on tiny inputs from reading as growth."""
    read(small)
    return cpu_seconds(read, large) / max(cpu_seconds(read, small), 0.001)
