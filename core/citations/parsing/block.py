"""Form 1: the ``<!-- CITATIONS: [...] -->`` block (docs/FORMATS.md, CITATIONS block).

Field names are the convention's exactly: ``id``, ``source_file``, ``source_type``,
``location`` {line_start, line_end, section, page}, ``excerpt``,
``relevance``, ``confidence``. Broken JSON is read as far as it goes and
every repair or loss is written to ``problems``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from core.answer_markers import CITATIONS_OPENER
from core.citations.markers import citation_id
from core.citations.parsing.lenient_json import LenientError, read_element, split_array
from core.citations.parsing.model import (
    EXCERPT_LIMIT,
    RELEVANCES,
    SOURCE_TYPES,
    URL_RE,
    Found,
    FoundBy,
    ParsedCitation,
    file_citation,
    parse_range,
)

_ID_RE = re.compile(r"^\[?\s*c?(\d{1,6})\s*\]?$", re.IGNORECASE)
_ID_HINT = re.compile(r"[\"']?id[\"']?\s*:\s*[\"']?(c?\d+)", re.IGNORECASE)


@dataclass(slots=True)
class Block:
    start: int  # where '<!--' is in the answer
    end: int  # just past '-->' (or the end of the answer when it was cut off)
    body_offset: int
    body: str
    closed: bool


def find_blocks(text: str) -> list[Block]:
    """Every CITATIONS block, including one cut off before its '-->'."""
    blocks: list[Block] = []
    pos = 0
    while match := CITATIONS_OPENER.search(text, pos):
        body_start = match.end()
        ends = [m.start() for m in re.finditer("-->", text[body_start:])]
        chosen = ends[0] if ends else None
        # An excerpt may itself contain '-->'; prefer the first end after
        # which the array is complete.
        for end in ends:
            if _is_json_array(text[body_start : body_start + end]):
                chosen = end  # complete: split_array would find its ']' (the usual block, read fast)
                break
            split = split_array(text[body_start : body_start + end])
            if split is not None and split.closed:
                chosen = end
                break
        if chosen is None:
            # pragma: no mutate start (closed is only tested for truth: None and False are both false)
            blocks.append(Block(match.start(), len(text), body_start, text[body_start:], closed=False))
            # pragma: no mutate end
            break
        stop = body_start + chosen
        # Not mutated: block.end only blanks the prose, and the last 3 characters hold no citation form
        # pragma: no mutate start
        blocks.append(Block(match.start(), stop + 3, body_start, text[body_start:stop], closed=True))
        # pragma: no mutate end
        # Not mutated: no block starts in the last 3 characters or '-->': same next block
        pos = stop + 3  # pragma: no mutate
    return blocks


def _is_json_array(body: str) -> bool:
    """Is the body one strict JSON array? Its first top-level ']' is then its last character,
    as ``split_array`` reads it (no quote but '"', no comment), so the array is complete."""
    try:
        return isinstance(json.loads(body), list)
    except (ValueError, RecursionError):  # the C decoder recurses on nesting
        return False


def read_block(block: Block, content_ids: Iterable[str], problems: list[str]) -> list[Found]:
    """Turn one block into citations, never dropping an entry silently."""
    if not block.closed:
        problems.append(
            "The CITATIONS block is not closed with '-->'; it was read up to the end of the answer."
        )
    try:
        entries = json.loads(block.body.strip())
        if isinstance(entries, dict):
            entries = [entries]
        if isinstance(entries, list):
            return _convert_all(
                [(block.start, i, e) for i, e in enumerate(entries, 1)], content_ids, problems
            )
    except (ValueError, RecursionError):  # the C decoder recurses on nesting
        pass
    split = split_array(block.body)
    if split is None:
        if block.body.strip():
            problems.append("The CITATIONS block holds no JSON array, so no citation could be read from it.")
        return []
    if split.closed is False and block.closed:
        problems.append("The CITATIONS block's array is not closed with ']'.")
    if split.missing_commas:
        problems.append("The CITATIONS block is missing commas between citations; they were read anyway.")
    repairs: set[str] = {"comments"} if split.comments else set()
    entries_at: list[tuple[int, int, object]] = []
    for number, element in enumerate(split.elements, 1):
        label = _label(element.text, number)
        try:
            value, reader = read_element(element.text)
        except LenientError as error:
            problems.append(
                f"Citation {label} in the CITATIONS block is not valid JSON ({error}) and was skipped."
            )
            continue
        repairs |= reader.repairs
        if reader.truncated:
            if isinstance(value, dict) and (value.get("source_file") or value.get("excerpt")):
                problems.append(f"Citation {label} was cut off; the fields before the cut were kept.")
            else:
                problems.append(f"Citation {label} was cut off before it said anything usable and was lost.")
                continue
        # Not mutated: a block citation's position is never read (block citations keep block order)
        entries_at.append((block.body_offset + element.offset, number, value))  # pragma: no mutate
    if repairs:
        problems.append(
            "The CITATIONS block is not strict JSON ("
            + ", ".join(sorted(repairs))
            + "); it was read leniently."
        )
    return _convert_all(entries_at, content_ids, problems)


def _label(text: str, number: int) -> str:
    hint = _ID_HINT.search(text)
    return f"{hint.group(1)} (entry {number})" if hint else f"entry {number}"


def _convert_all(
    entries: list[tuple[int, int, object]], content_ids: Iterable[str], problems: list[str]
) -> list[Found]:
    found: list[Found] = []
    ids = list(content_ids)
    for position, number, entry in entries:
        if not isinstance(entry, dict):
            problems.append(f"Entry {number} of the CITATIONS block is not an object and was skipped.")
            continue
        citation = convert_entry(entry, number, ids, problems)
        # Not mutated: a block citation's position is never read (block citations keep block order)
        found.append(Found(position, citation, keep_id=bool(citation.cid)))  # pragma: no mutate
    return found


def convert_entry(entry: dict, number: int, content_ids: list[str], problems: list[str]) -> ParsedCitation:
    """Map one CITATIONS block object onto a ParsedCitation, checking each field."""
    raw_id = entry.get("id")
    match = _ID_RE.match(str(raw_id).strip()) if isinstance(raw_id, (str, int)) else None
    cid = citation_id(int(match.group(1))) if match else ""
    label = cid or f"entry {number}"
    if not match:
        problems.append(
            f"Citation entry {number} has no usable id ({raw_id!r}); it was given the next free number."
        )

    source = entry.get("source_file")
    source = source.strip() if isinstance(source, str) and source.strip() else None
    source_type = entry.get("source_type")
    if source_type not in SOURCE_TYPES:
        guess = ("url" if URL_RE.match(source) else "file") if source else "inference"
        if source_type is not None:
            problems.append(
                f"Citation {label} has an unknown source_type {source_type!r}; read as {guess!r}."
            )
        source_type = guess
    if source_type == "file" and source and URL_RE.match(source):
        problems.append(f"Citation {label} gives a URL as a file; it was read as a url source.")
        source_type = "url"

    kwargs: dict[str, object] = {}
    location = entry.get("location")
    if isinstance(location, str):
        kwargs["line_start"], kwargs["line_end"] = parse_range(location)
    elif isinstance(location, dict):
        kwargs.update(_location(location, label, problems))
    elif location is not None:
        problems.append(f"Citation {label} has a location that is not an object; it was ignored.")

    excerpt = entry.get("excerpt")
    if excerpt is not None and not isinstance(excerpt, str):
        excerpt = json.dumps(excerpt) if not isinstance(excerpt, float) or math.isfinite(excerpt) else None
    if excerpt and len(excerpt) > EXCERPT_LIMIT:
        problems.append(
            f"Citation {label}'s excerpt is {len(excerpt)} characters, over the {EXCERPT_LIMIT} allowed; kept whole."
        )
    kwargs["excerpt"] = excerpt or None

    relevance = entry.get("relevance")
    if isinstance(relevance, str) and relevance.strip().lower() in RELEVANCES:
        kwargs["relevance"] = relevance.strip().lower()
    elif relevance is not None:
        problems.append(f"Citation {label} has an unknown relevance {relevance!r}; it was left empty.")
    kwargs["confidence"] = _confidence(entry.get("confidence"), label, problems)

    if source_type == "file" and source:
        return file_citation(cid, FoundBy.CITATIONS_BLOCK, source, content_ids, problems, **kwargs)
    url = source if source_type == "url" else None
    path = source if source_type in ("memory", "inference") else None
    return ParsedCitation(
        cid=cid,
        found_by=FoundBy.CITATIONS_BLOCK,
        source_type=source_type,
        source_path=path,
        url=url,
        **kwargs,
    )


def _location(location: dict, label: str, problems: list[str]) -> dict[str, object]:
    out: dict[str, object] = {}
    lines = []
    for key in ("line_start", "line_end"):
        value = location.get(key)
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
            lines.append(value)
        else:
            if value is not None:
                problems.append(f"Citation {label} has an unusable {key} {value!r}; it was ignored.")
            lines.append(None)
    start, end = lines
    if start is None and end is not None:
        start = end
    if end is None:
        end = start
    if start is not None and end is not None and end < start:
        problems.append(f"Citation {label} gives its lines backwards ({start}-{end}); they were swapped.")
        start, end = end, start
    out["line_start"], out["line_end"] = start, end
    section = location.get("section")
    out["section"] = str(section) if section not in (None, "") else None
    page = location.get("page")
    out["page"] = page if isinstance(page, (int, str)) and not isinstance(page, bool) and page != "" else None
    return out


def _confidence(value: object, label: str, problems: list[str]) -> float | None:
    if value is None:
        return None
    number: float | None = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip().rstrip("%")) / (100 if value.strip().endswith("%") else 1)
        except ValueError:
            number = None
    if number is not None and math.isfinite(number) and 1 < number <= 100:
        problems.append(
            f"Citation {label}'s confidence {value!r} looks like a percentage; read as {number / 100}."
        )
        number /= 100
    # Not mutated: numbers in (1, 100] were divided by 100 above, so none in (1, 2] reaches this
    if number is None or not math.isfinite(number) or not 0 <= number <= 1:  # pragma: no mutate
        problems.append(f"Citation {label} has a confidence {value!r} outside 0–1; it was left empty.")
        return None
    return number
