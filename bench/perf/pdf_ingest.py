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
growing size from the corpus) is ingested in a fresh process; its cost is how
far the process's peak RSS rises above its RSS just before (the peak is reset first),
beside the same figure for pdfium's bare text extraction of that PDF (pdfium's
own document state, which any reader of the PDF pays): our work on top of it
should stay flat.
"""

from __future__ import annotations

import argparse
import json
import os
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


def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def child(path: str, *, baseline: bool) -> None:
    """In a fresh process: ingest ``path`` (or, the baseline, only extract its
    text with pdfium); print how far its resident memory rose above what it
    held just before (Linux: the peak is reset first)."""
    with tempfile.TemporaryDirectory() as tmp:
        pages = len(pdfium.PdfDocument(path))
        Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM, the peak RSS, to the current RSS
        before = _status_kb("VmRSS")
        if baseline:
            bare(Path(path))
        else:
            ours(Path(path), Path(tmp))
        print(json.dumps({"extra_mb": (_status_kb("VmHWM") - before) / 1024, "pages": pages}))


def peak(path: Path, *, baseline: bool = False) -> dict:
    argv = [
        sys.executable,
        "-m",
        "bench.perf.pdf_ingest",
        "--child-bare" if baseline else "--child",
        str(path),
    ]
    done = subprocess.run(argv, capture_output=True, text=True, check=True, cwd=Path(__file__).parents[2])
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=55, help="megabytes of PDFs")
    parser.add_argument("--memory", nargs="*", help="PDFs for the memory figure")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--child-bare", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child or args.child_bare:
        child(args.child or args.child_bare, baseline=bool(args.child_bare))
        return
    with tempfile.TemporaryDirectory() as tmp:
        paths = corpus(Path(tmp), args.mb)
        megabytes = sum(p.stat().st_size for p in paths) / 1e6
        if megabytes < 50:
            print(f"Only {megabytes:.1f} MB of PDFs here: `make bench-documents` installs more.")
        totals = {"bare_cpu": 0.0, "bare_wall": 0.0, "ours_cpu": 0.0, "ours_wall": 0.0}
        pages, refused, failed = 0, [], []
        for index, path in enumerate(paths):
            bare_cpu, bare_wall, count = timed(lambda path=path: bare(path))
            work = Path(tmp) / f"work-{index}"
            try:
                cpu, wall, note = timed(lambda path=path, work=work: ours(path, work))
            except Exception as exc:  # a bug to report: the file is left out of both sides
                failed.append(f"{path}: {exc.__class__.__name__}: {exc}")
                megabytes -= path.stat().st_size / 1e6
                continue
            if note:
                refused.append(f"{path.name}: {note}")
            totals["bare_cpu"] += bare_cpu
            totals["bare_wall"] += bare_wall
            totals["ours_cpu"] += cpu
            totals["ours_wall"] += wall
            pages += count
        print(
            f"{len(paths) - len(failed)} PDFs, {pages:,} pages, {megabytes:.1f} MB; load {os.getloadavg()[0]:.1f}"
        )
        for note in refused:
            print("  note:", note[:200])
        for error in failed:
            print("  FAILED, left out:", error[:300])
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
        print("peak RSS of one ingest above the process's RSS just before it (baseline: pdfium's bare text):")
        for path in chosen:
            figure, baseline = peak(path), peak(path, baseline=True)
            print(
                f"  {figure['pages']:5} pages, {path.stat().st_size / 1e6:5.1f} MB: "
                f"+{figure['extra_mb']:6.1f} MB, bare pdfium +{baseline['extra_mb']:6.1f} MB, "
                f"ours above it {figure['extra_mb'] - baseline['extra_mb']:+6.1f} MB  ({path.name})"
            )


if __name__ == "__main__":
    main()
