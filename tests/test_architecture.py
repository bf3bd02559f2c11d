"""The layout docs/ARCHITECTURE.md describes, held against the code: no import
cycles among the project's modules, no module importing from a layer above
its own, the pure modules free of Django, and every module the document names
still there. Imports are read from the source (module level and inside
functions alike; ``if TYPE_CHECKING:`` blocks aside), nothing is run."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("core", "researchmind", "citations", "progress")
# The apps stack one way: each imports only from those after it in this list.
APP_ORDER = ("researchmind", "citations", "progress", "core")

# Lowest first. A module belongs to the layer with the longest prefix it starts with.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("pure core", ("core",)),
    (
        "models",
        (
            "researchmind.models",
            "citations.models",
            "progress.models",
            "researchmind.celery",
            "researchmind.poolworker",
        ),
    ),
    (
        "domain",
        (
            "progress.broadcast",  # owns the channel layer
            "progress.layers",
            "progress.redislayer",
            "progress.recorder",
            "progress.selectors",
            "citations.services",
            "citations.presenters",
            "citations.audit",
            "core.viewer",
            "researchmind.tokens",
            "researchmind.ratelimit",
            "researchmind.serializers",
            "researchmind.selectors",
            "researchmind.engine_config",
            "researchmind.engine_checks",
            "researchmind.providers",
            "researchmind.runs",
            "researchmind.services",
            "researchmind.uploads",
        ),
    ),
    ("pages", ("researchmind.pages", "researchmind.fragments")),
    (
        "interfaces",
        (
            "researchmind.forms",
            "researchmind.views",
            "researchmind.middleware",
            "researchmind.signin",
            "researchmind.api",
            "researchmind.client",
            "researchmind.admin",
            "researchmind.management",
            "researchmind.urls",
            "researchmind.asgi",
            "researchmind.settings",
            "researchmind.apps",
            "researchmind.consumers",
            "researchmind.leanconsumer",
            "researchmind.routing",
            "citations.admin",
            "citations.management",
            "citations.apps",
            "progress.admin",
            "progress.apps",
        ),
    ),
]
PURE = LAYERS[0][1]
DJANGO = ("django", "channels", "daphne", "django_htmx", "ninja", "celery", "asgiref", "redis")


def project_modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            rel = path.relative_to(ROOT)
            if "migrations" in rel.parts:
                continue
            name = ".".join(rel.with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


MODULES = project_modules()


def _resolve(name: str) -> str | None:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _type_checking_only(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for inner in node.body:
                lines.update(range(inner.lineno, (inner.end_lineno or inner.lineno) + 1))
    return lines


def imports_of(name: str) -> tuple[set[str], set[str]]:
    """(project modules, top-level outside packages) that ``name`` imports."""
    path = MODULES[name]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_only(tree)
    project, outside = set(), set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Import | ast.ImportFrom) or node.lineno in skip:
            continue
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                package = name if path.name == "__init__.py" else name.rpartition(".")[0]
                for _ in range(node.level - 1):
                    package = package.rpartition(".")[0]
                base = f"{package}.{base}" if base else package
            targets = [f"{base}.{alias.name}" for alias in node.names] or [base]
            targets = [t if _resolve(t) else base for t in targets]
        for target in targets:
            resolved = _resolve(target)
            if resolved and resolved != name:
                project.add(resolved)
            elif not resolved:
                outside.add(target.split(".")[0])
    return project, outside


GRAPH = {name: imports_of(name)[0] for name in MODULES}


def layer_of(name: str) -> int:
    if name in PACKAGES:  # the packages' own __init__ files
        return 0
    best, best_len = None, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = index, len(prefix)
    assert best is not None, f"{name} is in no layer: add it to LAYERS in {__file__}"
    return best


def cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(GRAPH[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    return found


def test_the_graph_is_read():
    """The checker sees the imports it must (a broken reader would pass every rule)."""
    assert "researchmind.runs.run" in GRAPH["researchmind.runs.fanout"]
    assert "core.stream.blocks" in GRAPH["core.stream"]  # relative and absolute alike
    assert "core.engines.builtin.streamjson" in GRAPH["core.engines.builtin.stream"]
    assert len(MODULES) > 150


def test_no_import_cycles():
    assert cycles() == []


def test_no_module_imports_from_a_layer_above_its_own():
    upward = [
        f"{a} ({LAYERS[layer_of(a)][0]}) -> {b} ({LAYERS[layer_of(b)][0]})"
        for a in sorted(GRAPH)
        for b in sorted(GRAPH[a])
        if layer_of(b) > layer_of(a)
    ]
    assert upward == []


def test_apps_import_one_way():
    """researchmind -> citations -> progress -> core, never back up."""

    def rank(name: str) -> int:
        return APP_ORDER.index(name.split(".")[0])

    upward = [f"{a} -> {b}" for a in sorted(GRAPH) for b in sorted(GRAPH[a]) if rank(b) < rank(a)]
    assert upward == []


def test_pure_modules_import_no_django():
    offenders = []
    for name in sorted(MODULES):
        if layer_of(name) == 0:
            outside = imports_of(name)[1]
            offenders += [f"{name} imports {o}" for o in sorted(outside & set(DJANGO))]
    assert offenders == []


def test_the_architecture_document_names_only_modules_that_exist():
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    # In the table of what moved, only the "after" column must exist.
    current, _, moved = text.partition("## What moved where")
    text = current + "\n".join(line.split("|")[2] for line in moved.splitlines() if line.count("|") >= 3)
    named = set(re.findall(r"`((?:core|researchmind|citations|progress)/[\w/]+(?:\.py)?)`", text))
    assert len(named) > 30
    missing = sorted(n for n in named if not (ROOT / n).exists())
    assert missing == []
