"""PDF ingest as an upload runs it (``core.ingest.ingest_files``: the
original kept, the rendition and its locator map written, the staging folder
moved into place) against pypdfium2's bare text extraction of the same files
(issue #30: ≥ 0.5×, our work on top at most doubling it), on ≥ 50 MB of real
PDFs; and peak memory of one ingest as the document grows (it should stay flat).

    .venv/bin/python -m bench.perf.pdf_ingest [--mb 55] [--memory PDF …]

The corpus is ``bench/perf/pdf_corpus.py``'s (Debian's documentation PDFs,
`make bench-documents`). Bare extraction and our ingest alternate file by
file, so the machine's load falls on both alike; CPU time is the figure (wall
time is printed too). Memory: each ``--memory`` PDF (default: three of
growing size from the corpus) is ingested in a fresh process, whose peak RSS
less that of a process that only imported the same modules is its cost.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pypdfium2 as pdfium

from bench.perf.pdf_corpus import corpus
from core.ingest import Limits, ingest_files

LIMITS = Limits(max_total_bytes=10**9, max_pdf_pages=10_000)


def bare(path: Path) -> int:
    document = pdfium.PdfDocument(str(path))
    try:
        for index in range(len(document)):
            page = document[index]
            textpage = page.get_textpage()
            textpage.get_text_range()
            textpage.close()
            page.close()
        return len(document)
    finally:
        document.close()


def ours(path: Path, work: Path) -> str:
    sandbox = work / "sandbox"
    sandbox.mkdir(parents=True, exist_ok=True)
    dest = sandbox / f"item-{time.perf_counter_ns()}"
    with path.open("rb") as handle:
        result = ingest_files(
            dest,
            [(path.name, handle)],
            limits=LIMITS,
            staging_root=work / "staging",
            documents_dir=work / "documents" / dest.name,
        )
    return result.note


def timed(work) -> tuple[float, float, object]:
    cpu, wall = time.process_time(), time.perf_counter()
    value = work()
    return time.process_time() - cpu, time.perf_counter() - wall, value


def child(path: str | None) -> None:
    """In a fresh process: ingest ``path`` (or nothing) and print peak RSS in MB."""
    with tempfile.TemporaryDirectory() as tmp:
        pages = 0
        if path:
            pages = len(pdfium.PdfDocument(path))
            ours(Path(path), Path(tmp))
        peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(json.dumps({"peak_mb": peak_kb / 1024, "pages": pages}))


def peak(path: Path | None) -> dict:
    argv = [sys.executable, "-m", "bench.perf.pdf_ingest", "--child", str(path or "")]
    done = subprocess.run(argv, capture_output=True, text=True, check=True, cwd=Path(__file__).parents[2])
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=55, help="megabytes of PDFs")
    parser.add_argument("--memory", nargs="*", help="PDFs for the memory figure")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child(args.child or None)
        return
    with tempfile.TemporaryDirectory() as tmp:
        paths = corpus(Path(tmp), args.mb)
        megabytes = sum(p.stat().st_size for p in paths) / 1e6
        if megabytes < 50:
            print(f"Only {megabytes:.1f} MB of PDFs here: `make bench-documents` installs more.")
        totals = {"bare_cpu": 0.0, "bare_wall": 0.0, "ours_cpu": 0.0, "ours_wall": 0.0}
        pages, refused = 0, []
        for index, path in enumerate(paths):
            cpu, wall, count = timed(lambda path=path: bare(path))
            totals["bare_cpu"] += cpu
            totals["bare_wall"] += wall
            work = Path(tmp) / f"work-{index}"
            cpu, wall, note = timed(lambda path=path, work=work: ours(path, work))
            if note:
                refused.append(f"{path.name}: {note}")
            totals["ours_cpu"] += cpu
            totals["ours_wall"] += wall
            pages += count
        print(f"{len(paths)} PDFs, {pages:,} pages, {megabytes:.1f} MB; load {os.getloadavg()[0]:.1f}")
        for note in refused:
            print("  note:", note[:200])
        for clock in ("cpu", "wall"):
            bare_s, ours_s = totals[f"bare_{clock}"], totals[f"ours_{clock}"]
            print(
                f"{clock:4}: bare pdfium text {bare_s:7.1f} s ({pages / bare_s:5.0f} pages/s, "
                f"{megabytes / bare_s:5.2f} MB/s); ingest {ours_s:7.1f} s ({pages / ours_s:5.0f} pages/s, "
                f"{megabytes / ours_s:5.2f} MB/s); ratio {bare_s / ours_s:.2f}x (target >= 0.5x)"
            )
        chosen = (
            [Path(p) for p in args.memory] if args.memory else sorted(paths, key=lambda p: p.stat().st_size)
        )
        if not args.memory:
            by_pages = sorted(chosen, key=lambda p: len(pdfium.PdfDocument(str(p))))
            chosen = [by_pages[len(by_pages) // 4], by_pages[len(by_pages) // 2], by_pages[-1]]
        base = peak(None)["peak_mb"]
        print(f"peak RSS of a process that only imported the modules: {base:.0f} MB")
        for path in chosen:
            figure = peak(path)
            print(
                f"  {figure['pages']:5} pages, {path.stat().st_size / 1e6:5.1f} MB: "
                f"peak RSS +{figure['peak_mb'] - base:6.1f} MB  ({path.name})"
            )


if __name__ == "__main__":
    main()
