"""The RESULT summary line (docs/FORMATS.md, RESULT line):
``RESULT: <STATUS> | Type: <TYPE> | <type-specific-metrics>``.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ._markdown import fenced_spans, in_spans, split_cells, strip_markup

STATUSES = ("CLEAN", "FINDINGS", "PARTIAL", "ERROR")
RESULT_TYPES = ("digest", "consistency", "verification", "implementation", "design-plan")
# What a fan-out question can ask its sub-runs for (the built-in engine answers each of
# them), with the name the fan-out form gives each.
FANOUT_RESULT_TYPES = {
    "digest": "Digest of each content item",
    "consistency": "Consistency between content items",
    "verification": "Verification against a checklist",
}

# The metrics each type's summary line carries, by the snake_case key they
# get in ``AgentResult.metrics``.
TYPE_METRICS = {
    "digest": ("doc", "sections", "entities", "cross_refs"),
    "consistency": ("pair", "findings", "critical", "major", "minor"),
    "verification": ("items", "applied", "partial", "missing"),
    "implementation": ("task", "files", "criteria", "tests"),
    "design-plan": ("screen", "components"),
}
# What PARTIAL and ERROR lines append.
INCOMPLETE_METRICS = ("coverage", "reason")
_TEXT_METRICS = {"doc", "pair", "task", "screen", "reason"}
_RATIO_METRICS = {"criteria", "tests"}

# [ \t] rather than \s: a pattern that may run across newlines goes quadratic
# on output with long runs of blank lines.
# Whether an answer has a RESULT line at all (then it is read as a protocol
# result). Linear time: "^\s*" under MULTILINE rescanned every following blank
# line from each line start.
RESULT_LINE = re.compile(r"^[ \t]*+\**+RESULT\**+[ \t]*+:", re.MULTILINE)
_RESULT_LINE_RE = re.compile(r"^[ \t>*_`#-]*RESULT[*_`]*[ \t]*:(.*)$", re.IGNORECASE | re.MULTILINE)
_NUMBER_RE = re.compile(r"^-?\d+$")
_PERCENT_RE = re.compile(r"^(\d+(?:\.\d+)?)\s*%?$")
_RATIO_RE = re.compile(r"^(\d+)\s*/\s*(\d+)$")


@dataclass(slots=True)
class SummaryLine:
    """What one RESULT line says. ``status`` is None when the line names no
    valid status (the caller then degrades to PARTIAL)."""

    text: str
    start: int
    declared_status: str | None
    status: str | None = None
    result_type: str | None = None
    metrics: dict[str, object] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def _status_word(segment: str) -> str:
    """The status word of the first segment, upper-cased; empty for a template
    placeholder such as ``<CLEAN|FINDINGS|PARTIAL|ERROR>`` (whose pipes split
    it, leaving an unclosed ``<CLEAN``) or ``<STATUS>``."""
    word = re.match(r"[\s\[*_`]*(<?)\s*([A-Za-z]+)\s*(>?)", segment)
    if word is None or bool(word.group(1)) != bool(word.group(3)):
        return ""  # pragma: no mutate: 'XXXX' is no status either
    return word.group(2).upper()


def _metric_key(label: str) -> str:
    # Not mutated: the label is lower-cased: no 'X' to strip
    return re.sub(r"[\s-]+", "_", strip_markup(label).lower()).strip("_")  # pragma: no mutate


def _metric_value(key: str, value: str, problems: list[str]) -> object:
    value = strip_markup(value)
    if key in _TEXT_METRICS:
        return value
    if key in _RATIO_METRICS:
        ratio = _RATIO_RE.match(value)
        if ratio:
            return (int(ratio.group(1)), int(ratio.group(2)))
        problems.append(f"The RESULT line's {key} value {value!r} is not a <pass>/<total> count.")
        return value
    if key == "coverage":
        percent = _PERCENT_RE.match(value)
        if percent:
            number = float(percent.group(1))
            return int(number) if number.is_integer() else number
        return value
    if _NUMBER_RE.match(value):
        return int(value)
    problems.append(f"The RESULT line's {key} value {value!r} is not a number.")
    return value


def _first_segment(after_colon: str) -> str:
    # A line like "RESULT: |" has no cells at all (found by hypothesis).
    cells = split_cells(after_colon) if after_colon.strip() else []  # pragma: no mutate: [''] and [] agree
    return cells[0] if cells else ""  # pragma: no mutate: 'XXXX' is no status word either


def find_summary_line(text: str) -> re.Match[str] | None:
    """The first RESULT line with a valid status, preferring lines outside code
    fences; failing that, the first RESULT-looking line at all."""
    spans = fenced_spans(text)
    candidates = list(_RESULT_LINE_RE.finditer(text))
    candidates.sort(key=lambda match: (in_spans(match.start(), spans), match.start()))
    for match in candidates:
        if _status_word(_first_segment(match.group(1))) in STATUSES:
            return match
    return candidates[0] if candidates else None


def parse_summary_line(match: re.Match[str]) -> SummaryLine:
    """Read status, type and metrics from a line ``find_summary_line`` found."""
    after_colon = match.group(1)
    segments = split_cells("|" + after_colon) if after_colon.strip() else [""]
    # pragma: no mutate start (SummaryLine.start is not read anywhere)
    line = SummaryLine(match.group(0).strip(), match.start(), strip_markup(segments[0]) or None)
    # pragma: no mutate end
    status = _status_word(segments[0])
    if status in STATUSES:
        line.status = status
    else:
        line.problems.append(
            f"The RESULT line's status {segments[0].strip()!r} is not one of {', '.join(STATUSES)}; "
            "the response is treated as PARTIAL."
        )
    type_given = False  # pragma: no mutate: only tested for truth
    for segment in segments[1:]:
        label, colon, value = segment.partition(":")
        if not colon:
            if segment.strip():
                line.problems.append(f"The RESULT line has a segment without a label: {segment.strip()!r}.")
            continue
        key = _metric_key(label)
        if key == "type":
            type_given = True
            # pragma: no mutate start (the type is lower-cased before the strip: no 'X' to strip)
            result_type = re.sub(r"[\s_]+", "-", strip_markup(value).lower().strip("<>[] "))
            # pragma: no mutate end
            if result_type in RESULT_TYPES:
                line.result_type = result_type
            else:
                line.problems.append(f"The RESULT line's type {value.strip()!r} is not a known result type.")
            continue
        line.metrics[key] = _metric_value(key, value.strip(), line.problems)
    _check_metrics(line, type_given)
    return line


def _check_metrics(line: SummaryLine, type_given: bool) -> None:
    if line.result_type is None:
        if not type_given:
            line.problems.append("The RESULT line does not say its Type.")
        return
    missing = [key for key in TYPE_METRICS[line.result_type] if key not in line.metrics]
    if missing:
        line.problems.append(f"The {line.result_type} RESULT line lacks {', '.join(missing)}.")
    if line.status in ("PARTIAL", "ERROR"):
        absent = [key for key in INCOMPLETE_METRICS if key not in line.metrics]
        if absent:
            line.problems.append(f"The {line.status} RESULT line should give {' and '.join(absent)}.")
