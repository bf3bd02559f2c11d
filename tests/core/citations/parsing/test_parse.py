"""parse_citations: the four citation forms, inline refs, dedupe and numbering."""

from __future__ import annotations

from core.citations.parsing import parse_citations

CID = "3f2a9c1e-5b7d-4c21-9e8f-0a1b2c3d4e5f"
OTHER = "7d4e8f01-aaaa-4bbb-8ccc-000000000001"

# The citation convention's own CITATIONS block example, verbatim.
SEED_000_BLOCK = """<!-- CITATIONS: [
  {
    "id": "c1",
    "source_file": "docs/architecture.md",
    "source_type": "file",
    "location": {"line_start": 45, "line_end": 52, "section": "Authentication"},
    "excerpt": "The system uses JWT tokens with 24h expiry...",
    "relevance": "direct",
    "confidence": 0.95
  },
  {
    "id": "c2",
    "source_file": "https://example.com/docs/auth",
    "source_type": "url",
    "location": {"section": "Token Management"},
    "excerpt": "Best practice is to use refresh tokens alongside...",
    "relevance": "supporting",
    "confidence": 0.8
  }
] -->"""
SEED_000_INLINE = (
    "The authentication system uses JWT tokens [c1] following industry best practices for token "
    "lifecycle management [c2]."
)
# The convention's example of an inference citation, verbatim inside a block.
SEED_000_INFERENCE = """<!-- CITATIONS: [{
  "id": "c3",
  "source_file": null,
  "source_type": "inference",
  "location": null,
  "excerpt": "Inferred from combination of auth config and middleware patterns",
  "relevance": "contextual",
  "confidence": 0.6
}] -->"""

# The web-research report's Source section template with its YAML metadata block, verbatim.
SEED_002_SOURCE = """## Source 1: [Title]

```yaml
url: https://docs.example.com/api/v3
type: official_docs  # official_docs | github_issue | stackoverflow | blog | academic_paper | community_forum
date: 2025-12
version: v3.2+
authority: high  # high (official docs) | medium (GitHub/SO) | low (blogs)
```

**Key Findings**:
[Prose explanation of source insights]
"""
# The web-research report's example Evidence citation, verbatim.
SEED_002_CASE_4 = """* **Evidence (Web Research):** https://stripe.com/docs/api/payment_intents
* **Date:** 2025-12 (verified current as of 2026-01-19)
* **Type:** official_docs (authority: high)
* **Excerpt:**
  ```javascript
  const intent = await stripe.paymentIntents.create({ amount: 2000 });
  ```
"""
# The same kind of citation as an implementation plan writes it, verbatim.
SEED_002_CASE_5 = """### PLAN-005: Integrate Stripe Payment API
- **Evidence (Web Research):** https://stripe.com/docs/api/payment_intents/create
- **Date:** 2025-12 (verified current)
- **Excerpt:**
  ```javascript
  const intent = await stripe.paymentIntents.create({
    amount: 2000,
    currency: 'usd',
  });
  ```
"""
# A plan's file:line evidence with its excerpt, verbatim.
SEED_002_FACT_7 = """### Fact 7: Researcher Agent Expects File:Line Citations
- **Evidence**: `agent/researcher.md:56-57`
- **Excerpt**:
  ```markdown
  Sub-agents must provide: **(a)** exact file path **(b)** suggested line range **(c)** 1–6 line excerpt.
  ```
- **Evidence**: `agent/researcher.md:519`
- **Excerpt**:
  ```markdown
  ## References
  - `path/to/file.ext:line-line` (only items you verified)
  ```
"""


def test_seed_000_block_example():
    """The convention's own CITATIONS example parses with every field in place."""
    result = parse_citations(SEED_000_INLINE + "\n\n" + SEED_000_BLOCK)
    c1, c2 = result.citations
    assert result.problems == []
    assert (c1.cid, c1.found_by, c1.source_type, c1.source_path) == (
        "c1",
        "citations_block",
        "file",
        "docs/architecture.md",
    )
    assert (c1.line_start, c1.line_end, c1.section) == (45, 52, "Authentication")
    assert c1.excerpt == "The system uses JWT tokens with 24h expiry..."
    assert (c1.relevance, c1.confidence) == ("direct", 0.95)
    assert (c2.source_type, c2.url, c2.source_path, c2.section) == (
        "url",
        "https://example.com/docs/auth",
        None,
        "Token Management",
    )
    assert (c2.relevance, c2.confidence) == ("supporting", 0.8)


def test_seed_000_inline_refs():
    """The convention's inline example yields its ids in order."""
    assert parse_citations(SEED_000_INLINE).inline_ids == ["c1", "c2"]


def test_seed_000_inference_entry():
    """An inference citation has no path and keeps its excerpt as reasoning."""
    (c3,) = parse_citations(SEED_000_INFERENCE).citations
    assert (c3.cid, c3.source_type, c3.source_path, c3.line_start) == ("c3", "inference", None, None)
    assert c3.relevance == "contextual"


def test_inline_ref_forms():
    """[c1], [c1][c2], [c1, c2] and [c1-c3] all count, in first-seen order, ranges expanded."""
    text = "A [c4]. B [c1][c2]. C [c2, c5]. D [c6-c8]. E [C9–c10]. F [c1]."
    assert parse_citations(text).inline_ids == ["c4", "c1", "c2", "c5", "c6", "c7", "c8", "c9", "c10"]


def test_inline_refs_inside_block_ignored():
    """Ids mentioned inside the CITATIONS block are not inline references."""
    text = 'Only [c2].\n<!-- CITATIONS: [{"id": "c1", "source_file": "a/b.md", "excerpt": "[c7]"}] -->'
    assert parse_citations(text).inline_ids == ["c2"]


def test_seed_001_backtick_full_uuid():
    """A backticked `<uuid>/<path>` is a file citation with its content id."""
    (c,) = parse_citations(f"According to `{CID}/file.md`, tokens expire.").citations
    assert (c.found_by, c.source_path, c.content_id) == ("backtick_path", f"{CID}/file.md", CID)


def test_seed_001_placeholder_not_a_path():
    """The placeholder `b1c2d3e4-f5g6.../file.md` is no content id, so it is not a citation."""
    assert parse_citations("e.g., `b1c2d3e4-f5g6.../file.md`").citations == []


def test_backtick_short_id_resolves_when_unique():
    """An 8-hex short id maps to the one content id that starts with it."""
    (c,) = parse_citations("See `3f2a9c1e/notes.md`.", content_ids=[CID, OTHER]).citations
    assert (c.source_path, c.content_id) == ("3f2a9c1e/notes.md", CID)


def test_backtick_short_id_ambiguous():
    """A short id shared by two content items stays unresolved, with a problem saying so."""
    twin = "3f2a9c1e-0000-4000-8000-000000000000"
    result = parse_citations("See `3f2a9c1e/notes.md`.", content_ids=[CID, twin])
    assert result.citations[0].content_id is None
    assert any("matches 2 content items" in p for p in result.problems)


def test_backtick_lines_forms():
    """Lines come from ':45-52', '#L45-L52' or 'lines 45-52' right after the path."""
    text = f"`{CID}/a.md:45-52` and `{CID}/b.md#L3-L4` and `{CID}/c.md` lines 7–9 and `{CID}/d.md` (line 12)."
    got = [(c.source_path, c.line_start, c.line_end) for c in parse_citations(text).citations]
    assert got == [
        (f"{CID}/a.md", 45, 52),
        (f"{CID}/b.md", 3, 4),
        (f"{CID}/c.md", 7, 9),
        (f"{CID}/d.md", 12, 12),
    ]


def test_seed_001_dedupe_first_occurrence():
    """The same backtick path twice is one citation, numbered where first seen."""
    text = f"`{OTHER}/x.md` then `{CID}/file.md` then `{OTHER}/x.md` again."
    result = parse_citations(text)
    assert [(c.cid, c.source_path) for c in result.citations] == [
        ("c1", f"{OTHER}/x.md"),
        ("c2", f"{CID}/file.md"),
    ]


def test_sources_section_unbackticked():
    """Plain entries of a ## Sources section are citations (docs/FORMATS.md, Sources section entries)."""
    text = (
        f"Answer.\n\n## Sources\n- {CID}/notes.md (lines 4-6)\n- 3f2a9c1e/other.md — Notes\n"
        "- [Auth docs](https://example.com/auth)\n- docs/guide.md\n\n## Next\n- not/a/source.md\n"
    )
    cits = parse_citations(text, content_ids=[CID]).citations
    assert [(c.found_by, c.source_path or c.url) for c in cits] == [
        ("sources_section", f"{CID}/notes.md"),
        ("sources_section", "3f2a9c1e/other.md"),
        ("sources_section", "https://example.com/auth"),
        ("sources_section", "docs/guide.md"),
    ]
    assert (cits[0].line_start, cits[0].line_end) == (4, 6)
    assert cits[1].title == "Notes" and cits[1].content_id == CID
    assert cits[2].title == "Auth docs"


def test_sources_section_backticked_entry_not_doubled():
    """A backticked path in Sources is found once, by the backtick form."""
    cits = parse_citations(f"## Sources\n- `{CID}/notes.md`\n").citations
    assert [(c.found_by, c.source_path) for c in cits] == [("backtick_path", f"{CID}/notes.md")]


def test_file_line_references():
    """path/to/file.ext:45-52 and file.ext:45 are file_line citations."""
    text = "See src/app/auth.py:45-52 and README.md:3, also https://example.com:8080/x and example.com:443."
    got = [(c.found_by, c.source_path, c.line_start, c.line_end) for c in parse_citations(text).citations]
    assert got == [("file_line", "src/app/auth.py", 45, 52), ("file_line", "README.md", 3, 3)]


def test_file_line_several_ranges_span():
    """`agent/planner.md:16-17,19,55` (several ranges) spans lines 16 to 55."""
    (c,) = parse_citations("- **Evidence**: `agent/planner.md:16-17,19,55`").citations
    assert (c.source_path, c.line_start, c.line_end) == ("agent/planner.md", 16, 55)


def test_seed_002_fact_7_evidence_with_excerpt():
    """Evidence bullets pointing at file:line take the following Excerpt block."""
    c1, c2 = parse_citations(SEED_002_FACT_7).citations
    assert (c1.source_path, c1.line_start, c1.line_end, c1.found_by) == (
        "agent/researcher.md",
        56,
        57,
        "file_line",
    )
    assert c1.excerpt.startswith("Sub-agents must provide: **(a)** exact file path")
    assert (c2.line_start, c2.line_end) == (519, 519)
    assert c2.excerpt == "## References\n- `path/to/file.ext:line-line` (only items you verified)"


def test_seed_002_plan_001_source_yaml():
    """A '## Source N: Title' section with a yaml block is a web source."""
    (c,) = parse_citations(SEED_002_SOURCE).citations
    assert (c.found_by, c.source_type, c.url, c.title) == (
        "web_source",
        "url",
        "https://docs.example.com/api/v3",
        "Title",
    )
    assert (c.web_type, c.date, c.version, c.authority) == ("official_docs", "2025-12", "v3.2+", "high")


def test_seed_002_test_case_4_evidence_bullets():
    """Evidence/Date/Type/Excerpt bullets make one URL citation with all four."""
    (c,) = parse_citations(SEED_002_CASE_4).citations
    assert (c.found_by, c.url) == ("web_source", "https://stripe.com/docs/api/payment_intents")
    assert (c.date, c.web_type, c.authority) == ("2025-12", "official_docs", "high")
    assert c.excerpt == "const intent = await stripe.paymentIntents.create({ amount: 2000 });"


def test_seed_002_test_case_5_multiline_excerpt():
    """The planner's Evidence citation keeps its multi-line code excerpt."""
    (c,) = parse_citations(SEED_002_CASE_5).citations
    assert c.url == "https://stripe.com/docs/api/payment_intents/create"
    assert c.excerpt.splitlines()[0] == "const intent = await stripe.paymentIntents.create({"
    assert "  currency: 'usd'," in c.excerpt


def test_web_source_and_evidence_same_url_merge():
    """The same URL as a Source section and an Evidence bullet is one citation, fields merged."""
    text = SEED_002_SOURCE + "\n* **Evidence:** https://docs.example.com/api/v3/\n* **Excerpt:** `v3 only`\n"
    (c,) = parse_citations(text).citations
    assert (c.title, c.authority, c.excerpt) == ("Title", "high", "v3 only")


def test_source_section_without_url_reported():
    """A Source section without a URL is reported, not silently dropped."""
    result = parse_citations("## Source 1: Nothing\n\nNo metadata here.\n")
    assert result.citations == []
    assert any("gives no URL" in p for p in result.problems)


def test_block_ids_kept_prose_numbered_after():
    """Block ids stay; prose-only citations take the numbers after the highest block id."""
    text = (
        f"X [c2]. `{OTHER}/late.md` and src/a.py:3.\n"
        f'<!-- CITATIONS: [{{"id": "c2", "source_file": "{CID}/a.md", "excerpt": "e"}},'
        f' {{"id": "c5", "source_file": "{CID}/b.md", "excerpt": "f"}}] -->'
    )
    cits = parse_citations(text).citations
    assert [(c.cid, c.found_by) for c in cits] == [
        ("c2", "citations_block"),
        ("c5", "citations_block"),
        ("c6", "backtick_path"),
        ("c7", "file_line"),
    ]


def test_prose_duplicate_of_block_entry_merges():
    """A backtick path with the same lines as a block entry adds no citation, only missing fields."""
    text = (
        f"`{CID}/a.md:4-5` says so [c1].\n"
        f'<!-- CITATIONS: [{{"id": "c1", "source_file": "{CID}/a.md", "location": {{"line_start": 4, "line_end": 5}},'
        f' "excerpt": "e"}}] -->'
    )
    (c,) = parse_citations(text).citations
    assert (c.cid, c.found_by, c.excerpt) == ("c1", "citations_block", "e")


def test_bare_mention_of_cited_file_merges():
    """A bare path mention of a file already cited with lines is not a new citation."""
    text = f"`{CID}/a.md` lines 4-5 and later `{CID}/a.md` again and `3f2a9c1e/a.md`."
    cits = parse_citations(text, content_ids=[CID]).citations
    assert [(c.source_path, c.line_start) for c in cits] == [(f"{CID}/a.md", 4)]


def test_duplicate_block_id_renumbered():
    """Two block entries with one id both survive; the second is renumbered and reported."""
    text = (
        '<!-- CITATIONS: [{"id": "c1", "source_file": "a/x.md"}, {"id": "c1", "source_file": "a/y.md"}] -->'
    )
    result = parse_citations(text)
    assert [(c.cid, c.source_path) for c in result.citations] == [("c1", "a/x.md"), ("c2", "a/y.md")]
    assert any("used twice" in p and "c2" in p for p in result.problems)


def test_absolute_path_made_relative():
    """An absolute path through a content folder is read from the content id on."""
    text = (
        f'<!-- CITATIONS: [{{"id": "c1", "source_file": "/srv/sandbox/s1/{CID}/a.md", "excerpt": "x"}}] -->'
    )
    result = parse_citations(text)
    assert result.citations[0].source_path == f"{CID}/a.md"
    assert result.citations[0].content_id == CID
    assert any("absolute path" in p for p in result.problems)


def test_long_excerpt_kept_and_flagged():
    """An excerpt over 200 characters is kept whole and flagged."""
    long = "word " * 60
    result = parse_citations(
        f'<!-- CITATIONS: [{{"id": "c1", "source_file": "a/b.md", "excerpt": "{long}"}}] -->'
    )
    assert result.citations[0].excerpt == long
    assert result.citations[0].excerpt_too_long
    assert any("over the 200 allowed" in p for p in result.problems)


def test_field_values_checked():
    """Unknown relevance, out-of-range confidence and reversed lines are reported and fixed or dropped."""
    text = (
        '<!-- CITATIONS: [{"id": "c1", "source_file": "a/b.md", "location": {"line_start": 9, "line_end": 3},'
        ' "excerpt": "x", "relevance": "vital", "confidence": 7}] -->'
    )
    result = parse_citations(text)
    c = result.citations[0]
    assert (c.line_start, c.line_end, c.relevance, c.confidence) == (3, 9, None, 0.07)
    assert len(result.problems) == 3


def test_url_given_as_file_is_url():
    """A URL in source_file with source_type file is read as a url source."""
    text = '<!-- CITATIONS: [{"id": "c1", "source_file": "https://x.org/a", "source_type": "file"}] -->'
    assert parse_citations(text).citations[0].source_type == "url"


def test_empty_and_non_text_input():
    """Empty answers and non-text give an empty result, not an error."""
    assert parse_citations("").citations == []
    assert parse_citations(None).citations == []  # type: ignore[arg-type]
