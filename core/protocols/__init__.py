"""Agent result protocols (docs/FORMATS.md, Answer envelope; Structured Agent Result Protocol).

- ``parse_answer``: a research answer's envelope (YAML frontmatter,
  ``<thinking>``, ``<answer>``, confidence, the "no results" form).
- ``parse_result``: one response in the Structured Agent Result Protocol.
- ``aggregate`` / ``render_markdown``: N such responses combined
  (docs/FORMATS.md, Aggregation).
- ``build_prompt``: the prompt template for a result type (docs/FORMATS.md, Prompt templates).

Pure Python: no Django imports. No parser here raises on agent text.
"""

from __future__ import annotations

from .aggregate import (
    AggregateReport,
    AggregateStats,
    BucketEntry,
    Conflict,
    CoverageEntry,
    MergedFinding,
    aggregate,
)
from .answer_body import CONFIDENCE_LEVELS, SOURCE_FIELDS, AnswerSource
from .envelope import ENVELOPE_FIELDS, ParsedAnswer, parse_answer
from .findings import FINDING_TYPES, SEVERITY_ORDER, Finding, severity_rank
from .render import render_markdown
from .result import FANOUT_RESULT_TYPES, RESULT_TYPES, STATUSES, AgentResult, ResultMetadata, parse_result
from .templates import TEMPLATES, build_prompt

__all__ = [
    "CONFIDENCE_LEVELS",
    "ENVELOPE_FIELDS",
    "FANOUT_RESULT_TYPES",
    "FINDING_TYPES",
    "RESULT_TYPES",
    "SEVERITY_ORDER",
    "SOURCE_FIELDS",
    "STATUSES",
    "TEMPLATES",
    "AgentResult",
    "AggregateReport",
    "AggregateStats",
    "AnswerSource",
    "BucketEntry",
    "Conflict",
    "CoverageEntry",
    "Finding",
    "MergedFinding",
    "ParsedAnswer",
    "ResultMetadata",
    "aggregate",
    "build_prompt",
    "parse_answer",
    "parse_result",
    "render_markdown",
    "severity_rank",
]
