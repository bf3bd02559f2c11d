"""Property tests: the parser and verifier take any input without raising,
and no valid CITATIONS entry is ever lost."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.citations.parsing import ParsedCitation, parse_citations
from core.citations.verification import STATUSES, verify_citations

_pieces = st.sampled_from(
    [
        *"abc c1[],-:{}\"'/`\n #*.<>!0123456789_",
        "CITATIONS",
        "<!-- CITATIONS: [",
        "-->",
        "[c1-c3]",
        "## Sources\n- ",
        "## Source 1: T\n```yaml\nurl: ",
        "3f2a9c1e/",
        "* **Evidence:** ",
        "* **Excerpt:**\n  ```\n",
        "a.md:12-",
        "https://x.org/",
    ]
)
_text = st.lists(_pieces, max_size=60).map("".join)
_scalar = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 10**6), st.floats(allow_nan=True), st.text(max_size=30)
)
_entry = st.fixed_dictionaries(
    {"id": st.integers(1, 60).map(lambda n: f"c{n}")},
    optional={
        "source_file": st.one_of(st.none(), st.text(max_size=40), st.just("https://example.com/x")),
        "source_type": st.one_of(st.sampled_from(["file", "url", "memory", "inference"]), _scalar),
        "location": st.one_of(
            st.none(),
            _scalar,
            st.fixed_dictionaries(
                {}, optional={k: _scalar for k in ("line_start", "line_end", "section", "page")}
            ),
        ),
        "excerpt": st.one_of(st.none(), st.text(max_size=250)),
        "relevance": st.one_of(st.sampled_from(["direct", "supporting", "contextual"]), _scalar),
        "confidence": _scalar,
    },
)


@settings(max_examples=300, deadline=None)
@given(_text)
def test_parse_never_raises(text):
    """Any text parses without raising; every citation has a unique cN id."""
    result = parse_citations(text, content_ids=["3f2a9c1e-5b7d-4c21-9e8f-0a1b2c3d4e5f"])
    ids = [c.cid for c in result.citations]
    assert len(ids) == len(set(ids))
    assert all(cid.startswith("c") and cid[1:].isdigit() for cid in ids)
    # The parser's last-resort guard reports internal errors as a problem; none may occur.
    assert not any("internal error" in p for p in result.problems)


@settings(max_examples=200, deadline=None)
@given(st.lists(_entry, max_size=8), _text, _text, st.booleans())
def test_valid_json_entries_never_lost(entries, before, after, pretty):
    """Every object of a valid-JSON CITATIONS block comes back as a citation,
    whatever prose surrounds it; distinct ids are kept as written."""
    body = json.dumps(entries, indent=2 if pretty else None, allow_nan=True)
    before = before.replace("<!--", "").replace("CITATIONS", "")
    result = parse_citations(f"{before}\n<!-- CITATIONS: {body} -->\n{after.replace('<!--', '')}")
    assert not any("internal error" in p for p in result.problems)
    block = [c for c in result.citations if c.found_by == "citations_block"]
    assert len(block) == len(entries)
    seen: set[str] = set()
    for entry, citation in zip(entries, block, strict=True):
        if entry["id"] not in seen:
            assert citation.cid == entry["id"]
        seen.add(entry["id"])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.builds(
            ParsedCitation,
            cid=st.just("c1"),
            found_by=st.just("citations_block"),
            source_type=st.sampled_from(["file", "url", "memory", "inference", "other"]),
            source_path=st.one_of(
                st.none(), st.text(max_size=40), st.sampled_from(["a.md", "../x", "d/a.md"])
            ),
            url=st.one_of(st.none(), st.text(max_size=20), st.just("https://example.com/a")),
            line_start=st.one_of(st.none(), st.integers(-3, 50)),
            line_end=st.one_of(st.none(), st.integers(-3, 50)),
            excerpt=st.one_of(st.none(), st.text(max_size=60), st.just("hello world")),
        ),
        max_size=6,
    )
)
def test_verify_never_raises(tmp_path, citations):
    """Arbitrary citations each get exactly one known status, in order."""
    (tmp_path / "d").mkdir(exist_ok=True)
    (tmp_path / "a.md").write_text("hello world\nsecond line\n")
    (tmp_path / "d" / "a.md").write_bytes(b"\x00\x01binary")
    results = verify_citations(tmp_path, citations, url_to_content={"https://example.com/a": "d"})
    assert len(results) == len(citations)
    assert all(r.status in STATUSES for r in results)
    assert not any("could not be checked" in r.detail for r in results)
    assert all(r.status != "verified" or r.score == 1.0 for r in results)
