"""How many stored quotes are shorter than the lines their citation names (issue #32).

Builds the built-in engine's evaluation sandbox (``bench.quality.builtin_engine``:
installed packages' READMEs and sources as zip content items), asks it the
questions of ``bench/quality/sets/builtin_questions.jsonl``, and for every
citation that verified counts the quotes shorter than their span's text
(whitespace folded): as the engine wrote them (what was stored before) and as
``citations.services.whole_quotes`` stores them now. Also the quotes' lengths.

    .venv/bin/python -m bench.quality.whole_quotes            # every question
    .venv/bin/python -m bench.quality.whole_quotes --limit 40  # the first 40
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
from pathlib import Path

from bench.quality.builtin_engine import CORPUS, SITE, Sandbox, ask, text_files
from bench.quality.builtin_set import CASES
from core.citations.parsing import parse_citations
from core.citations.states import HIGHLIGHTED
from core.citations.verification import verify_citations
from core.citations.verification.quote import read_lines, whole_quote
from core.engines.builtin import build_index


def folded(text: str) -> str:
    return " ".join(text.split())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--limit", type=int, default=0, help="ask only the first N questions")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="whole-quotes-"))
    try:
        box = Sandbox(work / "sandbox", work / "state")
        box.root.mkdir(parents=True)
        for title, paths in CORPUS:
            files = [f for rel in paths for f in text_files(SITE, rel)]
            if files:
                box.add(title, files, track=True)
        build_index(box.root, state=box.state)
        cases = CASES[: args.limit] if args.limit else CASES
        found = before = after = 0
        lengths_before: list[int] = []
        lengths_after: list[int] = []
        for case in cases:
            _seconds, text = ask(box, case.question)
            parsed = parse_citations(text).citations
            for cit, ver in zip(parsed, verify_citations(box.root, parsed), strict=True):
                if ver.status not in HIGHLIGHTED or ver.line_start is None or not cit.excerpt:
                    continue
                span = (ver.line_start, ver.line_end or ver.line_start)
                lines = read_lines(box.root, ver.resolved_path or cit.source_path, [span]).get(span)
                if not lines:
                    continue
                found += 1
                whole = folded("\n".join(lines))
                quote = whole_quote(cit.excerpt, lines, span[0])
                stored = quote.text if quote else cit.excerpt
                before += len(folded(cit.excerpt)) < len(whole)
                narrowed = quote is not None and (quote.line_start, quote.line_end) != span
                after += len(folded(stored)) < len(whole) and not narrowed
                lengths_before.append(len(cit.excerpt))
                lengths_after.append(len(stored))
        print(f"{len(cases)} questions, {found} verified citations with lines")
        print(
            f"quotes shorter than their span: as the engine wrote them {before}/{found}; as stored now {after}/{found}"
        )
        if found:
            print(
                f"quote length median: engine {statistics.median(lengths_before):.0f} characters, "
                f"stored {statistics.median(lengths_after):.0f} (max {max(lengths_after)})"
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
