"""Find every citation in an engine's answer (docs/FORMATS.md, How the forms combine).

Pure Python (no Django). ``parse_citations`` never raises: whatever it cannot
read is reported in ``ParseResult.problems`` rather than dropped.

Numbering: ids from the CITATIONS block are kept, because the answer's inline
``[cN]`` refer to them; citations found only in the prose are numbered after
the highest block id, in the order they first appear, so no number is used
twice. The list holds block citations first (block order), then the others.
"""

from __future__ import annotations

from collections.abc import Iterable

from core.citations.markers import citation_id
from core.citations.parsing.block import find_blocks, read_block
from core.citations.parsing.model import Found, FoundBy, ParsedCitation, ParseResult
from core.citations.parsing.text_forms import (
    find_backtick_paths,
    find_file_lines,
    find_inline_ids,
    find_sources_sections,
)
from core.citations.parsing.web import find_evidence_bullets, find_source_sections

__all__ = ["ParseResult", "ParsedCitation", "parse_citations"]

# Same-position ties resolve to the more specific form.
_FORM_ORDER = {form.value: form.precedence for form in FoundBy}


def parse_citations(answer_raw: str, *, content_ids: Iterable[str] = ()) -> ParseResult:
    """Parse the raw answer's citations in all four accepted forms."""
    result = ParseResult()
    if not isinstance(answer_raw, str) or not answer_raw:
        return result
    ids = [str(cid) for cid in content_ids]
    try:
        _parse(answer_raw, ids, result)
    except Exception as error:  # a parser bug must not lose the answer
        # Not mutated: only a parser bug reaches this and none is known, so the wording is never produced
        # pragma: no mutate start
        result.problems.append(f"Citation parsing stopped early because of an internal error: {error!r}.")
        # pragma: no mutate end
    return result


def _parse(text: str, ids: list[str], result: ParseResult) -> None:
    problems = result.problems
    block_found: list[Found] = []
    prose = text
    for block in find_blocks(text):
        block_found.extend(read_block(block, ids, problems))
        # Blank the block (keeping offsets) so its contents are not read as prose.
        # Not mutated: no citation form matches X runs, and every later position shifts alike: same citations
        # pragma: no mutate start
        prose = prose[: block.start] + _blanked(prose[block.start : block.end]) + prose[block.end :]
        # pragma: no mutate end
    result.inline_ids = find_inline_ids(prose, problems)

    others = (
        find_backtick_paths(prose, ids, problems)
        + find_source_sections(prose, problems)
        + find_evidence_bullets(prose, ids, problems)
        + find_file_lines(prose, ids, problems)
        + find_sources_sections(prose, ids, problems)
    )
    others.sort(key=lambda f: (f.position, _FORM_ORDER[f.citation.found_by]))
    # Not mutated: _dedupe never writes to problems
    result.citations = _number(_dedupe(block_found, others, problems), problems)  # pragma: no mutate


def _blanked(text: str) -> str:
    """``text`` with every character but its newlines a space."""
    return "\n".join(" " * len(line) for line in text.split("\n"))


def _key(citation: ParsedCitation) -> tuple[object, ...]:
    if citation.source_type == "url":
        return ("url", (citation.url or "").rstrip("/").lower())  # pragma: no mutate: keys compare the same
    # Not mutated: the kind tag only tells URLs from files: any other tag does the same
    return ("file", _path_key(citation), citation.line_start, citation.line_end)  # pragma: no mutate


def _path_key(citation: ParsedCitation) -> str:
    path = citation.source_path or ""  # pragma: no mutate: every path-less file key gets the same default
    if citation.content_id and "/" in path:
        path = citation.content_id + "/" + path.split("/", 1)[1]  # pragma: no mutate: one separator for all
    return path


def _is_bare(citation: ParsedCitation) -> bool:
    return citation.line_start is None and not citation.excerpt


def _dedupe(block: list[Found], others: list[Found], problems: list[str]) -> list[Found]:
    """Block entries all stay (each id may be referenced inline); a prose
    citation that repeats one already kept only fills its missing fields."""
    kept: list[Found] = list(block)
    by_key: dict[tuple[object, ...], Found] = {}
    by_target: dict[tuple[str, str], list[Found]] = {}
    for item in block:
        by_key.setdefault(_key(item.citation), item)
        by_target.setdefault(_target(item.citation), []).append(item)
    for item in others:
        citation = item.citation
        # Not mutated: no prose form makes a file citation without a path, so this guard never fires
        if citation.source_type == "file" and not citation.source_path:  # pragma: no mutate
            # Not mutated: never reached: each prose form makes a path, so this guard never fires
            continue  # pragma: no mutate
        same = by_key.get(_key(citation))
        if same is None:
            same_target = by_target.get(_target(citation), [])
            if _is_bare(citation) and same_target:
                # A bare mention of a file (or URL) already cited adds nothing new.
                same = same_target[0]
            else:
                same = next((f for f in same_target if not f.keep_id and _is_bare(f.citation)), None)
        if same is not None:
            same.citation.merge_missing(citation)
            continue
        kept.append(item)
        by_key[_key(citation)] = item
        by_target.setdefault(_target(citation), []).append(item)
    return kept


def _target(citation: ParsedCitation) -> tuple[str, str]:
    return _key(citation)[:2]  # type: ignore[return-value]


def _number(found: list[Found], problems: list[str]) -> list[ParsedCitation]:
    used: set[int] = set()
    duplicates: set[int] = set()
    for index, item in enumerate(found):
        if not item.keep_id:
            continue
        number = int(item.citation.cid[1:])
        if number in used:
            item.keep_id = False  # pragma: no mutate: keep_id is only tested for truth
            duplicates.add(index)
        used.add(number)
    next_free = max(used, default=0) + 1
    for index, item in enumerate(found):
        if item.keep_id:
            continue
        old, item.citation.cid = item.citation.cid, citation_id(next_free)
        next_free += 1
        if index in duplicates:
            problems.append(
                f"The citation id {old} is used twice; the second one was renumbered {item.citation.cid}."
            )
    return [item.citation for item in found]
