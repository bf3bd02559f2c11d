"""Check the built-in engine's evaluation set against the installed files.

For every case of ``bench/quality/sets/builtin_questions.jsonl``: each gold file exists under
site-packages, its line range lies inside the file, and EVERY key phrase
occurs within the gold lines (case-insensitive, whitespace folded). Nothing is
run but reading files, so it is safe on a held-out batch the engine has not
seen.

    .venv/bin/python -m bench.quality.check_builtin_set           # all cases
    .venv/bin/python -m bench.quality.check_builtin_set fifth     # one split
"""

from __future__ import annotations

import re
import sys
import sysconfig
from pathlib import Path

from bench.quality.builtin_set import CASES, Case

SITE = Path(sysconfig.get_paths()["purelib"])


def fold(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def problems(case: Case, site: Path = SITE) -> list[str]:
    """Why the case's gold does not hold on the installed files (empty if it does)."""
    found = []
    for gold in case.gold:
        path = site / gold.file
        if not path.is_file():
            found.append(f"{gold.file} is not installed")
            continue
        lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
        first, last = gold.lines
        if not 1 <= first <= last <= len(lines):
            found.append(f"{gold.file}: lines {first}-{last} are outside its {len(lines)} lines")
            continue
        stated = fold("\n".join(lines[first - 1 : last]))
        found += [
            f"{gold.file}:{first}-{last} does not contain {phrase!r}"
            for phrase in gold.phrases
            if fold(phrase) not in stated
        ]
    return found


def main(argv: list[str]) -> int:
    split = argv[0] if argv else None
    cases = [c for c in CASES if split is None or c.split == split]
    numbers = [c.number for c in CASES]
    failed = 0
    for duplicate in sorted({n for n in numbers if numbers.count(n) > 1}):
        print(f"#{duplicate}: number used more than once")
        failed += 1
    for case in cases:
        for problem in problems(case):
            print(f"#{case.number} ({case.split}): {problem}")
            failed += 1
    print(f"checked {len(cases)} cases ({sum(c.answerable for c in cases)} answerable): {failed} problems")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
