"""Citations as the parser hands them to the verifier, for the verification tests."""

from __future__ import annotations

from citations.parsing import ParsedCitation


def file_citation(
    path, start=None, end=None, excerpt=None, *, source_type="file", url=None
) -> ParsedCitation:
    """A CITATIONS-block citation of ``path``; a range without an end is one line."""
    return ParsedCitation(
        cid="c1",
        found_by="citations_block",
        source_type=source_type,
        source_path=path,
        url=url,
        line_start=start,
        line_end=end or start,
        excerpt=excerpt,
    )
