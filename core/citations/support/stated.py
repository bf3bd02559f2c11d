"""The values a sentence states (numbers, names, paths, options) and whether a
quote states them all.

A verified quote that holds every value its sentence gives ("61184…65519",
``DynamicUser=``, ``/etc/passwd``, ``--jobs``) is evidence for the sentence,
however differently the rest is worded: the lexical judge never calls it "Does
not support" (``judge.judge_support``); at most it leaves it not judged.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re

from core.citations.support.terms import NUMBER_RE

_CODE = re.compile(r"`([^`\n]+)`")
_OPTION = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*=?")
_PATH = re.compile(
    r"(?<![\w/.~-])(?:~|\.{1,2})?/?(?:[\w.@+-]+/)+[\w.@+-]*|(?<![\w/])[\w-]+\.(?:conf|cfg|ini|toml|ya?ml|json|py|sh|service|socket|md|rst|txt|xml|html?)\b"
)
# snake_case, CamelCase inside a word, dotted names, NAME=, hyphenated names with a digit or an inner capital
_IDENTIFIER = re.compile(
    r"(?<![\w.-])(?:[A-Za-z]\w*_\w+|[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|[A-Z][A-Za-z0-9]*=|"
    r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+)(?![\w-])"
)


def sentence_values(sentence: str) -> list[str]:
    """The values the sentence names, in order, each once: code spans whole,
    then options, paths, identifiers and numbers outside them."""
    found: list[str] = []
    rest = sentence
    for span in _CODE.findall(sentence):
        found.append(span.strip())
        rest = rest.replace(f"`{span}`", " ")
    for pattern in (_OPTION, _PATH, _IDENTIFIER):
        for match in pattern.finditer(rest):
            found.append(match.group(0).rstrip(".,;:"))
        rest = pattern.sub(" ", rest)
    found += [match.group(1) for match in NUMBER_RE.finditer(rest)]
    return list(dict.fromkeys(value for value in found if value))


def _word_char(char: str) -> bool:
    """What ``\\w`` matches (one character, or none at the text's end)."""
    return char.isalnum() or char == "_"


def _in(value: str, quote: str) -> bool:
    """The value in the quote; a number on its own there (not inside another word or
    number: ``(?<![\\w.])VALUE(?![\\w]|\\.\\d)``, looked for without compiling a pattern
    per value: each quote's numbers were new patterns to the ``re`` module's cache)."""
    if not NUMBER_RE.fullmatch(value):
        return value in quote
    at = quote.find(value)
    while at != -1:
        end = at + len(value)
        before, after = quote[at - 1 : at] if at else "", quote[end : end + 1]
        if (
            not (before == "." or _word_char(before))
            and not _word_char(after)
            and not (after == "." and quote[end + 1 : end + 2].isdecimal())
        ):
            return True
        at = quote.find(value, at + 1)
    return False


def states_values(sentence: str, quote: str) -> list[str]:
    """The sentence's values when it names at least one and the quote holds
    every one of them; ``[]`` otherwise."""
    values = sentence_values(sentence)
    return values if values and all(_in(value, quote) for value in values) else []


# A name an entry of the cited text is headed by: an option, a snake_case or
# UPPER_CASE identifier, an inner-capital or dotted name.
_NAME = re.compile(
    r"(?<![\w-])--?[A-Za-z][\w-]*|(?<![\w.])(?:[A-Za-z]\w*_\w+|[a-z]+[A-Z]\w*|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?![\w-])"
)


def _names(text: str) -> set[str]:
    return {match.group(0).rstrip(".,;:=") for match in _NAME.finditer(text)}


def value_under_another_name(sentence: str, quote: str) -> str:
    """A value the sentence gives a name, which the quote gives only under another
    name (``--ping-interval`` "defaults to 30" where 30 is ``--ping-timeout``'s):
    the value, or "" when each of the sentence's values sits with one of its names
    (in the line that holds it, or under the nearest name above it)."""
    values = sentence_values(sentence)
    names = {value for value in values if _NAME.fullmatch(value)}
    literals = [value for value in values if value not in names and not _NAME.fullmatch(value)]
    if not names or not literals:
        return ""
    lines = quote.split("\n")
    owners: list[set[str]] = []  # per line: the names of the entry it belongs to
    current: set[str] = set()
    for line in lines:
        found = _names(line)
        current = found or current
        owners.append(found | current)
    for literal in literals:
        at = [n for n, line in enumerate(lines) if _in(literal, line)]
        if at and not any(owners[n] & names for n in at):
            return literal
    return ""
