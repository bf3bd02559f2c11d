"""These tests run without the Django plugin (``-p no:django``), which is what
otherwise puts the project root on ``sys.path``; put it there so
``core.protocols`` imports the same way in both runs."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[3])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
