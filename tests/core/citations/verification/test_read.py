"""Reading a file, whole or streamed in line-aligned chunks, answers every
citation as the plain definition does: decode the file, split it into lines,
normalise the cited lines and look for the excerpt there, else normalise the
whole file and list every place it is. Checked on hypothesis-made files with
UTF-8 and Latin-1 text, a BOM, CRLF line ends, no final newline, lines longer
than a chunk, NUL bytes, and on citations inside, across and past the end."""

from __future__ import annotations

import hashlib
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.citations.verification import normalize, read
from core.citations.verification.hashing import Hasher
from core.citations.verification.needle import make_needle
from core.citations.verification.normalize import matches, normalize_text
from core.citations.verification.read import scan_file
from core.citations.verification.scan import Request
from core.citations.verification.window import Window

_WORDS = ["alpha", "Beta", "gamma", "delta", "eps", "x", "42", "v2", "end.", "**bold**", "`code`", "--", "?!"]
_UTF8_WORDS = ["café", "“q”", "—", "naïve"]
_LATIN1_WORDS = ["café", "crème", "naïve"]
_PREFIX = ["", "", "", "- ", "1. ", "> ", "# "]


def _file(seed: int, encoding: str) -> tuple[bytes, str]:
    """(raw bytes, decoded text without BOM) of a file made from ``seed``: short lines of
    words, markup and bullets, now and then a line longer than a chunk."""
    rng = random.Random(seed)
    words = _WORDS + {"ascii": [], "utf-8": _UTF8_WORDS, "latin-1": _LATIN1_WORDS}[encoding]
    lines = []
    for _ in range(rng.randint(1, 90)):
        if rng.random() < 0.08:
            lines.append(" ".join(rng.choice(words) for _ in range(rng.randint(120, 160))))
        else:
            lines.append(rng.choice(_PREFIX) + " ".join(rng.choice(words) for _ in range(rng.randint(0, 7))))
    newline = rng.choice(["\n", "\n", "\r\n"])
    text = newline.join(lines) + (newline if rng.random() < 0.5 else "")
    raw = text.encode("utf-8" if encoding == "ascii" else encoding)
    if encoding == "utf-8" and rng.random() < 0.5:
        raw = read.BOM + raw
    return raw, text


_files = st.tuples(st.integers(0, 2**32), st.sampled_from(["ascii", "utf-8", "latin-1"]))


def _excerpt(lines: list[str], data) -> str | None:
    """A stretch of the file's lines as an agent might quote it, or words it never had."""
    kind = data.draw(st.sampled_from(["lines", "lines", "cut", "elided", "upper", "absent", "none"]))
    if kind == "none":
        return None
    if kind == "absent":
        return "never written here"
    first = data.draw(st.integers(1, len(lines)))
    last = data.draw(st.integers(first, min(len(lines), first + 2)))
    text = "\n".join(line[:150] for line in lines[first - 1 : last])
    if kind == "cut":
        words = text.split(" ")
        a = data.draw(st.integers(0, len(words) - 1))
        text = " ".join(words[a : data.draw(st.integers(a + 1, len(words)))])
    elif kind == "elided":
        words = text.split()
        if len(words) >= 3:
            text = f"{words[0]} ... {words[-1]}"
    elif kind == "upper":
        text = text.upper().replace("\n", " ")
    return text


def _oracle(text: str, request: Request):
    """(in place, occurrences, fuzzy) by the definition, on the decoded text."""
    lines = text.split("\n")
    n_lines = len(lines) - (1 if text.endswith("\n") or not text else 0)
    needle, cited = request.needle, request.cited
    if needle is None:
        return False, set(), None
    window = None
    if cited is not None:
        lo, hi = cited
        if lo <= n_lines:
            window = "\n".join(lines[lo - 1 : hi])
            if matches(normalize_text(window), needle.pieces, first_only=True):
                return True, set(), None
    found = set(Window.from_text(text, 1).occurrences(needle))
    fuzzy = None
    if window is not None and not found:
        fuzzy = Window.from_text(window, lo).best_fuzzy(needle)
    return False, found, fuzzy


def _requests(text: str, data) -> list[Request]:
    lines = text.split("\n")
    requests = []
    for _ in range(data.draw(st.integers(1, 5))):
        needle = make_needle(_excerpt(lines, data))
        if data.draw(st.booleans()):
            requests.append(Request(needle, None))
            continue
        start = data.draw(st.integers(1, len(lines) + 3))
        span = data.draw(st.sampled_from([0, 0, 1, 2, 3, 17, 30]))  # past 16 lines: counted, not walked
        requests.append(Request(needle, (start, start + span)))
    return requests


def _check(tmp_path, raw: bytes, text: str, encoding: str, requests: list[Request], binary: bool) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(raw)
    scan = scan_file(path, requests, Hasher(threaded=False))
    assert scan.sha256 == hashlib.sha256(raw).hexdigest()
    body = raw.removeprefix(read.BOM)
    assert scan.n_lines == body.count(b"\n") + (1 if body and not body.endswith(b"\n") else 0)
    assert scan.binary is binary
    if binary:
        assert all((a.in_place, a.occurrences, a.fuzzy) == (False, set(), None) for a in scan.answers)
        return
    if encoding != "latin-1" or not any(c in text for c in "éèï"):
        assert scan.encoding == "utf-8"
    elif any(r.needle is not None and r.cited is None for r in requests):
        # Searched from the first byte: the bytes that are not UTF-8 were met.
        assert scan.encoding == "latin-1"
    for request, answer in zip(requests, scan.answers, strict=True):
        in_place, found, fuzzy = _oracle(text, request)
        assert answer.in_place is in_place, request
        if request.cited is None:
            # Only the first occurrence is asked for.
            assert min(answer.occurrences, default=None) == min(found, default=None)
        else:
            assert answer.occurrences == found, request
            assert answer.fuzzy == fuzzy, request


@pytest.fixture(params=["whole", "streamed"])
def mode(request):
    """Whole files, or every file past 300 bytes streamed in 300-byte chunks."""
    return request.param


_SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))


def test_scan_answers_as_the_definition(tmp_path_factory, mode):
    """Every request's answer (in place, every occurrence, fuzzy score), the line count, the
    digest and the encoding, whole or streamed, are those of the plain definition."""
    root = tmp_path_factory.mktemp("scan")

    @_SETTINGS
    @given(_files, st.data())
    def check(file, data):
        raw, text = _file(*file)
        encoding = file[1]
        _check(root, raw, text.replace("\r\n", "\n"), encoding, _requests(text, data), False)

    with pytest.MonkeyPatch.context() as patch:
        if mode == "streamed":
            patch.setattr(read, "WHOLE", 300)
            patch.setattr(read, "CHUNK", 300)
            # The seam between chunks holds at least OVERLAP bytes, so it finds an occurrence
            # no longer than that: these excerpts are at most three lines of 150 characters
            # (under 1,100 bytes), and an elided one's gap is kept short to match.
            patch.setattr(read, "OVERLAP", 1200)
            patch.setattr(normalize, "MAX_GAP", 100)
        check()


def test_binary_scan_counts_lines_and_answers_nothing(tmp_path_factory, mode):
    """A file with a NUL byte near its start is binary: hashed and its lines counted, no
    excerpt looked for, whole or streamed."""
    root = tmp_path_factory.mktemp("binary")

    @_SETTINGS
    @given(_files, st.data())
    def check(file, data):
        raw, text = _file(*file)
        raw = b"\x00" + raw
        _check(root, raw, text, "binary", _requests(text, data), True)

    with pytest.MonkeyPatch.context() as patch:
        if mode == "streamed":
            patch.setattr(read, "WHOLE", 300)
            patch.setattr(read, "CHUNK", 300)
            patch.setattr(read, "OVERLAP", 200)
        check()
