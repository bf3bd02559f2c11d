"""Fan-out fixtures: a session with content items about token lifetimes."""

from __future__ import annotations

import pytest

ITEM_A = """# Auth service

Access tokens expire after 15 minutes.
Refresh tokens live for 30 days and rotate on every use.
"""
ITEM_B = """# Gateway notes

Access tokens expire after 60 minutes.
Refresh tokens live for 30 days.
"""
ITEM_C = """# Rate limits

Clients may send 100 requests per minute before they are throttled.
"""


@pytest.fixture
def token_session(user, make_session, add_text):
    """A session with three ready text items; A and B disagree on access token lifetime."""
    session = make_session(user, "Tokens")
    items = [
        add_text(session, "Auth service", ITEM_A),
        add_text(session, "Gateway notes", ITEM_B),
        add_text(session, "Rate limits", ITEM_C),
    ]
    return session, items
