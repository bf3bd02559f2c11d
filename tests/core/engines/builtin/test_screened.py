"""A pattern searched only in text that may hold it finds what the pattern
finds: the screen (substrings every match holds) never hides a match, also
where Unicode case folding matches other letters to ASCII ones."""

from __future__ import annotations

import re

from core.engines.builtin.kinds import DIGITS, ENUMERATION, MENTIONS_DEFAULT, STATES_DEFAULT, Screened
from core.engines.builtin.rank import _BOILERPLATE

TEXTS = [
    "The timeout defaults to 30 seconds.",
    "DEFAULTS TO five.",
    "If you do not set it, the value is taken from the environment.",
    "If nothing is given, the first one is used; if you don't pass one, none is.",
    "If\n   none is configured, the server listens on all addresses.",
    "When not set the daemon retries; if it fails, it stops.",
    "If the file is missing, when it starts, it creates one.",
    "Valid values are: QUIET, FATAL, ERROR, INFO and DEBUG3.",
    "Use never, always, or auto. It is one of these.",
    "Formats include md5 or sha256",
    "When OMITTED the server picks one.",
    "By Default nothing is sent (default: none).",
    "The default value of the option.",
    "There is No Limit on retries; it runs forever.",
    "Nothing here says anything of the kind.",
    "Twenty-one connections.",
    "  License: MIT",
    "Metadata-Version: 2.1",
    ".. image:: logo.png",
    "from redis import Redis",
    "x = 1  # noqa: E501",
    "import os",
    "a plain sentence about imports",
    # not ASCII: the long s matches "s" and the Kelvin sign "k" when case is ignored
    "Retries are unlimited by defaulſ, ſince the value",
    "The daemon's \u212aeepalive defaults to two hours, by default.",
    "Été : la valeur par défaut",
    "",
]


def test_a_screened_pattern_finds_what_the_pattern_finds():
    for screened in (DIGITS, STATES_DEFAULT, MENTIONS_DEFAULT, ENUMERATION, _BOILERPLATE):
        for text in TEXTS:
            found, expected = screened.search(text), screened.pattern.search(text)
            assert (found and found.span()) == (expected and expected.span()), (screened.pattern, text)


def test_text_without_the_needles_is_not_searched():
    """The screen is what makes it cheap: text without a needle gives no match."""
    screened = Screened(re.compile(r"\bby default\b", re.I), ("default",))
    assert screened.search("By Default it is off").group() == "By Default"
    assert screened.search("by omission it is off") is None
    # outside ASCII the pattern itself decides: the long s is an "s" to it
    long_s = Screened(re.compile(r"\bsince\b", re.I), ("since",))
    assert long_s.search("ſince then") is not None


def test_a_needle_of_several_parts_needs_them_all():
    screened = Screened(re.compile(r"\bif not set\b", re.I), (("if ", "not"),))
    assert screened.search("If not set, it is off").group() == "If not set"
    assert screened.search("if it is set, it is on") is None
