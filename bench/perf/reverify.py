"""Re-verifying citations of unchanged files from their line index, vs just
reading the cited files (issue #15: ≤ 2 × reading them).

The sandbox and the 1,000 citations are ``bench.perf.verify``'s (~50 MB of Markdown,
a realistic mix: most in place, some relocated, some without lines, some
wrong). Timed in this process on warm page cache, in interleaved rounds,
median round, wall and CPU time (``time.process_time``):

- reading the cited files (bytes), and reading + SHA-256;
- ``verify_citations`` without an index (what every run cost before);
- the first run with an index (verifies and starts each file's index:
  stat, hash and search answers, in a fresh state folder each round);
- the first re-run on that folder (reads each file once, unhashed, to count
  its lines into the index);
- a re-run after every file was touched (same bytes, new ctime): each index
  is suspicious, so each file is hashed once and the index kept;
- re-runs from trusted indexes (same size, mtime and ctime, past the racy
  margin): the steady state of re-verification, where every citation is
  answered from what its file's index kept (in its cited lines, or what a
  search found), no range read and no excerpt prepared;
- the same, but the excerpts verified in their cited lines are new to the
  indexes (the same text with trailing spaces never cited before, a new
  variant each round): each is prepared and its cited range read by offset;
- the same citations without their excerpts, from trusted indexes: what
  resolving the paths, opening each file and its index and judging cost
  before any excerpt is prepared or looked at (the floor under a re-run);
- ``rg -F -n`` searching the same excerpts, for the ``≤ 0.5 × rg`` bar of
  plain verification (skipped when ``rg`` is not installed).

Every run's results are checked identical to the plain run's.

``--before <commit>`` also times, in the same interleaved rounds, the
trusted re-run of the verification package as it was at that commit
(extracted with ``git archive`` and imported under another name), so a
change is measured against what it replaced on the same machine and load.

Run: ``.venv/bin/python -m bench.perf.reverify [--mb 50] [--citations 1000] [--rounds 7] [--before <commit>]``
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import io
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench.perf.verify import build, make_citations, read_and_hash, read_cited, ripgrep, timed
from core.citations.verification import lineindex, linestore, verify_citations


def touch(root: Path, rels: list[str]) -> None:
    """Set each file's times to what they are: the bytes and mtime stay,
    the ctime moves on, so every index becomes suspicious."""
    for rel in rels:
        stat = (root / rel).stat()
        os.utime(root / rel, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def package_at(commit: str, into: Path):
    """``core.citations.verification`` as it was at ``commit``, importable as
    ``verification_before`` (its own imports renamed; the rest of the
    project is today's)."""
    repo = Path(__file__).resolve().parents[2]
    archive = subprocess.run(
        ["git", "-C", str(repo), "archive", commit, "core/citations/verification"],
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    package = into / "verification_before"
    (into / "core" / "citations" / "verification").rename(package)
    for module in package.rglob("*.py"):
        module.write_text(module.read_text().replace("core.citations.verification", "verification_before"))
    spec = importlib.util.spec_from_file_location(
        "verification_before", package / "__init__.py", submodule_search_locations=[str(package)]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["verification_before"] = module
    spec.loader.exec_module(module)
    return module


def same(results: list, plain: list) -> bool:
    """Equal field by field (another package's Verification is another class)."""
    return [dataclasses.astuple(r) for r in results] == [dataclasses.astuple(p) for p in plain]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--citations", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--before", help="also time the trusted re-run of this commit's verifier")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root, states = Path(tmp) / "sandbox", Path(tmp) / "state"
        root.mkdir()
        files = build(root, args.mb)
        citations = make_citations(files, args.citations)
        rels = list(dict.fromkeys(c.source_path for c in citations))
        # A copy of the sandbox for the touched runs: touching the files of
        # the trusted runs would make their indexes suspicious too.
        twin = Path(tmp) / "twin"
        shutil.copytree(root, twin)
        size = read_cited(root, citations) + read_cited(twin, citations)  # warms the page cache
        size //= 2
        plain = verify_citations(root, citations)
        steady, touched = states / "steady", states / "touched"
        verify_citations(root, citations, state=steady)
        verify_citations(twin, citations, state=touched)
        # Past the racy margin, then hash-checked once: trusted from now on.
        time.sleep(lineindex.RACY_NS / 1e9 + 0.2)
        verify_citations(root, citations, state=steady)
        fresh = iter(range(10**6))
        outputs: dict[str, list] = {}

        def run(name: str, **kwargs):
            return lambda: outputs.setdefault(name, []).append(verify_citations(root, citations, **kwargs))

        latest: list[Path] = []

        def first_run():
            latest.append(states / f"fresh{next(fresh)}")
            outputs.setdefault("first run (indexing)", []).append(
                verify_citations(root, citations, state=latest[-1])
            )

        def first_rerun():
            outputs.setdefault("first re-run (counting)", []).append(
                verify_citations(root, citations, state=latest[-1])
            )

        def touched_run():
            outputs.setdefault("re-run after touch", []).append(
                verify_citations(twin, citations, state=touched)
            )

        bare = [dataclasses.replace(c, excerpt=None) for c in citations]
        verify_citations(root, bare, state=steady)
        before_name = f"re-run (trusted), {args.before}"
        if args.before:
            old = package_at(args.before, Path(tmp) / "before")
            verify_old = old.verify_citations
            old_state = states / "before"
            verify_old(root, citations, state=old_state)
            time.sleep(lineindex.RACY_NS / 1e9 + 0.2)
            verify_old(root, citations, state=old_state)
        # Excerpts in their cited lines, cited in a way the index has not seen:
        # the same text (so the same results) with trailing spaces.
        ranges_state = states / "ranges"
        shutil.copytree(steady, ranges_state)
        in_place = [
            r.status == "verified" and c.line_start is not None for c, r in zip(citations, plain, strict=True)
        ]
        # Made before the rounds, so the timing holds none of it.
        variants = iter(
            [
                [
                    dataclasses.replace(c, excerpt=c.excerpt + " " * k) if new else c
                    for c, new in zip(citations, in_place, strict=True)
                ]
                for k in range(1, args.rounds + 1)
            ]
        )

        def ranges_run():
            outputs.setdefault("re-run, ranges read", []).append(
                verify_citations(root, next(variants), state=ranges_state)
            )

        contenders = {
            "read cited files (bytes)": lambda: read_cited(root, citations),
            "read + SHA-256": lambda: read_and_hash(root, citations),
            "verify, no index": run("verify, no index"),
            "first run (indexing)": first_run,
            "first re-run (counting)": first_rerun,
            "re-run after touch": touched_run,
            "re-run (trusted index)": run("re-run (trusted index)", state=steady),
            "same, no excerpts (floor)": lambda: verify_citations(root, bare, state=steady),
            "re-run, ranges read": ranges_run,
        }
        if args.before:
            contenders[before_name] = lambda: outputs.setdefault(before_name, []).append(
                verify_old(root, citations, state=old_state)
            )
        if shutil.which("rg"):
            contenders["rg -F -n (same excerpts)"] = lambda: ripgrep(root, citations)
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in contenders}
        for _ in range(args.rounds):
            touch(twin, rels)
            for name, func in contenders.items():
                samples[name].append(timed(func))
        index_bytes = sum(p.stat().st_size for p in (steady / linestore.FOLDER).rglob("*.idx"))
    identical = all(same(result, plain) for runs in outputs.values() for result in runs)
    wall = {name: statistics.median(w for w, _ in runs) for name, runs in samples.items()}
    cpu = {name: statistics.median(c for _, c in runs) for name, runs in samples.items()}
    print(f"sandbox: {len(files)} files, {size / 1e6:.1f} MB cited, {len(citations)} citations")
    print("statuses:", dict(Counter(r.status for r in plain)))
    print(
        f"index: {index_bytes / 1e6:.2f} MB for {len(rels)} files; every run identical to plain: {identical}"
    )
    print(f"load average (1, 5, 15 min): {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"median of {args.rounds} rounds      wall ms    CPU ms")
    for name in contenders:
        print(f"{name:26s} {wall[name] * 1000:9.1f} {cpu[name] * 1000:9.1f}")
    read = "read cited files (bytes)"
    for name in list(contenders)[2:9]:
        print(
            f"{name:24s} vs reading: wall {wall[name] / wall[read]:6.2f}x  CPU {cpu[name] / cpu[read]:6.2f}x"
            f"   vs read + SHA-256: wall {wall[name] / wall['read + SHA-256']:5.2f}x"
        )
    trusted = "re-run (trusted index)"
    ratio = wall[trusted] / wall[read]
    print(f"#15 re-verify (<= 2x reading the files, wall): {ratio:.2f}x {'OK' if ratio <= 2 else 'OVER'}")
    ratio = cpu[trusted] / cpu[read]
    print(f"    the same in CPU time: {ratio:.2f}x {'OK' if ratio <= 2 else 'OVER'}")
    if args.before:
        print(
            f"    before ({args.before}): wall {wall[before_name] / wall[read]:.2f}x"
            f"  CPU {cpu[before_name] / cpu[read]:.2f}x reading"
        )
    rg = "rg -F -n (same excerpts)"
    if rg in wall:
        ratio = wall["verify, no index"] / wall[rg]
        print(f"#15 verify (<= 0.5x rg -F -n, wall): {ratio:.2f}x {'OK' if ratio <= 0.5 else 'OVER'}")
        ratio = wall["first run (indexing)"] / wall[rg]
        print(f"    first run with indexing vs rg -F -n (wall): {ratio:.2f}x")


if __name__ == "__main__":
    main()
