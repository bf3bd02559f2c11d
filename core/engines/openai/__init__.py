"""The OpenAI-compatible engine: the app runs the research loop against any
Chat Completions server, with read-only tools over the content or, for models
without tools, passages the app retrieves.

Pure Python: no Django imports.
"""

from __future__ import annotations

from .completion import ModelSettings
from .engine import OpenAIEngine

__all__ = ["ModelSettings", "OpenAIEngine"]
