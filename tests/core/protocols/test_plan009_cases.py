"""The web-research report convention's five test cases, as responses a conforming
web-search-researcher would return, checked item by item against its
"Expected Response" lists."""

from __future__ import annotations

from core.protocols import ENVELOPE_FIELDS, SOURCE_FIELDS, parse_answer

CASE_1 = """---
message_id: research-2026-01-19-001
correlation_id: test-react-auth
timestamp: 2026-01-19T10:15:00Z
message_type: RESEARCH_RESPONSE
query_type: library_api
researcher_version: "1.1"
sources_found: 1
search_tools_used: [context7, searxng-search, webfetch]
confidence: HIGH
---

<thinking>
Search strategy for React 18 authentication hooks:
- Query 1: context7 "react 18 authentication hooks" → 4 results
- Query 2: searxng "react useAuth hook pattern" → 12 results
- Webfetch verification: https://react.dev/reference/react/hooks → 200
- Date verification: 2025-12
- Authority assessment: official docs, current

Tools used: [context7, searxng-search, webfetch]
</thinking>

<answer>
# Web Research Report: React 18 authentication hooks

## Quick Answer
Wrap the app in an auth context provider and read it with a custom `useAuth` hook.

---

## Source 1: React Hooks Reference

```yaml
url: https://react.dev/reference/react/hooks
type: official_docs
date: 2025-12
version: v18.0+
authority: high
```

**Key Findings**:
Context plus a custom hook is the documented pattern.

**Verified Code Example**:
- **Source URL**: https://react.dev/reference/react/useContext
- **Language**: JavaScript
- **Excerpt** (lines 42-44 from docs):
  ```javascript
  const { user, login } = useAuth();
  ```

---

## Confidence Score: HIGH
**Reasoning**: Official documentation confirms the pattern.

## Version Compatibility
- **Applies to**: React 18.0+
- **Breaking Changes**: None

## Warnings
- Do not store tokens in localStorage.
</answer>
"""

CASE_2 = """---
message_id: research-2026-01-19-002
correlation_id: test-no-results
timestamp: 2026-01-19T10:20:00Z
message_type: RESEARCH_RESPONSE
query_type: library_api
researcher_version: "1.1"
sources_found: 0
search_tools_used: [context7, searxng-search, webfetch]
confidence: NONE
---

<thinking>
Searches performed:
- Context7 query: "totally-fake-library-xyz-123 authentication" → 0 results (irrelevant)
- SearXNG query: "totally-fake-library-xyz-123 npm" → 0 results (irrelevant)
- Webfetch attempt: https://www.npmjs.com/package/totally-fake-library-xyz-123 → 404

Conclusion: No definitive answer found for authentication patterns. The package does not exist.
</thinking>

<answer>
# Web Research Report: totally-fake-library-xyz-123 authentication

## Quick Answer
⚠️ **No Definitive Answer Found**

Searches performed:
- Context7: "totally-fake-library-xyz-123 authentication" (0 results, irrelevant)
- SearXNG: "totally-fake-library-xyz-123 npm" (0 results, irrelevant)
- Webfetch: https://www.npmjs.com/package/totally-fake-library-xyz-123 (404)

The package is not published on npm.

## Confidence Score: NONE
**Reasoning**: No authoritative sources found for this package. Registry and search engines return nothing.

## Recommended Next Steps
1. Check the package name for typos in package.json
2. Search GitHub issues for 'authentication' keyword
3. Ask the team which internal registry hosts the package
</answer>
"""

CASE_3 = """---
message_id: research-2026-01-19-003
correlation_id: test-multi-source
timestamp: 2026-01-19T10:30:00Z
message_type: RESEARCH_RESPONSE
query_type: library_api
researcher_version: "1.1"
sources_found: 2
search_tools_used: [searxng-search, webfetch]
confidence: HIGH
---

<thinking>
- Query 1: searxng "stripe payment intents create" → 8 results
</thinking>

<answer>
# Web Research Report: Stripe v3 payment intents

## Quick Answer
Create a PaymentIntent server-side with an amount and currency.

## Source 1: Stripe API reference

```yaml
url: https://stripe.com/docs/api/payment_intents
type: official_docs
date: 2025-12
version: v3
authority: high
```

**Verified Code Example**:
- **Source URL**: https://stripe.com/docs/api/payment_intents/create
- **Language**: JavaScript
- **Excerpt** (lines 10-13 from docs):
  ```javascript
  const intent = await stripe.paymentIntents.create({ amount: 2000 });
  ```

## Source 2: stripe-node issue on idempotency keys

```yaml
url: https://github.com/stripe/stripe-node/issues/1234
type: github_issue
date: 2025-11
version: v3
authority: medium
```

## Confidence Score: HIGH
**Reasoning**: Multiple sources agree: the official reference and a maintainer answer.

## Version Compatibility
- **Applies to**: v3

## Warnings
- Always pass an idempotency key.
</answer>
"""

# Test case 4's example citation, verbatim.
CASE_4_EXAMPLE_CITATION = """* **Evidence (Web Research):** https://stripe.com/docs/api/payment_intents
* **Date:** 2025-12 (verified current as of 2026-01-19)
* **Type:** official_docs (authority: high)
* **Excerpt:**
  ```javascript
  const intent = await stripe.paymentIntents.create({ amount: 2000 });
  ```
"""


def test_case_1_successful_research():
    """Test Case 1: all nine fields, matching correlation id, at least one source,
    HIGH/MEDIUM confidence, thinking with queries, five answer sections, a
    source with its five YAML fields and a located code example."""
    parsed = parse_answer(CASE_1)
    assert set(parsed.frontmatter) == set(ENVELOPE_FIELDS)
    assert parsed.missing_fields == []
    assert parsed.frontmatter["correlation_id"] == "test-react-auth"
    assert parsed.frontmatter["sources_found"] >= 1
    assert parsed.confidence in ("HIGH", "MEDIUM")
    assert "Query 1:" in parsed.thinking
    assert "Query 1:" not in parsed.answer
    assert parsed.sections[1:] == [
        "Quick Answer",
        "Source 1: React Hooks Reference",
        "Confidence Score: HIGH",
        "Version Compatibility",
        "Warnings",
    ]
    assert tuple(parsed.sources[0].metadata) == SOURCE_FIELDS
    assert "**Source URL**: https://react.dev/reference/react/useContext" in parsed.sources[0].text
    assert "(lines 42-44 from docs)" in parsed.sources[0].text
    assert not parsed.no_results
    assert parsed.problems == []


def test_case_2_no_results():
    """Test Case 2: confidence NONE, zero sources, thinking documents the failed
    searches, the marker in the answer, three next steps, no Source sections."""
    parsed = parse_answer(CASE_2)
    assert parsed.frontmatter["confidence"] == "NONE"
    assert parsed.frontmatter["sources_found"] == 0
    assert "→ 404" in parsed.thinking
    assert parsed.no_results
    assert parsed.confidence == "NONE"
    assert "Confidence Score: NONE" in parsed.sections
    assert parsed.next_steps == [
        "Check the package name for typos in package.json",
        "Search GitHub issues for 'authentication' keyword",
        "Ask the team which internal registry hosts the package",
    ]
    assert parsed.sources == []
    assert parsed.problems == []


def test_case_3_multiple_sources():
    """Test Case 3: two sources, the first official docs with high authority,
    the second of another type, each with YAML metadata."""
    parsed = parse_answer(CASE_3)
    assert parsed.frontmatter["sources_found"] == len(parsed.sources) == 2
    first, second = parsed.sources
    assert (first.metadata["type"], first.metadata["authority"]) == ("official_docs", "high")
    assert second.metadata["type"] in ("github_issue", "stackoverflow", "blog")
    assert all(set(source.metadata) == set(SOURCE_FIELDS) for source in parsed.sources)
    assert "Multiple sources" in parsed.answer


def test_case_4_researcher_can_build_url_citation():
    """Test Case 4: the URL, date, type and authority a URL citation needs come
    straight from the parsed source metadata."""
    source = parse_answer(CASE_3).sources[0]
    citation = (
        f"* **Evidence (Web Research):** {source.metadata['url']}\n"
        f"* **Date:** {source.metadata['date']} (verified current as of 2026-01-19)\n"
        f"* **Type:** {source.metadata['type']} (authority: {source.metadata['authority']})\n"
    )
    assert CASE_4_EXAMPLE_CITATION.startswith(citation)


def test_case_4_example_citation_parses_as_plain_answer():
    """The convention's example citation is ordinary answer text: no problems."""
    parsed = parse_answer(CASE_4_EXAMPLE_CITATION)
    assert parsed.answer == CASE_4_EXAMPLE_CITATION.strip()
    assert parsed.problems == []


def test_case_5_planner_reads_confidence_and_code_example():
    """Test Case 5: the frontmatter confidence is enough for a quick check, and
    Source 1's code example is found inside its section."""
    parsed = parse_answer(CASE_3)
    assert parsed.frontmatter["confidence"] == "HIGH"
    assert "stripe.paymentIntents.create({ amount: 2000 })" in parsed.sources[0].text
    assert "stripe.paymentIntents.create" not in parsed.sources[1].text


def test_no_results_form_has_the_same_structure_as_success():
    """Acceptance criterion 5: the "no results" response fills the same parts
    as a successful one."""
    success, failure = parse_answer(CASE_1), parse_answer(CASE_2)
    assert (success.confidence, failure.confidence) == ("HIGH", "NONE")
    for parsed in (success, failure):
        assert parsed.missing_fields == []
        assert parsed.thinking
        assert parsed.answer
        assert parsed.sections[0].startswith("Web Research Report:")
        assert parsed.sections[1] == "Quick Answer"
        assert any(section.startswith("Confidence Score:") for section in parsed.sections)
