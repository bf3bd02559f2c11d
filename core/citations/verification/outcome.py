"""The outcome of checking a citation, and how a file scan becomes one."""

from __future__ import annotations

from dataclasses import dataclass

from core.citations.states import CHECK_OUTCOMES
from core.citations.verification.normalize import FUZZY_THRESHOLD
from core.citations.verification.scan import FileScan, Request

STATUSES = CHECK_OUTCOMES  # every status a Verification can have
MISMATCH_CAP = 0.99  # the highest similarity a mismatch is given


@dataclass(slots=True)
class Verification:
    """The outcome of checking one citation against the sandbox."""

    status: str
    detail: str
    score: float | None = None
    line_start: int | None = None
    line_end: int | None = None
    original_line_start: int | None = None
    original_line_end: int | None = None
    resolved_path: str | None = None
    content_id: str | None = None
    file_sha256: str | None = None


@dataclass(slots=True)
class Job:
    index: int
    rel: str
    content_id: str | None
    request: Request
    note: str = ""  # how a partial path was resolved, said first in the detail


def _lines(start: int, end: int) -> str:
    return f"line {start}" if start == end else f"lines {start}-{end}"


def _copies(others: list[tuple[int, int]]) -> str:
    """ "No other copy …", or how many other copies there are and where (the first three)."""
    if not others:
        return "No other copy is in the file."
    where = [_lines(s, e) for s, e in others[:3]]
    if len(others) > 3:
        where.append(f"{len(others) - 3} more")
    listed = where[0] if len(where) == 1 else ", ".join(where[:-1]) + " and " + where[-1]
    if len(others) == 1:
        return f"1 other copy is in the file, at {listed}."
    return f"{len(others)} other copies are in the file, at {listed}."


def relocation_detail(
    cited: tuple[int, int], found: tuple[int, int], occurrences: set[tuple[int, int]], scan: FileScan
) -> str:
    """Where the excerpt was cited, where it is, and how many other copies the file holds."""
    (start, end), (s, e) = cited, found
    if start <= s <= end < e:  # pragma: no mutate: one inside would be verified, not relocated
        where = (
            f"The excerpt starts in the cited {_lines(start, end)} but runs on to line {e}: "
            f"its full text is at {_lines(s, e)}."
        )
    elif scan.past_end(start):
        where = (
            f"The citation points at {_lines(start, end)}, past the end of the file "
            f"({scan.n_lines} lines); the excerpt is at {_lines(s, e)}."
        )
    else:
        where = f"The excerpt is not at the cited {_lines(start, end)} but at {_lines(s, e)}."
    return f"{where} {_copies(sorted(occurrences - {found}))}"


def judge_file(job: Job, scan: FileScan | OSError, position: int) -> Verification:
    if isinstance(scan, OSError):
        return Verification(
            "missing_file",
            f"The file {job.rel} could not be read ({scan.strerror}).",
            resolved_path=job.rel,
            content_id=job.content_id,
        )
    sha256 = scan.sha256
    request = job.request
    cited = request.cited
    if cited is not None and not scan.binary and scan.answers[position].in_place and request.has_needle:
        # Most citations: the excerpt in its cited lines. Made directly
        # (no keywords to unpack): this runs once a citation.
        start, end = cited
        return Verification(
            "verified",
            f"The excerpt is at the cited {_lines(start, end)}.",
            1.0,
            start,
            end,
            None,
            None,
            job.rel,
            job.content_id,
            sha256,
        )
    base = {"resolved_path": job.rel, "content_id": job.content_id, "file_sha256": sha256}
    if cited is None:
        start = end = None
    else:
        start, end = cited
    if not job.request.has_needle:
        if cited is not None and scan.past_end(start):
            return Verification(
                "line_out_of_range",
                f"The file has {scan.n_lines} lines; the citation points at {_lines(start, end)}.",
                line_start=start,
                line_end=end,
                **base,
            )
        kind = "binary file" if scan.binary else "file"
        return Verification(
            "located",
            f"The {kind} exists; the citation gave no excerpt to check.",
            line_start=start,
            line_end=end,
            **base,
        )
    if scan.binary:
        return Verification(
            "excerpt_mismatch",
            "The file is binary, so the excerpt cannot be checked in it.",
            0.0,
            start,
            end,
            **base,
        )
    answer = scan.answers[position]
    if answer.in_place and cited:
        return Verification(
            "verified", f"The excerpt is at the cited {_lines(start, end)}.", 1.0, start, end, **base
        )
    if answer.occurrences:
        if cited is None:
            s, e = min(answer.occurrences)
            return Verification(
                "verified",
                f"The excerpt was found at {_lines(s, e)} (the citation gave no lines).",
                1.0,
                s,
                e,
                **base,
            )
        # Nearest first, then earliest; the shortest on a tie, so the answer
        # never depends on the order the occurrences were found in.
        s, e = min(answer.occurrences, key=lambda o: (abs(o[0] - start), o))
        return Verification(
            "relocated",
            relocation_detail((start, end), (s, e), answer.occurrences, scan),
            1.0,
            s,
            e,
            start,
            end,
            **base,
        )
    if cited is not None and scan.past_end(start):
        return Verification(
            "line_out_of_range",
            f"The file has {scan.n_lines} lines; the citation points at "
            f"{_lines(start, end)} and the excerpt is nowhere in it.",
            0.0,
            start,
            end,
            **base,
        )
    score, detail = 0.0, "The excerpt is not in the file."
    if answer.fuzzy and answer.fuzzy[0] > 0:
        # A mismatch is never "100% similar": the score is capped below 1,
        # and equal words with different symbols are named as such.
        score = min(round(answer.fuzzy[0], 3), MISMATCH_CAP)
        near = _lines(answer.fuzzy[1], answer.fuzzy[2])
        if answer.fuzzy[0] >= 1.0:
            detail = (
                f"The excerpt's words are all at {near}, but its punctuation or symbols "
                "differ from the file's."
            )
        elif score >= FUZZY_THRESHOLD:
            comes = "comes" if answer.fuzzy[1] == answer.fuzzy[2] else "come"
            detail = (
                f"The excerpt is not in the file exactly; {near} {comes} close ({int(score * 100)}% similar)."
            )
        else:
            detail = f"The excerpt is not in the file; the closest text is {int(score * 100)}% similar."
    return Verification("excerpt_mismatch", detail, score, start, end, **base)


def judge_url(pairs, scans, positions) -> Verification:
    job = pairs[0][1]
    for real, item in pairs:
        scan = scans[real]
        if isinstance(scan, OSError) or scan.binary:  # pragma: no mutate: a binary file has no occurrences
            continue
        occurrences = scan.answers[positions[id(item)]].occurrences
        if occurrences:
            s, e = min(occurrences)
            return Verification(
                "url_matched",
                f"The URL is a content item of this session and the excerpt is in "
                f"{item.rel} at {_lines(s, e)}.",
                1.0,
                s,
                e,
                resolved_path=item.rel,
                content_id=item.content_id,
                file_sha256=scan.sha256,
            )
    return Verification(
        "excerpt_mismatch",
        "The URL is a content item of this session, but the excerpt is not in any of its files.",
        0.0,
        content_id=job.content_id,
    )
