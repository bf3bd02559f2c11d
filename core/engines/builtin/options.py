"""The command-line options and keywords a question asks about, and the manual
entries that answer it.

A manual's definition-list entry opens with what it defines ("-m, --max-time
<seconds>", "ConnectionAttempts"). A question naming an option as its subject
("What does --retry do?", "curl's retry delay option") is answered by that
option's own entry, not a sibling's that repeats more of its words
(``--retry-delay`` for ``--retry``); one asking for an option's name ("Which grep
option skips …?") by the opening passage of an entry, which holds the name.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .query import fold, light_stem

if TYPE_CHECKING:  # claims reads the index's hits, which find entries by ``entry_line``
    from .claims import Claim

# A command-line option as a question or a manual writes it: "--retry", "-xdev", "--max-time=SECONDS".
_OPTION = re.compile(r"(?<![\w-])--?[A-Za-z][\w.]*(?:-[\w.]+)*")
# What follows an option in its entry's first line: "<seconds>", "[=FORMAT]", "SECONDS", ","
_OPTION_ARGUMENT = re.compile(r"[<\[=|]|[A-Z][A-Z_]*,?$|,$")


def options_in(text: str) -> frozenset[str]:
    """The command-line options ``text`` names."""
    return frozenset(_OPTION.findall(text))


def entry_line(option: str) -> re.Pattern[str]:
    """A line opening the definition-list entry of ``option``, as written (case
    counts: less's ``-L`` is not its ``-l``): the option among the options, their
    arguments and "or" that open the line ("-L or --no-lessopen", "-m, --max-time
    <seconds>", "--partial-dir=DIR")."""
    return re.compile(
        r"(?m)^[ \t]*(?:(?:--?[\w.][\w.-]*(?:[=\[][^\s,]*)?|or|<[^>\n]*>|[A-Z][A-Z_]*),?[ \t]+){0,6}?"
        + re.escape(option)
        + r"(?![\w-])"
    )


def entry_options(claim: Claim) -> frozenset[str]:
    """The options whose definition-list entry ``claim`` is: the term it is shown
    with, or the options that open it ("-m, --max-time <seconds> Maximum time …");
    empty for a passage that is no option's entry."""
    if claim.term:
        return options_in(claim.term)
    found = set()
    for word in claim.sentence.split():
        # "--partial-dir=DIR", "--info=FLAGS,": the option without its argument
        option = _OPTION.fullmatch(re.split(r"[=\[]", word.rstrip(","), maxsplit=1)[0])
        if option:
            found.add(option.group())
        elif not _OPTION_ARGUMENT.match(word):
            break
    return frozenset(found)


# A configuration key as a manual's entry defines it: "set_tcp_nodelay [ true | false ]",
# "Storage=", "ConnectionAttempts" (a word alone, "port", is no key by its shape).
_KEY = re.compile(r"[A-Za-z][\w.]*?(?:_\w[\w.]*|[a-z][A-Z][\w.]*)(?==|[\s,]|$)|[A-Za-z][\w.]*(?==)")


def defined_key(defines: str) -> str:
    """The configuration key the entry of ``defines`` (its term) defines, "" if none."""
    found = _KEY.match(defines)
    return found.group() if found else ""


def defines_setting(defines: str) -> bool:
    """Whether an entry's term is a setting to give: a command-line option or a configuration key."""
    return defines.startswith("-") or bool(defined_key(defines))


def _name_words(option: str) -> set[str]:
    words = re.sub(r"([a-z])([A-Z])", r"\1 \2", option).lower()  # "ConnectionAttempts": connection, attempts
    return {light_stem(w) for w in re.split(r"[-_.\s]+", words) if len(w) > 1}


# "curl's retry delay option", "the -name test", "find's prune action": the words naming an option
_NAMED_AS = re.compile(
    r"(?:['’]s|\bthe|\ban?)\s+((?:[\w-]+\s+){0,2}?[\w-]+)\s+(?:option|flag|switch|test|action|directive)s?\b",
    re.I,
)


# "What does --retry do?", "What is curl's --fail option for?": the option is what is asked about
_OPTION_SUBJECT = re.compile(
    r"^\s*(?:what|how)\s+(?:does|do|is|are|did)\s+(?:[\w'’.-]+\s+){0,3}?(--?[A-Za-z][\w.-]*)(?=[\s?]|$)", re.I
)
_OPTION_WORD = r"\s+(?:option|flag|switch|test|action|directive|setting|parameter)s?\b"
# A configuration key a question writes before "option"/"setting": "journald's Storage= setting".
_KEY_WRITTEN = re.compile(r"(?<![\w-])([A-Za-z][\w.]*?(?:_\w[\w.]*|[a-z][A-Z][\w.]*|(?==)))=?" + _OPTION_WORD)


# A key whose words an underscore joins is a key wherever the question writes it:
# "What is the default value of PASS_MIN_DAYS?" (``PASS_MAX_DAYS`` shares two of its words).
_KEY_ANYWHERE = re.compile(r"(?<![\w.-])([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)(?![\w-])")


def option_asked(question: str, *, keys_anywhere: bool = True) -> tuple[frozenset[str], frozenset[str]]:
    """The options a question asks about, as its subject: the ones it writes
    before "option" ("curl's --retry option") or right after "what does" ("What
    does -prune do?"), else the words it names one with ("curl's retry delay
    option": retry, delay), stemmed as ``_name_words`` stems an option's name.
    An option written as the context of another question ("How many redirects
    … with --location?", "an alternate name for -xdev") is not asked about."""
    written = frozenset(
        found for found in options_in(question) if re.search(re.escape(found) + _OPTION_WORD, question)
    )
    subject = _OPTION_SUBJECT.match(question)
    if subject:
        written |= {subject.group(1)}
    written |= frozenset(_KEY_WRITTEN.findall(question))
    if keys_anywhere:
        written |= frozenset(_KEY_ANYWHERE.findall(question))
    if written:
        return written, frozenset()
    if options_in(question):
        return frozenset(), frozenset()
    found = _NAMED_AS.search(question)
    if not found:
        return frozenset(), frozenset()
    return frozenset(), frozenset(
        light_stem(fold(w)) for w in re.split(r"[\s_-]+", found.group(1)) if len(w) > 1
    )


def term_line(name: str, *, ignore_case: bool = False) -> re.Pattern[str]:
    """A line that is a configuration manual's term for ``name``, the key or directive
    alone or with its argument ("size size", "Storage=", "allow_anonymous [ true | false ]"),
    its description indented further on the next line."""
    return re.compile(
        r"(?m)^([ \t]*)" + re.escape(name) + r"(?:[ \t=][^\n]{0,40})?\n\1[ \t]+\S",
        re.I if ignore_case else 0,
    )


def named_term(question: str) -> str:
    """The one word a question names an option or directive by, when it writes no
    option or key: "logrotate's size directive" → "size" ("" for none, or several words)."""
    if options_in(question) or _KEY_WRITTEN.search(question):
        return ""
    found = _NAMED_AS.search(question)
    if not found or not re.fullmatch(r"[A-Za-z][\w]*", found.group(1)):
        return ""
    return found.group(1)


def is_asked_entry(defines: str, written: frozenset[str], named: frozenset[str]) -> bool:
    """Whether the definition-list entry of ``defines`` (its term: "-m, --max-time
    <seconds>") is the option asked about: one of the options written, or the one
    whose name is the words named, all of them and no more (not a sibling:
    ``--retry-delay`` for "the retry option")."""
    own = options_in(defines) or {key for key in (defined_key(defines),) if key}
    if not own and named and not written:
        # a plain word's entry ("size size", logrotate's directive and its argument):
        # the word named ("logrotate's size directive")
        own = {defines.split()[0]} if defines.split() and defines.split()[0].isalpha() else set()
    if not own:
        return False
    if written:
        return bool(own & written)
    return bool(named) and any(_name_words(option) == named for option in own)


def states_the_option_asked(question: str, lead: Claim) -> bool:
    """Whether the lead is about the option the question asks about, as far as
    a manual shows it. A question naming options ("What does --retry do?") needs
    the entry of one of them, or a passage naming one that is no other option's
    entry: the entry of ``--retry-delay`` names "retry", "delay" and even
    "--retry", every key term, yet not what was asked. A question naming none
    ("What does the retry option do?") is not about an entry whose name only
    shares some of its words (a sibling: ``--retry-delay``, ``--retry-max-time``)."""
    asked = options_in(question)
    own = entry_options(lead)
    if asked:
        if own:
            return bool(own & asked)
        return bool(options_in(f"{lead.sentence}\n{lead.code or ''}") & asked)
    if not own:
        return True
    words = {light_stem(fold(w)) for w in re.findall(r"\w+", question)}
    names = [_name_words(option) for option in own]
    shares = any(name & words for name in names)
    return not shares or any(name <= words for name in names)


# "Which grep option skips …?", "Which keyword sets …?": the answer is an entry's name,
# which its opening passage holds (its later sentences say more of the words asked)
_ASKS_OPTION_NAME = re.compile(
    r"^\s*(?:which|what)\s+(?:[\w'’-]+\s+){0,2}?(?:options?|flags?|switch(?:es)?|keywords?|directives?)\b",
    re.I,
)
# A term written in plain words: shadow(5)'s "password warning period", rsyncd.conf(5)'s "max connections".
_WORD_TERM = re.compile(r"[A-Za-z]+(?: [A-Za-z]+){1,4}")
# The bonus of an entry's opening passage then, as far as it is about the question,
# whatever words of it the entry misses ("option" is in none of them).
NAMES_OPTION = 0.2
# The bonus of the entry of the option a question names: its term and first paragraph
# are what was asked, and lead over any passage that is not.
ASKED_ENTRY = 1.0


@dataclass(frozen=True, slots=True)
class AskedOptions:
    """What a question asks of a manual's entries (see the module's docstring)."""

    written: frozenset[str]
    named: frozenset[str]
    asks_name: bool
    # the question's words, folded and spaced, when a term written in words may be asked about
    phrased: str = ""
    key: frozenset[str] = frozenset()

    @classmethod
    def of(cls, question: str, *, keys_anywhere: bool = True, key: tuple[str, ...] = ()) -> AskedOptions:
        """``keys_anywhere``: a key written anywhere in the question is what it asks
        about (its value, its meaning), not only one written before "option"; not for a
        question asking whether something holds of the key, or why, or how to do something.
        With ``key`` (the question's key terms), so is an entry whose term is words the
        question writes together ("What is the password warning period?")."""
        written, named = option_asked(question, keys_anywhere=keys_anywhere)
        phrased = f" {' '.join(re.findall(r'[a-z0-9]+', fold(question)))} " if keys_anywhere and key else ""
        return cls(written, named, bool(_ASKS_OPTION_NAME.match(question)), phrased, frozenset(key))

    def term_phrased(self, defines: str) -> bool:
        """Whether ``defines`` is a term of two or more plain words ("password
        warning period", "max connections"), every one a key term, that the
        question writes as one phrase."""
        if not self.phrased or not _WORD_TERM.fullmatch(defines):
            return False
        words = fold(defines).split()
        return (
            len(words) >= 2 and all(w in self.key for w in words) and f" {' '.join(words)} " in self.phrased
        )

    def entry(self, defines: str, coverage: float) -> tuple[bool, float]:
        """Whether a passage opening the entry of ``defines`` (empty: it opens
        none) holds what was asked of entries, and the score it adds for it."""
        if not defines:
            return False, 0.0
        answers, bonus = False, 0.0
        if self.asks_name:
            answers, bonus = True, NAMES_OPTION * min(1.0, coverage / 0.5)
        if (self.written or self.named) and is_asked_entry(defines, self.written, self.named):
            answers, bonus = True, bonus + ASKED_ENTRY  # however few of the question's words it repeats
        elif self.term_phrased(defines):
            answers, bonus = True, bonus + ASKED_ENTRY
        return answers, bonus
