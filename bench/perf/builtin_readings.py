"""What storing the built-in engine's chunk readings would buy (issue #37).

A chunk's reading (``reading.chunk_reading``: its passages, their words, the
words around them) depends on the chunk alone, so it could be worked out once
and stored instead of being worked out by every question that ranks the chunk.
This bench measures both ways of storing it, on ``bench.perf.text_corpus`` cut at
``--mb`` MB and the development set's questions (``bench/quality/sets``), with a
compact serialisation (``encode``/``decode`` below: JSON, each token set as
indices into the chunk's own vocabulary, so loading runs no code from the file):

- at index time: the CPU of reading and encoding every chunk of the index,
  beside the CPU of building that index from scratch in the same run;
- on first read: the CPU of encoding and inserting, in one transaction, the
  chunks a question reads into a side table of (a copy of) the index, and of
  fetching them again;
- what a stored reading saves: ``rank_passages`` alone on each question's
  candidates with no chunk read before (readings and kept tokens forgotten)
  against the same with every reading decoded from its stored form (its fetch
  not counted: a lower bound), alternating question by question, CPU, and
  their claims compared field by field.

    .venv/bin/python -m bench.perf.builtin_readings [--mb 10] [--questions 40] [--rounds 3]
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import re
import shutil
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

import core.engines.builtin.reading as reading_module
from bench.perf.builtin_answers import prepared_candidates, real_sandbox
from bench.quality.builtin_set import CASES
from core.engines.builtin import build_index
from core.engines.builtin.claims import MAX_SCAN_CHARS
from core.engines.builtin.index import index_path
from core.engines.builtin.passages import Passage
from core.engines.builtin.rank import rank_passages
from core.engines.builtin.reading import ChunkReading, PassageReading, chunk_reading
from core.engines.builtin.search import BEFORE_LINES, Hit
from core.engines.builtin.tokens import Tokens, tokens_of

_NEWLINE = re.compile("\n")


def encode(reading: ChunkReading) -> bytes:
    """A chunk's reading as JSON: its vocabulary, its token sets (shared ones once, each
    marked ``Tokens`` or a plain frozenset), its passages' fields; the text is the chunk's."""
    vocabulary: dict[str, int] = {}
    sets: list[list] = []
    numbered: dict[int, int] = {}

    def token_set(tokens: frozenset[str]) -> int:
        n = numbered.get(id(tokens))
        if n is None:
            n = numbered[id(tokens)] = len(sets)
            kind = 0 if isinstance(tokens, Tokens) else 1
            sets.append([kind, *(vocabulary.setdefault(w, len(vocabulary)) for w in tokens)])
        return n

    def passage(p: Passage) -> list:
        return [p.start, p.end, int(p.code), p.language, *p.unit, *p.owner]

    rows = [
        [
            *passage(r.passage),
            token_set(r.tokens),
            [token_set(part) for part in r.context],
            None if r.follow is None else [r.follow[0], *passage(r.follow[1])],
            token_set(r.antecedent),
            r.label,
            r.defines,
            token_set(r.entry),
            r.entry_term,
        ]
        for r in reading.passages
    ]
    path_tokens = token_set(reading.path_tokens)
    return json.dumps(
        [list(vocabulary), sets, path_tokens, sorted(reading.heading_words), rows],
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode()


def decode(blob: bytes, text: str) -> ChunkReading:
    """The reading ``encode`` stored for the chunk whose text is ``text``."""
    vocabulary, sets, path_tokens, heading_words, rows = json.loads(blob)
    word = vocabulary.__getitem__
    made = [(Tokens if s[0] == 0 else frozenset)(map(word, s[1:])) for s in sets]
    text = text[:MAX_SCAN_CHARS]

    def passage(a, b, code, language, u0, u1, o0, o1) -> Passage:
        return Passage(a, b, bool(code), language, (u0, u1), (o0, o1))

    read = [
        PassageReading(
            passage(*row[:8]),
            text[row[0] : row[1]],
            made[row[8]],
            tuple(made[part] for part in row[9]),
            None if row[10] is None else (row[10][0], passage(*row[10][1:])),
            made[row[11]],
            row[12],
            row[13],
            made[row[14]],
            row[15],
        )
        for row in rows
    ]
    newlines = [m.start() for m in _NEWLINE.finditer(text)]
    return ChunkReading(text, newlines, made[path_tokens], frozenset(heading_words), tuple(read))


def _fields(claims) -> list[tuple]:
    return [tuple(getattr(c, f.name) for f in dataclasses.fields(c) if f.name != "source") for c in claims]


def _key(hit: Hit) -> tuple[str, str, str | None, str]:
    return (hit.path, hit.text, hit.heading, hit.before)


def time_index_time(root: Path, work: Path) -> None:
    """Building the index from scratch, then reading and encoding every chunk of it, CPU."""
    state = work / "index-time-state"
    shutil.rmtree(state, ignore_errors=True)
    started = time.process_time()
    stats = build_index(root, state=state)
    built = time.process_time() - started
    conn = sqlite3.connect(index_path(root, state))
    rows = conn.execute(
        """SELECT c.file_id, f.path, c.heading, substr(m.text, c.prefix + 1)
        FROM chunks c JOIN chunks_fts m ON m.rowid = c.id JOIN files f ON f.id = c.file_id ORDER BY c.id"""
    ).fetchall()
    conn.close()
    started = time.process_time()
    size = 0
    for n, (file_id, path, heading, text) in enumerate(rows):
        before = ""
        if n and rows[n - 1][0] == file_id:  # the end of the chunk before, as ``search`` hands it over
            before = "\n".join(rows[n - 1][3][-4000:].split("\n")[-BEFORE_LINES:])
        size += len(encode(chunk_reading.__wrapped__(path, text, heading, before)))
    reading = time.process_time() - started
    mb = stats.bytes_indexed / 1e6
    print(
        f"at index time: building the index of {mb:.1f} MB ({len(rows)} chunks) {built:.2f} s CPU "
        f"({mb / built:.1f} MB/s); reading and encoding every chunk {reading:.2f} s CPU more "
        f"({reading / built:.1f}x the build: {mb / (built + reading):.1f} MB/s with it); stored "
        f"{size / 1e6:.1f} MB; load {os.getloadavg()[0]:.1f}"
    )
    shutil.rmtree(state, ignore_errors=True)


def time_first_read(state: Path, work: Path, prepared: list[tuple]) -> None:
    """Encoding and inserting each question's chunks into a side table, and fetching them, CPU."""
    copy = work / "readings.sqlite3"
    shutil.copy(index_path(state.parent, state), copy)
    conn = sqlite3.connect(copy, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("CREATE TABLE readings(digest BLOB PRIMARY KEY, reading BLOB NOT NULL) WITHOUT ROWID")
    written, fetched = [], []
    for _, hits in prepared:
        readings = [(hit, chunk_reading.__wrapped__(*_key(hit))) for hit in hits]
        started = time.process_time()
        rows = [
            (
                hashlib.blake2b(
                    "\0".join((h.path, h.heading or "", h.before, h.text)).encode(), digest_size=16
                ).digest(),
                encode(r),
            )
            for h, r in readings
        ]
        conn.execute("BEGIN")
        conn.executemany("INSERT OR REPLACE INTO readings VALUES (?, ?)", rows)
        conn.execute("COMMIT")
        written.append(time.process_time() - started)
        digests = [d for d, _ in rows]
        started = time.process_time()
        conn.execute(
            f"SELECT digest, reading FROM readings WHERE digest IN ({','.join('?' * len(digests))})",
            digests,
        ).fetchall()
        fetched.append(time.process_time() - started)
    conn.close()
    med = statistics.median
    print(
        f"on first read: encoding and inserting a question's chunks p50 {med(written) * 1000:.1f} ms CPU "
        f"(~{med(len(h) for _, h in prepared):.0f} chunks); fetching them {med(fetched) * 1000:.2f} ms; "
        f"load {os.getloadavg()[0]:.1f}"
    )


def time_stored_ranking(prepared: list[tuple], rounds: int) -> None:
    """``rank_passages`` with no chunk read before against the same with every reading
    decoded from its stored form, alternating, claims compared; and per chunk, reading vs decoding."""
    stored = {}
    for _, hits in prepared:
        for hit in hits:
            stored[_key(hit)] = encode(chunk_reading.__wrapped__(*_key(hit)))

    def from_stored(path: str, text: str, heading: str | None, before: str) -> ChunkReading:
        return decode(stored[path, text, heading, before], text)

    fresh, same = [], True
    loaded = []
    try:
        for _ in range(rounds):
            for q, hits in prepared:
                reading_module.chunk_reading = chunk_reading
                chunk_reading.cache_clear()
                tokens_of.cache_clear()
                started = time.process_time()
                read = rank_passages(q, hits)
                fresh.append(time.process_time() - started)
                reading_module.chunk_reading = from_stored
                tokens_of.cache_clear()
                started = time.process_time()
                decoded = rank_passages(q, hits)
                loaded.append(time.process_time() - started)
                same = same and _fields(read) == _fields(decoded)
    finally:
        reading_module.chunk_reading = chunk_reading
    keys = list(stored)
    tokens_of.cache_clear()
    started = time.process_time()
    readings = [chunk_reading.__wrapped__(*key) for key in keys]
    read_each = (time.process_time() - started) / len(keys)
    started = time.process_time()
    decoded_all = [decode(stored[key], key[1]) for key in keys]
    decode_each = (time.process_time() - started) / len(keys)
    med = statistics.median
    print(
        f"a stored reading: ranking alone ({len(prepared)} questions x {rounds} rounds, CPU p50) with no chunk "
        f"read before {med(fresh) * 1000:.1f} ms, every reading decoded from storage {med(loaded) * 1000:.1f} ms "
        f"({med(loaded) / med(fresh):.2f}x); claims identical: {same}; per chunk ({len(keys)}): reading "
        f"{read_each * 1000:.3f} ms, decoding {decode_each * 1000:.3f} ms, equal readings: "
        f"{readings == decoded_all}; load {os.getloadavg()[0]:.1f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mb", type=int, default=10)
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-builtin-readings-"))
    try:
        root, state, size = real_sandbox(work, args.mb)
        prepared = prepared_candidates(root, state, [case.question for case in CASES][: args.questions])
        print(
            f"real text {size:.1f} MB, {len(prepared)} question parts, {time.strftime('%H:%M UTC', time.gmtime())}"
        )
        time_stored_ranking(prepared, args.rounds)
        time_first_read(state, work, prepared)
        time_index_time(root, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
