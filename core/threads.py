"""Follow-up questions in a thread: what each engine is asked.

A follow-up such as "And a refresh token?" or "What happens when one is
reused?" only makes sense with the turns before it. The Claude engines get the
earlier turns in the prompt (``conversation_prompt``) and resolve it
themselves. The built-in engine searches words, so the follow-up is rewritten
into a question that stands alone (``resolve_follow_up``): the new subject
replaces the earlier one, a pronoun becomes the subject it stands for. The
rewrite is shown on the answer ("Searched as …"), so a wrong guess is visible.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.citations.markers import MARKER_RE
from core.text import clip

# An elliptical opening: "And a refresh token?", "What about keys?", "How about the worker?"
_OPENING = re.compile(
    r"^\s*(?:and\s+(?:what|how)\s+about|what\s+about|how\s+about|and|or|also)\b[\s,]*", re.I
)
_PRONOUNS = ("one", "it", "they", "them", "ones")
_PRONOUN = re.compile(r"\b(" + "|".join(_PRONOUNS) + r")\b", re.I)
_POSSESSIVE = re.compile(r"\b(its|their)\b", re.I)
# "a/an/the" and up to two words after it: "an access token", "the signing key".
_SUBJECT = re.compile(r"\b(?:an?|the)\s+[\w-]+(?:\s+[\w-]+)?", re.I)
_WORD = re.compile(r"[\w-]+")
_AUXILIARY = re.compile(r"\b(?:do|does|did|can|could|will|would|should|must|may|might)\s*$", re.I)
# Words that end a noun phrase rather than belong to it.
_NOT_NOUN = frozenset(
    "is are was were be been do does did can could will would should may might must has have had "
    "live lives last lasts expire expires happen happens work works mean means get gets "
    "when where why how what which who whom whose if then than and or but of in on at to for from "
    "with by about into after before during".split()
)
# "for dynamic users", "in production", "under Windows": a phrase a follow-up may swap.
_PREPOSITIONS = frozenset("for in on under with without at during inside within across behind over".split())
# "those numbers", "that option": something the previous turn named.
_DEMONSTRATIVE = re.compile(r"\b(those|these|that|this)\s+([A-Za-z][\w-]*)", re.I)
_DETERMINERS = frozenset("the a an it its their this that these those one".split())
# A number, a version or a range of numbers ("61184…65519", "1-5", "2.5").
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?:\s*(?:…|\.\.\.?|–|-)\s*\d+(?:[.,]\d+)*)?(?![\w])")
MAX_TURNS = 6  # earlier turns given to an engine
MAX_ANSWER_CHARS = 4_000  # of each earlier answer
# The whole prompt, in UTF-8 bytes: a bounded cost per follow-up for every
# engine (no engine puts the prompt on a command line any more, so Linux's
# 128 KiB cap on one argument no longer applies).
MAX_PROMPT_BYTES = 96 * 1024
FOLDED_ANSWER_CHARS = 220  # an answer folded to its first sentence


@dataclass(frozen=True, slots=True)
class Turn:
    """An earlier turn of the thread: what was asked and what was answered."""

    question: str
    answer: str
    sources: tuple[str, ...] = ()


def subject_of(question: str) -> str:
    """The question's subject as a guess: its first "a/an/the …" phrase, cut
    before a word that cannot belong to a noun phrase ("does", "live", "when")."""
    body = question.rstrip().rstrip("?").rstrip()
    for match in _SUBJECT.finditer(body):
        words = match.group(0).split()
        while len(words) > 1 and words[-1].lower() in _NOT_NOUN:
            words.pop()
        # "When does the key rotate?": after an auxiliary, the question's last
        # word is its verb, not part of the subject.
        if len(words) > 2 and match.end() == len(body) and _AUXILIARY.search(body[: match.start()]):
            words.pop()
        if len(words) > 1:
            return " ".join(words)
    return ""


def _head(phrase: str) -> str:
    words = _WORD.findall(phrase.lower())
    if not words:
        return ""
    word = words[-1]
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


def _phrase_with_head(question: str, head: str) -> str:
    """The words of ``question`` ending in a word with ``head`` ("access tokens"
    for "token"): that word and the modifiers before it."""
    words = question.rstrip("?").split()
    for index, word in enumerate(words):
        if _head(word) == head:
            start = index
            while start > 0 and words[start - 1].lower() not in _NOT_NOUN and index - start < 2:
                start -= 1
            return " ".join(words[start : index + 1])
    return ""


def _prepositional_phrase(question: str, preposition: str) -> str:
    """The phrase of ``question`` opened by ``preposition`` (else its last phrase
    opened by any preposition) up to a word that ends a noun phrase: "for dynamic
    users" in "Which UID range is used for dynamic users?"."""
    words = question.rstrip().rstrip("?").split()
    opened = [i for i, word in enumerate(words) if word.lower() in _PREPOSITIONS]
    same = [i for i in opened if words[i].lower() == preposition]
    if not (same or opened):
        return ""
    start = (same or opened)[-1]
    end = start + 1
    while end < len(words) and end - start <= 5 and words[end].lower() not in _NOT_NOUN:
        end += 1
    return " ".join(words[start:end]) if end > start + 1 else ""


def _values(answer: str) -> list[str]:
    """The numbers the answer leads with (a range "524288…1879048191" as one), at most two."""
    return list(dict.fromkeys(_NUMBER.findall(lead_sentence(answer, 400))))[:2]


def _demonstrative(text: str, previous: str, previous_answer: str) -> str:
    """ "Why were those numbers chosen?": "those numbers" are the numbers the
    previous answer leads with, about the previous question's subject."""
    for match in _DEMONSTRATIVE.finditer(text):
        noun = match.group(2)
        if noun.lower() in _NOT_NOUN or noun.lower() in _DETERMINERS:
            continue
        values = _values(previous_answer)
        phrase = f"the {noun}" + (f" {' and '.join(values)}" if values else "")
        about = _prepositional_phrase(previous, "for") or (
            f"of {subject_of(previous)}" if subject_of(previous) else ""
        )
        if about and about.lower() not in text.lower():
            phrase += f" {about}"
        return text[: match.start()] + phrase + text[match.end() :]
    return text


def resolve_follow_up(follow_up: str, previous: str, previous_answer: str = "") -> str:
    """``follow_up`` as a question that stands alone, given the latest turn: its
    (already resolved) question and its answer; unchanged when it stands alone.
    Only the latest turn is read, so an earlier turn's subject never comes back."""
    text = " ".join(follow_up.split())
    previous = " ".join(previous.split())
    if not text or not previous:
        return text
    opening = _OPENING.match(text)
    if opening:
        # "And a refresh token?": the new subject in the previous question's frame.
        rest = text[opening.end() :].strip().rstrip("?").strip()
        words = _WORD.findall(rest)
        if words and words[0].lower() in _PREPOSITIONS and len(words) <= 7:
            # "And for systemd-nspawn containers?": the new phrase replaces the earlier one.
            old = _prepositional_phrase(previous, words[0].lower())
            if old:
                return previous.replace(old, rest, 1)
            return f"{previous.rstrip('?')} ({rest})?"
        if words and len(words) <= 6:
            # The earlier phrase with the same head noun ("an access token" for
            # "a refresh token"), else the earlier subject, gives way to the new one.
            old = _phrase_with_head(previous, _head(rest)) or subject_of(previous)
            if old:
                return previous.replace(old, rest, 1)
            return f"{previous.rstrip('?')} ({rest})?"
        return text
    resolved = _demonstrative(text, previous, previous_answer)
    if resolved != text:
        return resolved
    subject = subject_of(previous)
    if subject and _PRONOUN.search(text) and not subject_of(text):
        # "What happens when one is reused?": the pronoun stands for the earlier subject.
        resolved = _PRONOUN.sub(subject, text, count=1)
        return _POSSESSIVE.sub(f"{subject}'s", resolved, count=1)
    return text


@dataclass(frozen=True, slots=True)
class Budgeted:
    """The earlier turns a prompt can carry within ``MAX_PROMPT_BYTES``: ``turns``
    (numbered from ``first``), how many of the oldest were folded to their
    question and the first sentence of their answer, and how many were dropped."""

    turns: list[Turn]
    first: int
    folded: int = 0
    dropped: int = 0

    def note(self) -> str:
        """What was left out, in words ("" when nothing was)."""
        parts = []
        if self.folded:
            parts.append(
                f"{self.folded} earlier turn{'s' if self.folded != 1 else ''} shortened to question and first sentence"
            )
        if self.dropped:
            parts.append(f"{self.dropped} earliest turn{'s' if self.dropped != 1 else ''} left out")
        return "; ".join(parts)


def _cut(turn: Turn) -> Turn:
    answer = turn.answer.strip() or "(no answer)"
    if len(answer) > MAX_ANSWER_CHARS:
        answer = answer[:MAX_ANSWER_CHARS] + " …"
    return Turn(turn.question.strip(), answer, turn.sources[:10])


def _fold(turn: Turn) -> Turn:
    return Turn(turn.question, lead_sentence(turn.answer, FOLDED_ANSWER_CHARS) or "(no answer)", turn.sources)


def budget_thread(turns: list[Turn], question: str, budget: int = MAX_PROMPT_BYTES) -> Budgeted:
    """The last ``MAX_TURNS`` turns, each answer cut to ``MAX_ANSWER_CHARS``;
    while the prompt is over ``budget`` bytes the oldest turns are folded to
    their question and first sentence, then the oldest dropped. The follow-up
    itself is never cut."""
    shown = [_cut(turn) for turn in turns[-MAX_TURNS:]]
    first = len(turns) - len(shown) + 1
    dropped = len(turns) - len(shown)
    folded = 0

    def size() -> int:
        return len(_render(shown, first, question).encode("utf-8"))

    while shown and size() > budget and folded < len(shown):
        shown[folded] = _fold(shown[folded])
        folded += 1
    while shown and size() > budget:
        shown.pop(0)
        first += 1
        dropped += 1
        folded = max(0, folded - 1)
    return Budgeted(shown, first, folded, dropped)


def conversation_prompt(turns: list[Turn], question: str, budget: int = MAX_PROMPT_BYTES) -> str:
    """The prompt for an engine that reads prose: the thread's earlier turns
    (as ``budget_thread`` keeps them), then the follow-up. The answers are the
    engine's own earlier words; the sandbox's files stay the only evidence to cite."""
    if not turns:
        return question
    kept = budget_thread(turns, question, budget)
    return _render(kept.turns, kept.first, question)


def _render(shown: list[Turn], first: int, question: str) -> str:
    parts = [
        "This question continues an earlier conversation in this research session. "
        "Earlier turns, oldest first (use them to understand the question; cite only the files):",
        "",
    ]
    for number, turn in enumerate(shown, start=first):
        parts += [f"Turn {number} question: {turn.question}", f"Turn {number} answer: {turn.answer}"]
        if turn.sources:
            parts.append(f"Turn {number} cited: {', '.join(turn.sources)}")
        parts.append("")
    parts.append(f"The follow-up question to answer now: {question.strip()}")
    return "\n".join(parts)


_TURN_LINE = re.compile(r"^Turn (\d+) (question|answer|cited): ", re.M)
_FOLLOW_UP = "The follow-up question to answer now: "


def split_conversation(prompt: str) -> tuple[list[Turn], str]:
    """``conversation_prompt`` read back: ``(earlier turns, follow-up)``, for an
    engine that sends the thread as chat messages; a prompt that is no
    conversation is ``([], prompt)``. Each earlier answer runs to the next
    line of the prompt's own shape, so an answer's own lines stay in it."""
    if not prompt.startswith(conversation_prompt([Turn("", "")], "").split("\n", 1)[0]):
        return [], prompt
    head, found, question = prompt.rpartition("\n" + _FOLLOW_UP)
    if not found:
        return [], prompt
    # A mark counts only where the prompt's own order expects it (turn n's
    # question, answer, cited; then turn n + 1), so an answer that quotes
    # "Turn 9 question:" stays one answer (one that quotes the very next mark,
    # "Turn 2 question:" inside turn 1, is cut there: the prompt cannot tell).
    marks, expected = [], None
    for mark in _TURN_LINE.finditer(head):
        number, part = int(mark[1]), mark[2]
        if expected is None and part == "question":
            expected = number
        if (number, part) in _next_parts(marks, expected):
            marks.append(mark)
    fields: dict[int, dict[str, str]] = {}
    for mark, after in zip(marks, [*marks[1:], None], strict=True):
        end = after.start() if after is not None else len(head)
        fields.setdefault(int(mark[1]), {})[mark[2]] = head[mark.end() : end].strip()
    turns = [
        Turn(
            question=parts.get("question", ""),
            answer=parts.get("answer", ""),
            sources=tuple(s for s in parts.get("cited", "").split(", ") if s),
        )
        for _number, parts in sorted(fields.items())
    ]
    return turns, question.strip()


def _next_parts(marks: list, first: int | None) -> set[tuple[int, str]]:
    """The marks that may come next after ``marks`` (turns numbered from ``first``)."""
    if not marks:
        return {(first, "question")} if first is not None else set()
    number, part = int(marks[-1][1]), marks[-1][2]
    following = {"question": {(number, "answer")}, "answer": {(number, "cited"), (number + 1, "question")}}
    return following.get(part, {(number + 1, "question")})


_LEAD_SKIP = re.compile(r"^\s*(#|```|~~~|\||-{3,}|={3,}|<[^>]*>\s*$|>?\s*$)")
_LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_EMPHASIS = re.compile(r"(\*\*|__|`)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
_SPACE_BEFORE_STOP = re.compile(r"\s+([.,;:!?])")


def lead_sentence(answer: str, limit: int = 220) -> str:
    """An earlier turn folded to one line: the first sentence of its answer's
    first paragraph (headings, fences and tables skipped; citation markers and
    emphasis dropped), at most ``limit`` characters."""
    for line in answer.splitlines():
        if _LEAD_SKIP.match(line):
            continue
        text = " ".join(_EMPHASIS.sub("", MARKER_RE.sub("", _LIST_MARK.sub("", line))).split())
        text = _SPACE_BEFORE_STOP.sub(r"\1", text)  # "issued [c1]." was "issued ."
        if not text:
            continue
        return clip(_SENTENCE_END.split(text, maxsplit=1)[0], limit)
    return ""
