"""Each refusal of the sandbox resolver, one at a time, with the sentence it gives:
a path is refused for what it is, even where the resolved path would stay inside."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.sandbox import SandboxError, _inside, check_name, resolve_in_sandbox


def refusal(root: Path, path: object) -> str:
    """The sentence the resolver refuses ``path`` with (the test fails if it is accepted)."""
    with pytest.raises(SandboxError) as refused:
        resolve_in_sandbox(root, path)  # type: ignore[arg-type]
    return str(refused.value)


@pytest.fixture
def root(tmp_path) -> Path:
    sandbox = tmp_path / "sandbox"
    (sandbox / "a").mkdir(parents=True)
    (sandbox / "b").write_text("b\n")
    return sandbox


def test_dot_dot_refused_even_when_it_stays_inside(root):
    """``a/../b`` would resolve inside the sandbox, but a ``..`` component is refused by name."""
    assert refusal(root, "a/../b") == "The path leaves its folder ('..')."
    with pytest.raises(SandboxError, match=r"^The path leaves its folder \('\.\.'\)\.$"):
        check_name("a/../b")


names = st.text(
    st.characters(codec="utf-8", exclude_characters="/\\%\x00", min_codepoint=32), min_size=1, max_size=8
)


@settings(max_examples=200, deadline=None)
@given(st.lists(names, max_size=3), st.lists(names, max_size=3))
def test_property_any_dot_dot_component_is_refused(before, after):
    """Whatever plain names surround it, a path with a ``..`` component is refused."""
    with pytest.raises(SandboxError):
        check_name("/".join([*before, "..", *after]))


def test_plain_names_with_dots_are_accepted(root):
    """``..`` inside a name (``a..b``, ``...``) is an ordinary name, not a climb."""
    assert resolve_in_sandbox(root, "a..b") == root.resolve() / "a..b"
    assert resolve_in_sandbox(root, "a/...") == root.resolve() / "a" / "..."
    assert resolve_in_sandbox(root, "./a/./b") == root.resolve() / "a" / "b"


def test_path_length_limit(root):
    """A path of exactly 1,024 characters is accepted; one more is refused as too long."""
    longest = "/".join(["x" * 200] * 5) + "/" + "y" * 19
    assert len(longest) == 1024
    assert resolve_in_sandbox(root, longest).name == "y" * 19
    assert refusal(root, longest + "y") == "The path is too long."


def test_component_length_limit(root):
    """A name of 255 UTF-8 bytes is accepted; 256 bytes (counted as bytes, not characters) is refused."""
    assert resolve_in_sandbox(root, "x" * 255).name == "x" * 255
    assert refusal(root, "x" * 256) == "A path component is too long."
    assert refusal(root, "é" * 128) == "A path component is too long."  # 128 characters, 256 bytes


def test_drive_letter_refused_but_colon_later_accepted(root):
    """``C:`` at the start is a Windows drive; a colon further on is part of a name."""
    assert refusal(root, "C:notes") == "The path must be relative to the sandbox."
    assert refusal(root, "C:") == "The path must be relative to the sandbox."
    assert refusal(root, "/etc") == "The path must be relative to the sandbox."
    assert resolve_in_sandbox(root, "ab:c").name == "ab:c"
    assert resolve_in_sandbox(root, "c").name == "c"


def test_control_characters_refused(root):
    """A newline or other control character in a name is refused; a space is not."""
    assert refusal(root, "a/b\nc") == "The path contains control characters."
    assert refusal(root, "\x1fx") == "The path contains control characters."
    assert resolve_in_sandbox(root, "a b").name == "a b"


def test_empty_path_refused(root):
    """A path with no names in it (``""``, ``.``, ``/./``-style) is refused as empty."""
    for path in ("", ".", "./.", ".//."):
        assert refusal(root, path) == "The path is empty."


def test_non_text_refused(root):
    """A path that is not a string (bytes) is refused with a sentence, not a TypeError."""
    assert refusal(root, b"a") == "The path must be text."


def test_nul_and_backslash_refused_by_name(root):
    """A NUL byte and a backslash (a Windows separator) are each refused with their own sentence."""
    assert refusal(root, "a\x00b") == "The path contains a NUL byte."
    assert refusal(root, "a\\b") == "The path contains a backslash."


def test_percent_encoded_name_kept_unless_it_decodes_to_a_climb(root):
    """``100%2F.txt`` is a name; ``%2e%2e`` decoding to ``..``, ``%2F`` leading to an absolute path,
    or ``%00`` are refused."""
    assert resolve_in_sandbox(root, "100%2F.txt").name == "100%2F.txt"
    for path in ("%2e%2e", "a/%2e%2e/b", "%2Fetc", "%5Cetc", "a%5C..%5Cb", "a%00b"):
        assert refusal(root, path) == "The path contains encoded separators.", path


def test_lookalike_separators_refused_but_other_folding_accepted(root):
    """A fullwidth solidus or two-dot leader folds into a separator and is refused; a name that only
    changes under NFKC without a separator (``ﬁle``) is accepted."""
    for path in ("a／b", "‥", "．．"):
        assert refusal(root, path) == "The path contains characters that look like separators.", path
    assert resolve_in_sandbox(root, "ﬁle").name == "ﬁle"
    assert resolve_in_sandbox(root, "a/ﬁle").name == "ﬁle"


def test_component_length_counted_in_bytes_past_a_quarter_of_the_limit(root):
    """Names of up to 63 characters are short whatever they are made of (4
    bytes a character at most); past that they are measured in bytes."""
    assert resolve_in_sandbox(root, "\U0001f600" * 63).name == "\U0001f600" * 63  # 252 bytes
    assert refusal(root, "\U0001f600" * 64) == "A path component is too long."  # 256 bytes


def test_refusals_keep_their_order_across_components(root):
    """Each component is checked in turn: the first one's fault is the one named."""
    assert refusal(root, "a/../b\nc") == "The path leaves its folder ('..')."
    assert refusal(root, "a\nb/../c") == "The path contains control characters."
    assert refusal(root, "a\x01/" + "x" * 256) == "The path contains control characters."


_piece = st.sampled_from(["", ".", "..", "a", "b", "ab"])


@settings(max_examples=2000)
@given(st.lists(_piece, max_size=4), st.lists(_piece, max_size=5), st.sampled_from(["", "/"]))
def test_inside_answers_as_commonpath(root_parts, rest, trail):
    """The prefix test that settles most paths agrees with ``commonpath``
    for any root and candidate, canonical or not ("//", ".", a trailing "/")."""
    real_root = "/" + "/".join(root_parts) + trail
    candidate = real_root + "/" + "/".join(rest)
    expected = os.path.commonpath([real_root, candidate]) == real_root
    try:
        assert _inside(real_root, candidate) == Path(candidate)
        assert expected
    except SandboxError:
        assert not expected
