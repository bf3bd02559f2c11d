"""Write the built-in engine's extractive answer in the agents' format.

The text follows seed 002: a YAML message envelope (PLAN-004), a
``<thinking>`` block with the searches made, an ``<answer>`` report whose
every claim sentence ends with its ``[cN]`` marker, and — when nothing
matches — the unified "no results" form (PLAN-003). Citations follow seed 000
§2.4 in one ``<!-- CITATIONS: [...] -->`` block.

Pure Python: no Django imports.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from .claims import Claim
from .query import light_stem

_CITE_LIKE = re.compile(r"\[(c\d+)\]")


@dataclass(slots=True)
class Answer:
    """The parts of one answer; ``text`` is all of them in order."""

    envelope: str
    thinking: str
    report: str
    citations: list[dict] = field(default_factory=list)
    confidence: str = "NONE"

    @property
    def citations_block(self) -> str:
        if not self.citations:
            return ""
        return "<!-- CITATIONS: " + safe_json(self.citations, indent=2) + " -->"

    @property
    def text(self) -> str:
        parts = [self.envelope, self.thinking, self.report, self.citations_block]
        return "\n\n".join(p for p in parts if p) + "\n"


def safe_json(value: object, indent: int | None = None) -> str:
    """JSON that can sit inside an HTML comment: ``<`` and ``>`` are escaped
    so a quoted ``-->`` in an excerpt cannot end the comment early."""
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    return text.replace("<", "\\u003c").replace(">", "\\u003e")


def _show(text: str) -> str:
    """Make quoted file text harmless in our Markdown: it must not open an
    HTML comment, close our tags, or look like one of our [cN] markers."""
    return _CITE_LIKE.sub(r"(\1)", text.replace("<", "&lt;"))


def subject(question: str) -> str:
    line = " ".join(question.split())
    return _show(line if len(line) <= 100 else line[:99].rstrip() + "…")


def query_type(question: str) -> str:
    """Seed 002's query_type enum, guessed from the question's wording."""
    q = question.lower()
    if any(w in q for w in ("error", "fail", "exception", "crash", "bug", "broken", "fix")):
        return "error_resolution"
    if any(w in q for w in ("version", "upgrade", "compatib", "deprecat", "migrat")):
        return "version_compatibility"
    if any(w in q for w in ("should", "best", "recommend", "practice", "better", "avoid")):
        return "best_practices"
    return "library_api"


def envelope(question: str, timestamp: str, sources: int, confidence: str, tools: str = "Grep, Read") -> str:
    """PLAN-004's frontmatter. ``timestamp`` is the content's newest change,
    not the wall clock, so the same sandbox and question give the same text."""
    seq = int(hashlib.sha256(f"{question}\0{timestamp}".encode()).hexdigest()[:8], 16) % 1000
    return "\n".join(
        [
            "---",
            f"message_id: research-{timestamp[:10]}-{seq:03d}",
            "correlation_id: none",
            f"timestamp: {timestamp}",
            "message_type: RESEARCH_RESPONSE",
            f"query_type: {query_type(question)}",
            'researcher_version: "1.1"',
            f"sources_found: {sources}",
            f"search_tools_used: [{tools}]",
            f"confidence: {confidence}",
            "---",
        ]
    )


def title_of(content_id: str, manifest: Mapping[str, Mapping[str, object]]) -> str:
    title = manifest.get(content_id, {}).get("title")
    return _show(" ".join(str(title).split())) if title else f"Content {content_id[:8]}"


def overall_confidence(claims: list[Claim]) -> str:
    best = claims[0].coverage
    if best >= 0.75 and len(claims) >= 2:
        return "HIGH"
    return "MEDIUM" if best >= 0.45 else "LOW"


def compose_answer(
    question: str,
    terms: list[str],
    claims: list[Claim],
    manifest: Mapping[str, Mapping[str, object]],
    *,
    searches: list[str],
    timestamp: str,
    files_indexed: int,
) -> Answer:
    """The full answer for ``claims`` (best first), or the no-results form."""
    if not claims:
        return no_results(
            question, terms, searches=searches, timestamp=timestamp, files_indexed=files_indexed
        )
    ids = {id(claim): f"c{n}" for n, claim in enumerate(claims, start=1)}
    top, rest = claims[0], claims[1:]
    confidence = overall_confidence(claims)
    lines = [
        "<answer>",
        f"# Research Report: {subject(question)}",
        "",
        "## Quick Answer",
        f"{_show(top.sentence)} [{ids[id(top)]}]",
    ]
    if rest:
        lines += ["", "## Supporting Evidence"]
        groups: dict[str, list[Claim]] = {}
        for claim in rest:
            groups.setdefault(claim.path, []).append(claim)
        for path, group in groups.items():
            content_id, _, inner = path.partition("/")
            lines += ["", f"### {title_of(content_id, manifest)} — {_show(inner)}"]
            for claim in sorted(group, key=lambda c: c.line_start):
                lines.append(f"- {_show(claim.sentence)} [{ids[id(claim)]}]")
    files = list(dict.fromkeys(c.path for c in claims))
    contents = list(dict.fromkeys(p.split("/", 1)[0] for p in files))
    found = frozenset().union(*(c.terms for c in claims))
    matched = sorted(t for t in terms if light_stem(t) in found)
    lines += [
        "",
        f"## Confidence Score: {confidence}",
        f"**Reasoning**: {len(claims)} passage{'s' * (len(claims) != 1)} from {len(files)} "
        f"file{'s' * (len(files) != 1)} quoted verbatim; the best covers "
        f"{round(top.coverage * 100)}% of the question's weighted terms"
        + (f" ({', '.join(matched)})." if matched else "."),
        "",
        "**Sources:** " + "; ".join(title_of(cid, manifest) for cid in contents),
        "</answer>",
    ]
    citations = [
        citation_entry(
            claim,
            ids[id(claim)],
            relevance="direct" if claim is top or claim.coverage >= 0.5 else "supporting",
            confidence=round(min(0.95, 0.35 + 0.6 * claim.coverage), 2),
        )
        for claim in claims
    ]
    thinking = "\n".join(
        ["<thinking>", "Searches performed:", *(f"- {s}" for s in searches)]
        + [
            f"- Read {c.path} lines {c.line_start}-{c.line_end} → quoted as {ids[id(c)]}"
            for c in sorted(claims, key=lambda c: ids[id(c)])
        ]
        + [
            "",
            f"Conclusion: answered from {len(files)} file(s) by quoting the best-matching sentences.",
            "</thinking>",
        ]
    )
    return Answer(
        envelope(question, timestamp, len(files), confidence),
        thinking,
        "\n".join(lines),
        citations,
        confidence,
    )


def no_results(
    question: str, terms: list[str], *, searches: list[str], timestamp: str, files_indexed: int
) -> Answer:
    """Seed 002 PLAN-003's unified "no results" form; no citations."""
    wanted = ", ".join(f'"{t}"' for t in terms) or "(no searchable words)"
    if not terms:
        why = "The question has no words to search for once common words are removed."
    elif files_indexed == 1:
        why = f"The one indexed file in this research session has no passage that mentions {wanted}."
    else:
        why = f"None of the {files_indexed} indexed files in this research session has a passage that mentions {wanted}."
    thinking = "\n".join(
        [
            "<thinking>",
            "Searches performed:",
            *(f"- {s}" for s in searches),
            "",
            f"Conclusion: No definitive answer found for {wanted}. {why}",
            "</thinking>",
        ]
    )
    report = "\n".join(
        [
            "<answer>",
            f"# Research Report: {subject(question)}",
            "",
            "## Quick Answer",
            "⚠️ **No Definitive Answer Found**",
            "",
            "Searches performed:",
            *(f"- {s}" for s in searches),
            "",
            why,
            "",
            "## Confidence Score: NONE",
            f"**Reasoning**: No passage in the session's content supports an answer; searched for {wanted}.",
            "",
            "## Recommended Next Steps",
            "1. Add content that covers this topic to the research session (a document, web page or repository).",
            "2. Rephrase the question with the words the documents themselves use (names, synonyms, error text).",
            "3. Ask a broader question first to find which content items discuss the subject.",
            "</answer>",
        ]
    )
    return Answer(envelope(question, timestamp, 0, "NONE", tools="Grep"), thinking, report, [], "NONE")


def citation_entry(claim, cid: str, *, relevance: str = "direct", confidence: float = 0.9) -> dict:
    """One entry of the CITATIONS block (seed 000 §2.4 field names) for a quoted claim."""
    return {
        "id": cid,
        "source_file": claim.path,
        "source_type": "file",
        "location": {
            "line_start": claim.line_start,
            "line_end": claim.line_end,
            "section": claim.heading,
            "page": None,
        },
        "excerpt": claim.excerpt,
        "relevance": relevance,
        "confidence": confidence,
    }
