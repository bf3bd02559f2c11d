"""The support judge's word and number helpers (``support_terms``) on real sentences:
the numbers a sentence gives with the words around them. Each test pins a reading a
mutation changed without any labelled pair noticing (issue #20)."""

from __future__ import annotations

from citations.verification.support_terms import claim_numbers


def test_a_list_of_numbers_shares_the_words_around_the_list():
    """ "301, 302, 303, 307 or 308 redirects": every number is before "redirects"."""
    found = claim_numbers("Allowed hosts: 301, 302, 303, 307 or 308 redirects.")
    assert [(value, before, after) for value, before, after, _, _ in found] == [
        ("301", "hosts", "redirects"),
        ("302", "hosts", "redirects"),
        ("303", "hosts", "redirects"),
        ("307", "hosts", "redirects"),
        ("308", "hosts", "redirects"),
    ]
