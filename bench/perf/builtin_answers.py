"""The built-in engine's answers on real text, beside the yardsticks a user has
(``bench.perf.builtin_engine --real``; see its docstring).

Per size: the sandbox is ``bench.perf.text_corpus`` cut at that many MB and
indexed; each question of the development set is answered end to end
(``run_builtin``), then its raw FTS5 query (the words' BM25 top 40 on the same
index) and ``rg -i -F -c`` with the question's words over the whole sandbox
are run, one after the other, so the machine's load touches all three alike.
Wall time is what a user waits; CPU time (``rg``'s counted from its children)
what each costs.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import core.engines
from bench.perf import text_corpus
from bench.quality.builtin_set import CASES
from core.engines.builtin import build_index, run_builtin
from core.engines.builtin import stream as engine_stream
from core.engines.builtin.index import index_path
from core.engines.builtin.query import fts_query, question_terms
from core.engines.builtin.question import analyze, parts_of
from core.engines.builtin.rank import rank_passages
from core.engines.builtin.reading import chunk_reading
from core.engines.builtin.search import candidates, learned_words, start_ranked
from core.engines.builtin.tokens import tokens_of
from core.sandbox import write_instructions, write_manifest

REPOSITORY = Path(__file__).resolve().parents[2]


def p95(values: list[float]) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def real_sandbox(work: Path, megabytes: int) -> tuple[Path, Path, float]:
    """``text_corpus`` cut at ``megabytes`` in ``work``, its manifest, and its index built."""
    root, state = work / f"real-{megabytes}", work / f"real-{megabytes}-state"
    files = text_corpus.build(root, megabytes)
    items = {
        folder.name: {"title": folder.name, "source_url": "", "kind": "file", "added_at": "2026"}
        for folder in root.iterdir()
        if folder.is_dir()
    }
    write_manifest(root, items)
    write_instructions(root, items)
    build_index(root, state=state)
    return root, state, sum((root / rel).stat().st_size for rel in files) / 1e6


def raw_query(state: Path, question: str) -> float:
    """The bare FTS5 BM25 query for the question's terms (top 40 chunks) on the same index."""
    started = time.perf_counter()
    conn = sqlite3.connect(index_path(state.parent, state))
    conn.execute(
        "SELECT rowid, bm25(chunks_fts) AS s FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY s LIMIT 40",
        (fts_query(question_terms(question)),),
    ).fetchall()
    conn.close()
    return time.perf_counter() - started


def rg_scan(root: Path, question: str) -> tuple[float, float]:
    """``rg -i -F -c`` with each of the question's words over the whole sandbox: wall and CPU seconds."""
    args = ["rg", "-i", "-F", "-c"]
    for term in question_terms(question) or ["?"]:
        args += ["-e", term]
    cpu, started = children_cpu(), time.perf_counter()
    subprocess.run([*args, str(root)], stdout=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started, children_cpu() - cpu


def answer(root: Path, state: Path, question: str) -> tuple[float, float]:
    cpu, started = time.process_time(), time.perf_counter()
    for _ in run_builtin(root, question, state=state):
        pass
    return time.perf_counter() - started, time.process_time() - cpu


def time_answers(root: Path, state: Path, size: float, questions: list[str]) -> None:
    answer(root, state, "warm up the page cache")
    rg_scan(root, "warm up the page cache")
    rows = [(*answer(root, state, q), raw_query(state, q), *rg_scan(root, q)) for q in questions]
    wall, cpu, raw, rg_wall, rg_cpu = ([row[i] * 1000 for row in rows] for i in range(5))
    med = statistics.median
    print(
        f"real text {size:.1f} MB, {len(rows)} questions: answer p50 {med(wall):.0f} ms, p95 {p95(wall):.0f} ms "
        f"(CPU p50 {med(cpu):.0f} ms); raw FTS5 query p50 {med(raw):.1f} ms, p95 {p95(raw):.1f} ms; "
        f"rg -i -F -c p50 {med(rg_wall):.0f} ms (CPU {med(rg_cpu):.0f} ms); load {os.getloadavg()[0]:.1f}"
    )
    print(
        f"  answer p50 / rg p50 = {med(wall) / med(rg_wall):.2f} (target <= 1 at 10 MB); "
        f"answer p50 / raw p50 = {med(wall) / med(raw):.1f}, p95 / p95 = {p95(wall) / p95(raw):.1f} "
        f"(target <= 3 at 100 MB)"
    )


def earlier_rank(commit: str, folder: Path):
    """The ranking module of ``commit``: its engine package, exported to ``folder``,
    imported as ``core.engines.builtin_before`` (its ``..`` imports are today's)."""
    archive = subprocess.run(
        ["git", "archive", commit, "core/engines/builtin"], capture_output=True, check=True, cwd=REPOSITORY
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    (folder / "core/engines/builtin").rename(folder / "core/engines/builtin_before")
    core.engines.__path__.append(str(folder / "core/engines"))
    return importlib.import_module("core.engines.builtin_before.rank")


def _fields(claims) -> list[tuple]:
    return [tuple(getattr(c, f.name) for f in dataclasses.fields(c) if f.name != "source") for c in claims]


def prepared_candidates(root: Path, state: Path, questions: list[str]) -> list[tuple]:
    """Each question part with the candidates the engine ranks for it, searched as it searches."""
    prepared = []
    for text in questions:
        for part in parts_of(text):
            q = analyze(part)
            ranked = start_ranked(root, q, engine_stream.CANDIDATES, state=state)
            q = learned_words(root, q, state)
            follow = engine_stream.FOLLOW_LINES if q.kind == "howto" else 0
            hits = candidates(
                root, q, engine_stream.CANDIDATES, state=state, follow_lines=follow, ranked=ranked
            )
            prepared.append((q, hits))
    return prepared


def time_ranking(root: Path, state: Path, questions: list[str], before, rounds: int) -> None:
    """``rank_passages`` alone on each question's candidates, now and at the earlier commit,
    alternating: as a run reads them (chunks kept from the questions before it in the
    round), and both with no chunk read before (cold: the fixed cost of each)."""
    prepared = prepared_candidates(root, state, questions)
    same = all(
        _fields(before.rank_passages(q, hits)) == _fields(rank_passages(q, hits)) for q, hits in prepared
    )
    old, cold, kept, old_cold = [], [], [], []
    before_reading = importlib.import_module(before.__name__.rsplit(".", 1)[0] + ".reading")
    for _ in range(rounds):
        chunk_reading.cache_clear()
        before_reading.chunk_reading.cache_clear()
        for q, hits in prepared:
            started = time.process_time()
            before.rank_passages(q, hits)
            old.append(time.process_time() - started)
            started = time.process_time()
            rank_passages(q, hits)
            kept.append(time.process_time() - started)
        # both with no chunk read before, alternating: the fixed cost of each
        for q, hits in prepared:
            before_reading.chunk_reading.cache_clear()
            started = time.process_time()
            before.rank_passages(q, hits)
            old_cold.append(time.process_time() - started)
            chunk_reading.cache_clear()
            tokens_of.cache_clear()  # the texts whose tokens are kept, read again too
            started = time.process_time()
            rank_passages(q, hits)
            cold.append(time.process_time() - started)
    med = statistics.median
    print(
        f"  ranking alone ({len(prepared)} questions x {rounds} rounds, CPU p50): before {med(old) * 1000:.1f} ms; "
        f"now, chunks kept across the run {med(kept) * 1000:.1f} ms ({med(kept) / med(old):.2f}x); "
        f"no chunk read before: before {med(old_cold) * 1000:.1f} ms, now {med(cold) * 1000:.1f} ms "
        f"({med(cold) / med(old_cold):.2f}x); claims identical to before: {same}"
    )


def time_answers_against(root: Path, state: Path, questions: list[str], before) -> None:
    """Whole answers (``run_builtin`` to its result) of the earlier commit's engine and
    today's, question by question in one process, each going first every other
    question (the second finds SQLite's pages warm) and, in the second round, on
    the questions it went second on in the first (with an even number of questions
    each question kept its order in both rounds, so a question's own cost counted
    once more on one side: main against itself read 0.93x), their result texts compared."""
    earlier = importlib.import_module(before.__name__.rsplit(".", 1)[0] + ".stream").run_builtin

    def one(run, question: str) -> tuple[float, float, str]:
        cpu, started = time.process_time(), time.perf_counter()
        for line in run(root, question, state=state):
            last = line
        return time.perf_counter() - started, time.process_time() - cpu, json.loads(last).get("result") or ""

    old, new = [], []
    same = True
    for n, question in enumerate(questions * 2):
        if (n + n // len(questions)) % 2:
            a, b = one(earlier, question), one(run_builtin, question)
        else:
            b, a = one(run_builtin, question), one(earlier, question)
        old.append(a)
        new.append(b)
        same = same and a[2] == b[2]
    med = statistics.median
    wall, cpu = (
        (med(x[0] for x in old), med(x[0] for x in new)),
        (med(x[1] for x in old), med(x[1] for x in new)),
    )
    print(
        f"  whole answers ({len(questions)} questions x 2, alternating): before p50 {wall[0] * 1000:.0f} ms "
        f"(CPU {cpu[0] * 1000:.0f}), now {wall[1] * 1000:.0f} ms (CPU {cpu[1] * 1000:.0f}): "
        f"{wall[1] / wall[0]:.2f}x wall, {cpu[1] / cpu[0]:.2f}x CPU; results identical to before: {same}"
    )


def main(sizes: list[int], count: int, before_commit: str | None, rounds: int = 3) -> int:
    if shutil.which("rg") is None:
        print("ripgrep is not installed (make bench-ripgrep)")
        return 1
    questions = [case.question for case in CASES][:count]
    work = Path(tempfile.mkdtemp(prefix="bench-builtin-real-"))
    try:
        before = earlier_rank(before_commit, work) if before_commit else None
        for megabytes in sizes:
            root, state, size = real_sandbox(work, megabytes)
            time_answers(root, state, size, questions)
            if before is not None:
                time_ranking(root, state, questions, before, rounds)
                time_answers_against(root, state, questions, before)
            shutil.rmtree(root, ignore_errors=True)
            shutil.rmtree(state, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0
