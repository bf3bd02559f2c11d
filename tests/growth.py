"""How a reader's work grows with its input, measured without a wall clock.

Two measures, chosen by where the work happens:

* ``python_lines``: the Python lines executed during the call, counted with
  ``sys.monitoring`` LINE events. Deterministic: the same input gives the same
  count on a busy machine or an idle one. It sees Python code only, so it is
  the measure where the reader's work is Python (a parser walking the text).
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
    raise RuntimeError("No sys.monitoring tool id is free to count executed lines.")


class _OverBudget(BaseException):
    """Stops a reader that has already done more work than the test allows
    (a BaseException, so the reader's own ``except Exception`` lets it through)."""


def python_lines(read: Callable[[str], object], text: str, *, budget: int | None = None) -> int:
    """The number of Python lines executed while ``read(text)`` runs.

    With a ``budget``, the reader is stopped as soon as it exceeds it and
    ``budget + 1`` is returned: a quadratic reader fails the test in seconds
    instead of running for minutes."""
    monitoring = sys.monitoring
    tool, count = _free_tool(), [0]

    def on_line(code: object, line: int) -> None:
        count[0] += 1
        if budget is not None and count[0] > budget:
            monitoring.set_events(tool, monitoring.events.NO_EVENTS)
            raise _OverBudget

    monitoring.use_tool_id(tool, "tests.growth")
    monitoring.register_callback(tool, monitoring.events.LINE, on_line)
    try:
        monitoring.set_events(tool, monitoring.events.LINE)
        read(text)
    except _OverBudget:
        pass
    finally:
        monitoring.set_events(tool, monitoring.events.NO_EVENTS)
        monitoring.register_callback(tool, monitoring.events.LINE, None)
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


def line_growth(read: Callable[[str], object], small: str, large: str) -> float:
    """How many times more Python lines ``large`` costs than ``small``.

    ``read`` runs once first, so one-off work (compiling a regex, filling a
    cache, importing a module) is not counted against the small input. The
    large input is stopped once past ``LIMIT`` times the small one's lines:
    a quadratic reader then fails at once with a ratio just over ``LIMIT``."""
    read(small)
    small_lines = max(python_lines(read, small), 1)
    return python_lines(read, large, budget=small_lines * LIMIT) / small_lines


def cpu_growth(read: Callable[[str], object], small: str, large: str) -> float:
    """How many times more CPU time ``large`` costs than ``small``; a floor
    of 1 ms keeps timer noise on tiny inputs from reading as growth."""
    read(small)
    return cpu_seconds(read, large) / max(cpu_seconds(read, small), 0.001)
