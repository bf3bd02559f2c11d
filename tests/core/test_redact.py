"""``core.redact``: the server's folders become neutral names, whole folder
names only, the longest first, through payloads too."""

from __future__ import annotations

from core.redact import NOTHING, run_redactor


def test_each_root_gets_its_own_name_and_a_neighbour_is_left_alone():
    redactor = run_redactor("/srv/sandboxes/s-a", "/srv/state/s-a", "/srv/state/s-a/runs/7.scratch")
    text = (
        "Read /srv/sandboxes/s-a/item/notes.md, not /srv/sandboxes/s-ab/x.md; "
        "home /srv/state/s-a/runs/7.scratch/home/.claude, index /srv/state/s-a/index. "
        "Root: /srv/sandboxes/s-a."
    )
    assert redactor.text(text) == (
        "Read <sandbox>/item/notes.md, not /srv/sandboxes/s-ab/x.md; "
        "home <engine home>/home/.claude, index <state>/index. Root: <sandbox>."
    )


def test_payloads_are_redacted_keys_and_other_values_kept():
    redactor = run_redactor("/srv/sb", "/srv/state")
    payload = {"file_path": "/srv/sb/a.md", "lines": [1, 2], "results": ["/srv/state/x", "ok"], "n": 3}
    assert redactor.value(payload) == {
        "file_path": "<sandbox>/a.md",
        "lines": [1, 2],
        "results": ["<state>/x", "ok"],
        "n": 3,
    }
    assert payload["file_path"] == "/srv/sb/a.md"  # the caller's value is not changed


def test_nothing_changes_nothing():
    assert NOTHING.text("/srv/sb/a.md") == "/srv/sb/a.md"


def test_a_root_split_over_two_pieces_of_a_stream_is_still_found():
    redactor = run_redactor("/srv/sandboxes/s-a", "/srv/state/s-a")
    shown, held = redactor.split_tail("Files live in /srv/sandb")
    assert (shown, held) == ("Files live in ", "/srv/sandb")
    shown, held = redactor.split_tail(held + "oxes/s-a/notes.md and /srv/other/x")
    assert (shown, held) == ("<sandbox>/notes.md and /srv/other/x", "")
    # A whole root at the end waits too: "/srv/sandboxes/s-ab" is someone else's.
    assert redactor.split_tail("in /srv/sandboxes/s-a") == ("in ", "/srv/sandboxes/s-a")
