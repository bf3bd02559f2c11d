"""Rules the suite keeps about itself (issue #20): every test asserts something,
and no assertion is built from a wall clock.

Timing is never asserted in tests: a watchdog is shown by what it did (signals,
exit status, processes gone), pacing by the delays asked for, a linear reader by
work counted (tests/growth.py); speed targets are measured as ratios in bench/.
An assert is "on a wall clock" when its condition is built (through arithmetic,
comparisons, min/max, tuples, lists, indexing) from time.time/monotonic/
perf_counter (and their _ns forms), loop.time(), datetime.now(), timezone.now(),
from a local assigned such a value, or from a helper of the same file that
returns one. A clock passed to something else (a lease expiry written to the
database) is set-up, not a measurement; CPU time (time.process_time) is not a
wall clock."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

TESTS = Path(__file__).parent
CLOCK_CALL = re.compile(r"\b(time|monotonic|perf_counter|now)(_ns)?\(")

WALL_CLOCKS = {"time", "monotonic", "perf_counter", "now", "monotonic_ns", "time_ns", "perf_counter_ns"}
PASS_THROUGH = {"min", "max", "abs", "round", "float", "int", "sum", "sorted", "list", "tuple"}


def call_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def measured(node, tainted, clocks) -> bool:
    """Whether the value of ``node`` is (built from) a wall-clock reading."""
    if isinstance(node, ast.Call):
        name = call_name(node)
        if name in clocks:
            return True
        return name in PASS_THROUGH and any(measured(arg, tainted, clocks) for arg in node.args)
    if isinstance(node, ast.Name):
        return node.id in tainted
    if isinstance(node, ast.BinOp):
        return measured(node.left, tainted, clocks) or measured(node.right, tainted, clocks)
    if isinstance(node, ast.UnaryOp):
        return measured(node.operand, tainted, clocks)
    if isinstance(node, ast.Compare):
        return any(measured(n, tainted, clocks) for n in [node.left, *node.comparators])
    if isinstance(node, ast.BoolOp):
        return any(measured(n, tainted, clocks) for n in node.values)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(measured(n, tainted, clocks) for n in node.elts)
    if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
        return measured(node.elt, tainted, clocks)
    if isinstance(node, ast.Subscript):
        return measured(node.value, tainted, clocks)
    if isinstance(node, ast.Await):
        return measured(node.value, tainted, clocks)
    return False


def taint(func, clocks) -> set[str]:
    tainted: set[str] = set()
    for _ in range(4):  # names assigned from names assigned from a clock
        for node in ast.walk(func):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None:
                if measured(node.value, tainted, clocks):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for target in targets:
                        tainted |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return tainted


def returns_clock(func, clocks) -> bool:
    tainted = taint(func, clocks)
    return any(
        isinstance(node, ast.Return) and node.value is not None and measured(node.value, tainted, clocks)
        for node in ast.walk(func)
    )


def clock_asserts(source: str, name: str = "<test>"):
    """(line, condition) of each assert built from a wall-clock reading."""
    tree = ast.parse(source, name)
    functions = [f for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
    clocks = set(WALL_CLOCKS)
    for _ in range(3):  # helpers that return a clock reading, and helpers of those
        clocks |= {f.name for f in functions if returns_clock(f, clocks)}
    for func in functions:
        tainted = taint(func, clocks)
        for node in ast.walk(func):
            if isinstance(node, ast.Assert) and measured(node.test, tainted, clocks):
                yield node.lineno, ast.unparse(node.test)[:110]


# Calls that assert: pytest.raises/warns/fail, assert_* and expect_* helpers,
# schemathesis' call_and_validate, and same-file helpers that assert.
_ASSERTING = ("raises", "warns", "fail")
_ASSERTING_PREFIXES = ("assert", "expect", "check")


def _asserts(func, helpers, seen=()) -> bool:
    for node in ast.walk(func):
        if isinstance(node, ast.Assert):
            return True
        if isinstance(node, ast.Call):
            name = call_name(node)
            if name in _ASSERTING or name.startswith(_ASSERTING_PREFIXES) or name.endswith("validate"):
                return True
            helper = helpers.get(name)
            if (
                helper is not None
                and name not in seen
                and helper is not func
                and _asserts(helper, helpers, (*seen, name))
            ):
                return True
    return False


def assertion_free_tests(source: str, name: str = "<test>") -> list[str]:
    tree = ast.parse(source, name)
    functions = [f for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
    helpers = {f.name: f for f in functions}
    return [f.name for f in functions if f.name.startswith("test") and not _asserts(f, helpers)]


def _test_files():
    return sorted(TESTS.rglob("*.py"))


def test_no_assertion_in_the_suite_reads_a_wall_clock() -> None:
    sources = {path: path.read_text() for path in _test_files()}
    # Only a file that reads a clock can assert on one (the scan is slow on large files).
    clocked = {path: text for path, text in sources.items() if CLOCK_CALL.search(text)}
    assert TESTS / "api" / "test_live_server.py" in clocked  # it reads a clock, to bound its waits
    found = [
        f"{path}:{line}: {text}" for path, source in clocked.items() for line, text in clock_asserts(source)
    ]
    assert found == []


def test_every_test_in_the_suite_asserts_something() -> None:
    found = [
        f"{p}: {name}"
        for p in _test_files()
        if p.name.startswith("test_")
        for name in assertion_free_tests(p.read_text(), str(p))
    ]
    assert found == []


CLOCKED = """
import time, asyncio

def _best_seconds(run):
    started = time.perf_counter()
    run()
    return time.perf_counter() - started

async def test_watchdog():
    started = time.monotonic()
    await asyncio.sleep(0)
    took = time.monotonic() - started
    assert took < 5

def test_growth():
    assert _best_seconds(print) / max(_best_seconds(print), 1e-4) < 64

def test_loop_time():
    assert asyncio.get_event_loop().time() > 0

def test_cpu_time_and_setup_are_not_clocks():
    spent = time.process_time()
    expiry = lease(time.time() + 30)
    assert spent >= 0 and expiry
"""


def test_the_rules_catch_what_they_name() -> None:
    assert [line for line, _ in clock_asserts(CLOCKED)] == [13, 16, 19]
    assert assertion_free_tests(CLOCKED) == []
    assert assertion_free_tests(
        "def helper():\n    assert 1\n\ndef test_a():\n    helper()\n\ndef test_b():\n    print(1)\n"
    ) == ["test_b"]


@pytest.mark.parametrize(
    "source",
    [
        "def test_c(case):\n    case.call_and_validate()\n",
        "def test_d():\n    with pytest.raises(ValueError):\n        int('x')\n",
    ],
)
def test_validating_and_raising_calls_count_as_assertions(source: str) -> None:
    assert assertion_free_tests(source) == []
