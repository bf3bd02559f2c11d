"""The Anthropic engine's citations, without a server: passages become search
results of one non-empty line per block, a ``search_result_location`` maps
back to the lines of the blocks it names (exclusive end, or inclusive as the
API's examples show), and the recorded answer carries a marker after each
cited block and one CITATIONS block, the model's own entries deduplicated."""

from __future__ import annotations

import json

from core.citations.parsing import parse_citations
from core.engines.anthropic.answer import TextBlock, compose
from core.engines.anthropic.citing import ApiCitation, cited_lines, result_title, sent_result
from core.engines.builtin.search import Hit

PATH = "3f2a9c1e-1111-4222-8333-444455556666/notes.md"
CONTENT_IDS = [PATH.split("/")[0]]


def hit(first: int, text: str) -> Hit:
    lines = text.split("\n")
    return Hit(PATH, first, first + len(lines) - 1, None, text, 1.0, 20)


def location(start: int, end: int, cited: str, index: int = 0, source: str = PATH) -> dict:
    return {
        "type": "search_result_location",
        "source": source,
        "title": "Auth notes — notes.md",
        "cited_text": cited,
        "search_result_index": index,
        "start_block_index": start,
        "end_block_index": end,
    }


def test_a_passage_is_one_block_per_non_empty_line_with_its_line_map():
    result = sent_result(
        hit(1, "# Token lifetimes\n\nAccess tokens expire.\n  \nRefresh tokens rotate."),
        "Auth notes — notes.md",
    )
    assert result.lines == (1, 3, 5)
    block = result.block()
    assert block["type"] == "search_result" and block["source"] == PATH
    assert block["citations"] == {"enabled": True}
    assert [c["text"] for c in block["content"]] == [
        "# Token lifetimes",
        "Access tokens expire.",
        "Refresh tokens rotate.",
    ]
    assert sent_result(hit(4, "\n  \n"), "t") is None


def test_the_title_names_the_item_and_the_file():
    assert result_title({CONTENT_IDS[0]: {"title": "Auth notes"}}, PATH) == "Auth notes — notes.md"


def test_an_exclusive_end_maps_to_the_lines_of_the_cited_blocks():
    sent = [sent_result(hit(1, "# Token lifetimes\n\nAccess tokens expire.\nRefresh tokens rotate."), "t")]
    one = cited_lines(location(1, 2, "Access tokens expire."), sent)
    assert (one.line_start, one.line_end, one.matched) == (3, 3, True)
    two = cited_lines(location(1, 3, "Access tokens expire.Refresh tokens rotate."), sent)
    assert (two.line_start, two.line_end) == (3, 4)
    assert two.excerpt == "Access tokens expire.\nRefresh tokens rotate."


def test_an_inclusive_end_as_in_the_api_examples_is_read_too():
    sent = [sent_result(hit(1, "# Token lifetimes\n\nAccess tokens expire.\nRefresh tokens rotate."), "t")]
    same = cited_lines(location(1, 1, "Access tokens expire."), sent)
    assert (same.line_start, same.line_end, same.matched) == (3, 3, True)
    both = cited_lines(location(1, 2, "Access tokens expire.Refresh tokens rotate."), sent)
    assert (both.line_start, both.line_end, both.matched) == (3, 4, True)


def test_the_result_is_found_by_its_index_among_results_of_the_same_file():
    sent = [
        sent_result(hit(1, "Alpha line.\nBeta line."), "t"),
        sent_result(hit(10, "Gamma line.\nDelta line."), "t"),
    ]
    cited = cited_lines(location(1, 2, "Delta line.", index=1), sent)
    assert (cited.line_start, cited.line_end) == (11, 11)
    # A wrong index: the result of that source whose blocks hold the text.
    moved = cited_lines(location(0, 1, "Gamma line.", index=0), sent)
    assert (moved.line_start, moved.matched) == (10, True)


def test_text_the_blocks_do_not_hold_is_kept_as_a_mismatch_and_an_unknown_source_is_none():
    sent = [sent_result(hit(1, "Alpha line.\nBeta line."), "t")]
    wrong = cited_lines(location(0, 1, "Something else."), sent)
    assert wrong.matched is False and wrong.excerpt == "Something else." and wrong.line_start == 1
    assert cited_lines(location(0, 1, "Alpha line.", source="other/file.md"), sent) is None
    assert cited_lines(location(5, 6, "Alpha line."), sent) is None


def citation(first: int, last: int, excerpt: str = "Access tokens expire.") -> ApiCitation:
    return ApiCitation(PATH, first, last, excerpt, True)


def test_markers_follow_the_cited_blocks_and_the_block_lists_the_api_citations():
    answer = compose(
        [
            TextBlock("Per the notes, ", []),
            TextBlock("access tokens expire", [citation(3, 3)]),
            TextBlock(".", []),
        ],
        content_ids=CONTENT_IDS,
    )
    assert answer.api_ids == ["c1"]
    prose, _block = answer.text.split("\n\n", 1)
    assert prose == "Per the notes, access tokens expire [c1]."
    parsed = parse_citations(answer.text, content_ids=CONTENT_IDS)
    (only,) = parsed.citations
    assert (only.cid, only.source_path, only.line_start, only.line_end) == ("c1", PATH, 3, 3)
    assert only.excerpt == "Access tokens expire." and not parsed.problems


def test_one_range_cited_twice_is_one_citation():
    answer = compose(
        [TextBlock("A. ", [citation(3, 3)]), TextBlock("B.", [citation(3, 3), citation(4, 4, "Refresh")])],
        content_ids=CONTENT_IDS,
    )
    assert answer.api_ids == ["c1", "c2"]
    assert answer.text.startswith("A. [c1] B. [c1][c2]")


def test_a_model_written_block_is_read_as_today_and_deduplicated_against_the_api():
    own = [
        {
            "id": "c1",
            "source_file": PATH,
            "location": {"line_start": 3, "line_end": 3},
            "excerpt": "Access tokens expire.",
        },
        {"id": "c2", "source_file": PATH, "location": {"line_start": 9, "line_end": 9}, "excerpt": "Other."},
    ]
    written = f"Tokens expire [c1] and other [c2].\n\n<!-- CITATIONS: {json.dumps(own)} -->"
    answer = compose(
        [TextBlock("Tokens expire", [citation(3, 3)]), TextBlock(written[len("Tokens expire") :], [])],
        content_ids=CONTENT_IDS,
    )
    assert answer.api_ids == ["c3"]  # numbered after the model's own
    parsed = parse_citations(answer.text, content_ids=CONTENT_IDS)
    assert sorted((c.cid, c.line_start) for c in parsed.citations) == [("c2", 9), ("c3", 3)]
    assert answer.text.startswith("Tokens expire [c3] and other [c2].")
    assert answer.text.count("<!-- CITATIONS:") == 2


def test_a_long_cited_text_is_kept_within_the_excerpt_limit_by_whole_lines():
    long = "\n".join(f"Line {n} " + "word " * 20 for n in range(5))
    answer = compose([TextBlock("All of it.", [citation(1, 5, long)])], content_ids=CONTENT_IDS)
    parsed = parse_citations(answer.text, content_ids=CONTENT_IDS)
    assert not parsed.problems
    assert parsed.citations[0].excerpt == "\n".join(long.split("\n")[:1])
