"""Secrets sealed at rest: what is stored is not the secret, opens only under
the server secret it was sealed with, and a changed secret is a sentence to
act on, never a traceback."""

from __future__ import annotations

import pytest

from core.secretbox import Unreadable, seal, unseal

KEY = "sk-live-0123456789abcdef-secret"


def test_a_sealed_secret_opens_under_the_same_server_secret():
    sealed = seal("server-secret-1", KEY)
    assert KEY not in sealed and KEY.encode().hex() not in sealed
    assert unseal("server-secret-1", sealed) == KEY


def test_each_sealing_differs_so_equal_keys_are_not_recognisable():
    assert seal("server-secret-1", KEY) != seal("server-secret-1", KEY)


def test_a_changed_server_secret_says_what_to_do():
    sealed = seal("server-secret-1", KEY)
    with pytest.raises(Unreadable, match=r"SECRET_KEY changed since it was saved .* Enter the key again"):
        unseal("server-secret-2", sealed)


@pytest.mark.parametrize("stored", ["", "not a token", "gAAAAA" + "x" * 60, "ключ"])
def test_an_altered_stored_value_is_unreadable_not_a_crash(stored):
    with pytest.raises(Unreadable):
        unseal("server-secret-1", stored)


def test_an_empty_server_secret_seals_nothing():
    with pytest.raises(ValueError, match="SECRET_KEY"):
        seal("", KEY)
