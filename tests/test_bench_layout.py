"""The benchmarks stay runnable as the tree moves: every script imports as a
module of ``bench`` (no ``sys.path`` edits, nothing from ``tests``), and every
file or folder a script names at module level exists (a bench reads the suite's
fixtures, which move with the tests they belong to)."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

import bench.perf
import bench.quality

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = [
    f"{package.__name__}.{info.name}"
    for package in (bench.perf, bench.quality)
    for info in pkgutil.iter_modules(package.__path__)
]


def test_every_script_is_found():
    assert len(SCRIPTS) >= 20


@pytest.mark.parametrize("name", SCRIPTS)
def test_a_script_imports_without_path_edits_and_names_only_paths_that_exist(name):
    source = (ROOT / Path(*name.split("."))).with_suffix(".py").read_text(encoding="utf-8")
    assert "sys.path" not in source
    assert "from tests" not in source and "import tests" not in source
    try:
        module = importlib.import_module(name)
    except SystemExit as stop:  # a contender that is not a dependency of the app is missing
        pytest.skip(str(stop))
    named = [
        value
        for value in vars(module).values()
        if isinstance(value, Path) and value.is_relative_to(ROOT) and value != ROOT
    ]
    missing = [str(path.relative_to(ROOT)) for path in named if not path.exists()]
    assert missing == []
