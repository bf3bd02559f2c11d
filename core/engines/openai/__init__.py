"""The OpenAI-compatible engine: the app runs the research loop against any
Chat Completions server, with read-only tools over the content or, for models
without tools, passages the app retrieves.

Pure Python: no Django imports.
"""

from __future__ import annotations

from .engine import OpenAIEngine
from .research import ModelSettings

__all__ = ["ModelSettings", "OpenAIEngine"]
