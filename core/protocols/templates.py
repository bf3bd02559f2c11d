"""The protocol's prompt templates (docs/FORMATS.md, Prompt templates), one per result type, and
``build_prompt`` to fill one in for a sub-run.

The template text is the protocol's own, line for line: agents are prompted with
exactly what the protocol documents. Only the placeholders the caller knows
(the doc path, the doc pair, the task id, the screen name) are filled; the
counts stay ``<N>`` for the agent to fill.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType

from .result import RESULT_TYPES

_HEAD = "Format your response using the Structured Agent Result Protocol.\n"
_METADATA = "Then a metadata block: Protocol (v1), Agent, Assigned, Scope, Coverage, Confidence.\n"

TEMPLATES = MappingProxyType(
    {
        "digest": _HEAD
        + "Line 1 (required): RESULT: <CLEAN|FINDINGS|PARTIAL|ERROR> | Type: digest | Doc: <path> | Sections: <N> | Entities: <N> | Cross-refs: <N>\n"
        "Then a metadata block: Protocol (v1), Agent, Assigned, Scope, Coverage (percentage or section list), Confidence (high/medium/low).\n"
        "Then the detail section: section inventory (heading + 1-line summary each), key terms and entities defined,\n"
        "architectural decisions found, and cross-references to other docs.\n"
        "Use CLEAN if extraction completed. FINDINGS if you found issues in the document itself. PARTIAL if you hit context limits.",
        "consistency": _HEAD
        + "Line 1 (required): RESULT: <CLEAN|FINDINGS|PARTIAL|ERROR> | Type: consistency | Pair: <docA>/<docB> | Findings: <N> | Critical: <N> | Major: <N> | Minor: <N>\n"
        + _METADATA
        + "Then the detail section: a finding table with columns (ID, Severity, Type, Location, Counter-location, Description, Suggestion).\n"
        "Below the table, expand on critical and major findings with full context.\n"
        "Use CLEAN if no inconsistencies. FINDINGS if issues found. Severity: critical = blocks pipeline, major = fix before merge, minor = cosmetic.",
        "verification": _HEAD
        + "Line 1 (required): RESULT: <CLEAN|FINDINGS|PARTIAL|ERROR> | Type: verification | Items: <N> | Applied: <N> | Partial: <N> | Missing: <N>\n"
        + _METADATA
        + "Then the detail section: a checklist table with columns (Item, Status, Notes). Status values: applied, partial, missing, not-applicable.\n"
        "Below the table, expand on partial and missing items with evidence.\n"
        "Use CLEAN if all items applied. FINDINGS if any are partial or missing.",
        "implementation": _HEAD
        + "Line 1 (required): RESULT: <CLEAN|FINDINGS|PARTIAL|ERROR> | Type: implementation | Task: <ID> | Files: <N> | Criteria: <pass>/<total> | Tests: <pass>/<total>\n"
        + _METADATA
        + "Then the detail section: files modified (path + change summary), acceptance criteria results (criterion, pass/fail, evidence),\n"
        "test results (name, pass/fail), and gaps found.\n"
        "Use CLEAN if all criteria and tests pass. FINDINGS if any fail.",
        "design-plan": _HEAD
        + "Line 1 (required): RESULT: <CLEAN|FINDINGS|PARTIAL|ERROR> | Type: design-plan | Screen: <name> | Components: <N>\n"
        + _METADATA
        + "Then the detail section: component list with placement, layout specifications, content decisions,\n"
        "and execution instructions. FINDINGS means issues with the plan itself (missing components, constraint violations),\n"
        "not issues in analyzed content.\n"
        "Use CLEAN if plan is complete. PARTIAL if planning was incomplete.",
    }
)

# The placeholder each type's summary line names after its scope.
_SCOPE_PLACEHOLDER = {"digest": "<path>", "implementation": "<ID>", "design-plan": "<name>"}


def _one_line(value: str) -> str:
    """Make a value safe inside the one-line, pipe-separated RESULT line."""
    return " ".join(value.split()).replace("|", "\\|")


def build_prompt(
    result_type: str,
    *,
    scope: str,
    question: str,
    checklist: Sequence[str] | None = None,
    pair: tuple[str, str] | None = None,
) -> str:
    """The Task prompt for one sub-run: the question, its scope, the checklist
    or doc pair when given, then the protocol template for ``result_type``."""
    if result_type not in TEMPLATES:
        raise ValueError(f"Unknown result type {result_type!r}; expected one of {', '.join(RESULT_TYPES)}.")
    if not scope.strip():
        raise ValueError("A prompt needs a scope: the documents or work unit this sub-run covers.")
    if not question.strip():
        raise ValueError("A prompt needs a question or assignment for the sub-run.")
    if result_type == "consistency" and pair is None:
        raise ValueError("A consistency prompt needs pair=(docA, docB), the two documents to compare.")
    if pair is not None and result_type != "consistency":
        raise ValueError(f"pair= only applies to consistency prompts, not {result_type}.")
    if pair is not None and (len(pair) != 2 or not all(str(doc).strip() for doc in pair)):
        raise ValueError("pair= must name exactly two documents.")
    items = [item.strip() for item in (checklist or []) if item.strip()]
    if result_type == "verification" and not items:
        raise ValueError("A verification prompt needs a checklist of items to verify.")

    template = TEMPLATES[result_type]
    if result_type in _SCOPE_PLACEHOLDER:
        # Not mutated: each template names its scope placeholder once
        template = template.replace(_SCOPE_PLACEHOLDER[result_type], _one_line(scope), 1)  # pragma: no mutate
    if pair is not None:
        # pragma: no mutate start (the consistency template names <docA>/<docB> once)
        template = template.replace("<docA>/<docB>", f"{_one_line(pair[0])}/{_one_line(pair[1])}", 1)
        # pragma: no mutate end

    parts = [question.strip(), "", f"Scope: {scope.strip()}"]
    if pair is not None:
        parts.append(f"Compare: {pair[0].strip()} against {pair[1].strip()}")
    if items:
        parts += ["", "Checklist:", *(f"{number}. {item}" for number, item in enumerate(items, start=1))]
    parts += ["", template]
    return "\n".join(parts) + "\n"
