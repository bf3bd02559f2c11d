"""What replacing the server's folders costs a streamed answer
(``core/redact.py``, issue #35 item 12).

    .venv/bin/python -m bench.perf.redaction [--repeat 5]

Real text (Debian documentation under /usr/share/doc, up to 2 MB) with the
run's folders (a sandbox root, a state folder, a scratch home) written into it
every few hundred characters, cut into text deltas of 5 to 40 characters as a
model streams them. Baseline: what the recorder already does with each delta
(``clean_text`` and joining the stream). Measured: the same plus
``Redactor.split_tail`` (held-back tails joined to the next delta), and the
whole-answer ``Redactor.text``. Correct when the redacted stream, joined,
equals the joined text redacted at once. Median of ``--repeat``, as ratios to
the baseline measured in the same run."""

from __future__ import annotations

import argparse
import gzip
import random
import statistics
import time
from pathlib import Path

from core.redact import run_redactor
from core.stream.events import clean_text

DOCS = Path("/usr/share/doc")
SANDBOX = "/srv/researchmind/sandboxes/0f92d99c-573c-491f-8d34-497528f3c0cc"
STATE = "/srv/researchmind/state/0f92d99c-573c-491f-8d34-497528f3c0cc"
SCRATCH = f"{STATE}/runs/41.scratch"
LIMIT = 2_000_000


def corpus() -> str:
    parts, size = [], 0
    for path in sorted(DOCS.rglob("*")):
        if size >= LIMIT or not path.is_file():
            continue
        try:
            data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        except (OSError, EOFError, gzip.BadGzipFile):
            continue
        text = data.decode("utf-8", "replace")
        parts.append(text)
        size += len(text)
    rng = random.Random(0)
    text = "".join(parts)[:LIMIT]
    pieces, at = [], 0
    while at < len(text):
        step = rng.randint(200, 800)
        root = rng.choice([SANDBOX, STATE, SCRATCH])
        pieces += [text[at : at + step], f" {root}/item/notes.md "]
        at += step
    return "".join(pieces)


def deltas(text: str) -> list[str]:
    rng = random.Random(1)
    out, at = [], 0
    while at < len(text):
        step = rng.randint(5, 40)
        out.append(text[at : at + step])
        at += step
    return out


def baseline(pieces: list[str]) -> str:
    return "".join(clean_text(piece) for piece in pieces)


def streamed(pieces: list[str], redactor) -> str:
    shown, held = [], ""
    for piece in pieces:
        part, held = redactor.split_tail(held + clean_text(piece))
        shown.append(part)
    shown.append(redactor.text(held))
    return "".join(shown)


def median_time(function, *args, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    text = corpus()
    pieces = deltas(text)
    redactor = run_redactor(SANDBOX, STATE, SCRATCH)
    expected = redactor.text(clean_text(text))
    got = streamed(pieces, redactor)
    assert got == expected, "the streamed redaction differs from redacting the whole text"
    assert SANDBOX not in got and STATE not in got
    base = median_time(baseline, pieces, repeat=args.repeat)
    stream = median_time(streamed, pieces, redactor, repeat=args.repeat)
    whole = median_time(redactor.text, text, repeat=args.repeat)
    print(f"text: {len(text):,} characters, {len(pieces):,} deltas, {text.count(SANDBOX):,} sandbox roots")
    print("correct: the streamed redaction equals the whole text redacted")
    print(f"baseline (clean_text per delta, joined): {base * 1000:.1f} ms")
    print(f"with split_tail per delta: {stream / base:.2f} x baseline")
    print(f"whole answer redacted once: {whole / base:.3f} x baseline")


if __name__ == "__main__":
    main()
