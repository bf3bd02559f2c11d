"""The built-in engine's evaluation set: questions over real third-party
documentation and code installed in ``.venv`` (read at run time, never copied).
The questions are data, one per line of ``sets/builtin_questions.jsonl``
(number, kind, question and its gold facts); this module reads them.

Each answerable question names its gold fact: the file (relative to
site-packages), the lines that state it, and the key phrase(s) a correct lead
sentence contains (any one of them, compared case-insensitively with
whitespace folded). A two-file question has one gold fact per file.
``held_out`` questions (every third) are not looked at while tuning the engine.
Questions 73-86 (none divisible by 3) are more tuning questions, added in the third
pass so the engine is tuned on more than the first 42.
Questions numbered from 101 are a second held-out batch (``split == "new"``),
written from the files after the second tuning pass and committed before the
engine was run on them; the tuning loop never prints them. Since the fourth
pass every question up to 200 has been read (they are all tuning data now).
Questions numbered from 201 are a third held-out batch (``split == "third"``),
written from files the passes had not used, after the fourth pass's engine
changes and committed before the engine was first run on them; they were
read after that first run. Questions from 301 are a fourth held-out batch
(``split == "fourth"``), written the same way after the pass's last change.
Questions from 401 are a fifth held-out batch (``split == "fifth"``), written
by an engineer who had never seen the engine's code or outputs, from files in
the eval corpus that no earlier question used (read directly in site-packages),
checked with ``bench.quality.check_builtin_set`` and committed before the engine was
run on them; the semantic reranker is measured once on them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).with_name("sets") / "builtin_questions.jsonl"


@dataclass(frozen=True)
class Gold:
    file: str
    lines: tuple[int, int]
    phrases: tuple[str, ...]


@dataclass(frozen=True)
class Case:
    number: int
    kind: str  # number, name, yesno, howto, why, synonym, twofile, unanswerable
    question: str
    gold: tuple[Gold, ...]

    @property
    def split(self) -> str:
        """The part: tune, held (every third of the first set), new (the second
        held-out batch), third (the third held-out batch), fourth or fifth."""
        if self.number > 400:
            return "fifth"
        if self.number > 300:
            return "fourth"
        if self.number > 200:
            return "third"
        if self.number > 100:
            return "new"
        return "held" if self.number % 3 == 0 else "tune"

    @property
    def held_out(self) -> bool:
        return self.split != "tune"

    @property
    def answerable(self) -> bool:
        return bool(self.gold)


def load(path: Path = DATA) -> list[Case]:
    """The questions of ``path``, in file order."""
    cases = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            gold = tuple(Gold(g["file"], tuple(g["lines"]), tuple(g["phrases"])) for g in record["gold"])
            cases.append(Case(record["number"], record["kind"], record["question"], gold))
    return cases


CASES = load()
