"""The Anthropic engine: the app runs the research loop against the Messages
API, sends every passage as ``search_result`` blocks of one line each, and
records the citations the API extracts at the exact lines.

Pure Python: no Django imports.
"""

from __future__ import annotations

from .engine import AnthropicEngine
from .turns import AnthropicSettings

__all__ = ["AnthropicEngine", "AnthropicSettings"]
