"""Citation verification on real text against ripgrep, its fairest contender.

The sandbox is ``bench.perf.text_corpus`` (≥ 50 MB of the packages' docs and
sources and Debian's /usr/share/doc). Citations quote two real lines of a
file chosen at random (seeded), with the mix of ``bench.perf.verify``: most
in place, some relocated, some without lines, some wrong, some without an
excerpt. Contenders, timed in interleaved rounds, median CPU time (this
process's, plus its children's for ``rg``):

- one ``rg -F -n -f PATTERNS`` over every cited file (the excerpts' first
  lines as fixed strings): the yardstick (issue #37's target is ≤ 0.5× it);
- ``rg -F -n`` once per cited file with that file's excerpts (the old
  contender of ``bench.perf.verify``, mostly process start-ups);
- ``verify_citations``, and the same with step 1 of the normalisation as it
  was before the fix (``str.translate`` over every character of non-ASCII
  text), so the gain is measured in the same run.

With ``--before COMMIT``, the verification package as it was at that
commit (``bench.perf.reverify.package_at``; the rest of the project is
today's) is timed too, in the same rounds on the same corpus, and every
outcome of today's code, in every round, is compared with that commit's
in the same round, field by field: the check that holds when the corpus
itself changes (it is built from what is installed, which other work
changes).

With ``--statuses FILE``, every outcome (status, detail, score, lines, path,
hash) is written to FILE when it does not exist, else compared with it: run
once on the code before a change and once after, and the differences are
counted (the corpus must be the same: same machine, same packages).

Run: ``make bench-ripgrep && .venv/bin/python -m bench.perf.verify_real [--mb 55] [--citations 1000 10000] [--rounds 3] [--statuses FILE] [--before COMMIT]``
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
import unicodedata
from collections import Counter
from dataclasses import asdict
from pathlib import Path

from bench.perf import text_corpus
from bench.perf.reverify import package_at
from bench.perf.verify import ripgrep
from core.citations.parsing import ParsedCitation
from core.citations.verification import normalize, verify_citations


def make_citations(root: Path, files: list[str], count: int, seed: int = 11) -> list[ParsedCitation]:
    """Two consecutive non-blank lines of a random file per citation, in the mix of ``bench.perf.verify``."""
    rng = random.Random(seed)
    lines_of: dict[str, list[str]] = {}
    citations = []
    while len(citations) < count:
        rel = rng.choice(files)
        if rel not in lines_of:
            data = (root / rel).read_bytes()
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                text = data.decode("latin-1")
            lines_of[rel] = text.split("\n")
        lines = lines_of[rel]
        if len(lines) < 4:
            continue
        at = rng.randrange(len(lines) - 2)
        if not lines[at].strip() or not lines[at + 1].strip():
            continue
        excerpt = "\n".join(lines[at : at + 2])
        start, end = at + 1, at + 2
        number = len(citations)
        kind = rng.random()
        if kind < 0.10:  # relocated: cited 40 lines off
            start, end = max(1, start - 40), max(1, end - 40)
        elif kind < 0.20:  # range inferred from the excerpt
            start = end = None
        elif kind < 0.25:  # not in the file
            excerpt = "this sentence was never written anywhere " + str(number)
        elif kind < 0.30:  # no excerpt
            excerpt = None
        citations.append(
            ParsedCitation(
                cid=f"c{number + 1}",
                found_by="citations_block",
                source_type="file",
                source_path=rel,
                line_start=start,
                line_end=end,
                excerpt=excerpt,
            )
        )
    return citations


def ripgrep_once(root: Path, citations: list[ParsedCitation], patterns: Path) -> None:
    """One ``rg -F -n -f`` over every cited file, every excerpt's first line a pattern."""
    wanted = [c.excerpt.split("\n", 1)[0] for c in citations if c.excerpt]
    patterns.write_text("\n".join(dict.fromkeys(wanted)) + "\n", encoding="utf-8")
    cited = [str(root / rel) for rel in dict.fromkeys(c.source_path for c in citations)]
    subprocess.run(
        ["rg", "-F", "-n", "--no-heading", "-f", str(patterns), *cited],
        stdout=subprocess.DEVNULL,
        check=False,
    )


def _translated(text: str) -> str:
    """Step 1 as it was before the fix."""
    if text.isascii():
        return text
    return unicodedata.normalize("NFKC", text).translate(normalize._FOLD)


def verify_before(root: Path, citations: list[ParsedCitation]):
    fixed = normalize.plain_forms
    normalize.plain_forms = _translated
    try:
        return verify_citations(root, citations)
    finally:
        normalize.plain_forms = fixed


def same_outcomes(path: Path, key: str, results) -> str:
    """Record the outcomes under ``key`` in the JSON file ``path``, or, if it
    holds them already, say how many differ."""
    known = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    outcomes = [asdict(r) for r in results]
    if key not in known:
        known[key] = outcomes
        path.write_text(json.dumps(known), encoding="utf-8")
        return f"outcomes recorded in {path}"
    differ = sum(a != b for a, b in zip(known[key], outcomes, strict=True))
    return f"outcomes differing from those in {path}: {differ} of {len(outcomes)}"


def cpu_with_children(func) -> float:
    """CPU seconds of ``func``: this process's and its finished children's."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = time.process_time()
    func()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    children = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return time.process_time() - cpu + children


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--mb", type=float, default=55)
    parser.add_argument("--citations", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--statuses", type=Path, help="JSON file of outcomes to record, or to compare with")
    parser.add_argument("--before", help="also time this commit's verification package, outcomes compared")
    args = parser.parse_args()
    if not shutil.which("rg"):
        raise SystemExit("ripgrep is missing: make bench-ripgrep")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "sandbox"
        root.mkdir()
        files = text_corpus.build(root, args.mb)
        size = sum((root / rel).stat().st_size for rel in files)
        plain = sum((root / rel).read_bytes().isascii() for rel in files)
        print(f"corpus: {len(files)} files, {size / 1e6:.1f} MB, {len(files) - plain} not pure ASCII")
        patterns = Path(tmp) / "patterns.txt"
        old = package_at(args.before, Path(tmp) / "before") if args.before else None
        before_name = f"verify at {args.before}"
        for count in args.citations:
            citations = make_citations(root, files, count)
            cited = {c.source_path for c in citations}
            results = verify_citations(root, citations)  # also warms the page cache
            before = verify_before(root, citations)
            same = [(r.status, r.line_start, r.line_end) for r in results] == [
                (r.status, r.line_start, r.line_end) for r in before
            ]
            # Every round's outcomes are kept, to be compared field by field below.
            rounds: dict[str, list] = {"verify_citations": [], before_name: []}
            contenders = {
                "rg -F -n -f, one process": lambda: ripgrep_once(root, citations, patterns),  # noqa: B023
                "rg -F -n once per file": lambda: ripgrep(root, citations),  # noqa: B023
                "verify_citations": lambda kept=rounds["verify_citations"], cited=citations: kept.append(
                    verify_citations(root, cited)
                ),
                "verify, translate as before": lambda: verify_before(root, citations),  # noqa: B023
            }
            if old is not None:
                contenders[before_name] = lambda kept=rounds[before_name], cited=citations: kept.append(
                    old.verify_citations(root, cited)
                )
            samples: dict[str, list[float]] = {name: [] for name in contenders}
            for _ in range(args.rounds):
                for name, func in contenders.items():
                    samples[name].append(cpu_with_children(func))
            cpu = {name: statistics.median(runs) for name, runs in samples.items()}
            cited_mb = sum((root / rel).stat().st_size for rel in cited) / 1e6
            print(f"\n{count} citations over {len(cited)} files ({cited_mb:.1f} MB cited)")
            print("statuses:", dict(Counter(r.status for r in results)))
            print(f"statuses and lines identical before and after the fix: {same}")
            if args.statuses:
                print(same_outcomes(args.statuses, str(count), results))
            if old is not None:
                # This code's outcomes in every round against that commit's in
                # the same round, and against its own first run.
                differ = [
                    sum(asdict(a) != asdict(b) for a, b in zip(mine, theirs, strict=True))
                    + sum(asdict(a) != asdict(b) for a, b in zip(mine, results, strict=True))
                    for mine, theirs in zip(rounds["verify_citations"], rounds[before_name], strict=True)
                ]
                print(
                    f"outcomes differing from {args.before}'s, field by field, in each of the "
                    f"{args.rounds} rounds: {differ} of {len(results)}"
                )
            print(f"median CPU of {args.rounds} rounds (ms)")
            for name in contenders:
                print(f"  {name:30s} {cpu[name] * 1000:9.1f}")
            yardstick = cpu["rg -F -n -f, one process"]
            for name in ("verify_citations", "verify, translate as before", *([before_name] if old else [])):
                print(
                    f"  {name:30s} {cpu[name] / yardstick:5.2f}x one rg -f, "
                    f"{cpu[name] / cpu['rg -F -n once per file']:5.2f}x rg per file"
                )
            ratio = cpu["verify_citations"] / yardstick
            print(f"#37 (<= 0.5x one rg -F -n -f, CPU): {ratio:.2f}x {'OK' if ratio <= 0.5 else 'OVER'}")


if __name__ == "__main__":
    main()
