"""YAML reading for agent output: safe, bounded, and never raising.

Pure Python: no Django imports.
"""

from __future__ import annotations

import math
from typing import Any

import yaml

# Larger than any envelope or source block; refusing more keeps YAML from
# spending its time on hostile input.
MAX_YAML_CHARS = 64_000


class _AgentYamlLoader(yaml.SafeLoader):
    """SafeLoader that leaves timestamps as the text the agent wrote, so the
    data stays plain and JSON-ready and ``2026-01-19T10:00:00Z`` or
    ``date: 2025-12-01`` are not rewritten as datetime objects."""


_AgentYamlLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def load_mapping(source: str) -> tuple[dict[str, Any] | None, str | None]:
    """Return ``(mapping, None)``, or ``(None, reason)`` when ``source`` is not a
    YAML mapping. An empty document is an empty mapping."""
    if len(source) > MAX_YAML_CHARS:
        return None, f"it is longer than {MAX_YAML_CHARS} characters"
    try:
        data = yaml.load(source, Loader=_AgentYamlLoader)  # noqa: S506 - a SafeLoader subclass
    # YAML is third-party code reading agent output: any failure, not only
    # YAMLError (deep nesting raises RecursionError), means "not YAML".
    except Exception as error:
        return None, f"it is not valid YAML ({type(error).__name__})"
    if data is None:
        return {}, None
    if not isinstance(data, dict):
        return None, "it is not a list of 'key: value' fields"
    return _plain(data), None


def _plain(value: Any) -> Any:
    """Make YAML data JSON-ready, so it can be stored as is: string keys,
    lists for sequences and sets, text for anything else (binary, NaN, ...)."""
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(item) for item in value]
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    return str(value)
