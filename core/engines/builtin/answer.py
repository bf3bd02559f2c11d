"""Write the built-in engine's extractive answer in the agents' format.

The text is an answer envelope (docs/FORMATS.md, Answer envelope): YAML
frontmatter, a ``<thinking>`` block with the searches made, an ``<answer>``
report whose every claim sentence ends with its ``[cN]`` marker, and — when
nothing matches — the "No Definitive Answer Found" form. Citations go in one
``<!-- CITATIONS: [...] -->`` block (docs/FORMATS.md, CITATIONS block).

Pure Python: no Django imports.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from core.answer_markers import citations_block
from core.citations.markers import citation_id, defuse_markers, marker
from core.text import clip

from .chunking import SECTION_SEPARATOR
from .claims import Claim
from .kinds import DECLARED, LITERAL_SET, STATES_DEFAULT, parameter_defaults
from .options import entry_options, options_in, states_the_option_asked
from .question import asks_default


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
        return citations_block(safe_json(self.citations, indent=2))

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
    HTML comment, close our tags, or look like one of our [cN] markers. Other
    "<" stay as they are (the renderer shows raw HTML as text; an entity would
    read "&lt;" inside a code span)."""
    return _code_safe(text)


def subject(question: str) -> str:
    return _show(clip(question, 100))


def query_type(question: str) -> str:
    """The envelope's query_type value, guessed from the question's wording."""
    q = question.lower()
    if any(w in q for w in ("error", "fail", "exception", "crash", "bug", "broken", "fix")):
        return "error_resolution"
    if any(w in q for w in ("version", "upgrade", "compatib", "deprecat", "migrat")):
        return "version_compatibility"
    if any(w in q for w in ("should", "best", "recommend", "practice", "better", "avoid")):
        return "best_practices"
    return "library_api"


def envelope(question: str, timestamp: str, sources: int, confidence: str, tools: str = "Grep, Read") -> str:
    """The envelope's frontmatter (docs/FORMATS.md, Frontmatter). ``timestamp``
    is the content's newest change, not the wall clock, so the same sandbox and
    question give the same text."""
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


# Calibrated on the tuning part of bench/quality/sets/builtin_questions.jsonl (see
# docs/benchmarks/builtin-engine.md for the held-out check): a lead whose ranking score
# reaches HIGH_SCORE, stands HIGH_MARGIN above the next passage and holds most
# of the key terms stated the asked-for fact far more often than the rest.
HIGH_SCORE = 1.1
HIGH_MARGIN = 0.05
HIGH_COVERAGE = 0.6  # and the lead holds most of what is asked
MEDIUM_SCORE = 0.9


def confidence_of(claims: list[Claim], kind: str, question: str = "") -> tuple[str, str]:
    """HIGH / MEDIUM / LOW from measured evidence — how strongly the lead
    answers (its key terms, the kind of answer, whether it is about the option
    the question names) and how clearly it beats the next passage — and the
    reason in words."""
    top = claims[0]
    # In a reader's words: what the quoted passage has of the question, not the ranking's terms.
    share = (
        "the quoted passage has every key word of the question"
        if round(top.coverage * 100) >= 100
        else f"the quoted passage has {round(top.coverage * 100)}% of the question's key words"
    )
    missing = f"; it does not mention {', '.join(top.missing)}" if top.missing else ""
    wanted = {
        "amount": "a number or default",
        "why": "a reason",
        "howto": "code, steps or an option to use",
    }.get(kind)
    fits = f"; it {'states' if top.answers_kind else 'does not state'} {wanted}" if wanted else ""
    margin = top.score - claims[1].score if len(claims) > 1 else top.score
    about = states_the_option_asked(question, top)
    if not about:
        own, asked = entry_options(top), ", ".join(sorted(options_in(question)))
        missing += (
            f"; it is the entry for {', '.join(sorted(own))}, not {asked or 'what was asked'}"
            if own
            else f"; it does not name {asked}"
        )
    if (
        top.score >= HIGH_SCORE
        and margin >= HIGH_MARGIN
        and top.answers_kind
        and top.coverage >= HIGH_COVERAGE
        and not top.missing  # HIGH only when the lead is about everything the question names
        and about  # and, for an option, is its entry: another option's may name every key term
        and (states_a_default(top) or not asks_default(question))  # asked a default: it states one
    ):
        level, standing = "HIGH", "; no other passage is a close match"
    elif top.score >= MEDIUM_SCORE:
        level = "MEDIUM"
        standing = "; another passage ranks almost as high" if margin < HIGH_MARGIN else ""
    else:
        level, standing = "LOW", "; the evidence is weak"
    return level, share + missing + fits + standing + "."


TERM_DASH = "—"


_DEFAULT_WORD = re.compile(r"\bdefault", re.I)


def states_a_default(claim: Claim) -> bool:
    """Whether a quoted passage says what holds by default: in words ("defaults to
    80", "(which is the default)", "If not specified, -1 will be assumed"), or in code, a name set to a literal where it is
    defined (a setting, a parameter's default in a signature)."""
    code = claim.code or ""
    return bool(
        _DEFAULT_WORD.search(claim.sentence)
        or STATES_DEFAULT.search(claim.sentence)  # "If not specified, -1 will be assumed"
        or _DEFAULT_WORD.search(code)
        or LITERAL_SET.search(code)
        or any(DECLARED.match(line) or parameter_defaults(line) for line in code.split("\n"))
    )


def _line_safe(sentence: str) -> str:
    """A quoted sentence that starts with "#" (a comment's text) is not a Markdown heading."""
    return "\\" + sentence if sentence.startswith("#") else sentence


def _code_safe(code: str) -> str:
    """Code is shown verbatim; only what could end our answer, open an HTML
    comment or pass for a [cN] marker is defused."""
    code = re.sub(r"<(?=!--|/?answer|/?thinking)", "&lt;", code, flags=re.I)
    return defuse_markers(code)


def render_claim(claim: Claim, cid: str, *, bullet: bool = False) -> list[str]:
    """A quoted passage: the sentence whole, then its code block with the
    code's language, then the [cN] marker."""
    lines = []
    if claim.sentence:
        # the entry's term, not part of the quote: what "The default is 3." is the default of
        term = f"`{_show(claim.term.replace('`', ''))}` {TERM_DASH} " if claim.term else ""
        lines.append(
            f"{'- ' if bullet else ''}{term}{_line_safe(_show(claim.sentence))}"
            + ("" if claim.code else " " + marker(cid))
        )
    if claim.code is not None:
        longest = max((len(m) for m in re.findall(r"`+", claim.code)), default=0)
        fence = "`" * max(3, longest + 1)
        lines += ["", f"{fence}{claim.language}", _code_safe(claim.code), fence, marker(cid)]
    return lines


def compose_answer(
    question: str,
    terms: list[str],
    claims: list[Claim],
    manifest: Mapping[str, Mapping[str, object]],
    *,
    searches: list[str],
    timestamp: str,
    files_indexed: int,
    kind: str = "fact",
    absent: list[str] | None = None,
    consulted: list[Claim] | None = None,
) -> Answer:
    """The full answer for ``claims`` (best first), or the no-results form."""
    if not claims:
        return no_results(
            question,
            terms,
            searches=searches,
            timestamp=timestamp,
            files_indexed=files_indexed,
            absent=absent or [],
            consulted=consulted or [],
            manifest=manifest,
        )
    ids = {id(claim): citation_id(n) for n, claim in enumerate(claims, start=1)}
    top, rest = claims[0], claims[1:]
    confidence, reason = confidence_of(claims, kind, question)
    lines = [
        "<answer>",
        f"# Research Report: {subject(question)}",
        "",
        "## Quick Answer",
        *render_claim(top, ids[id(top)]),
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
                lines += render_claim(claim, ids[id(claim)], bullet=True)
    files = list(dict.fromkeys(c.path for c in claims))
    contents = list(dict.fromkeys(p.split("/", 1)[0] for p in files))
    lines += [
        "",
        f"## Confidence Score: {confidence}",
        f"**Reasoning**: {reason[:1].upper()}{reason[1:]} {len(claims)} passage{'s' * (len(claims) != 1)} "
        f"from {len(files)} file{'s' * (len(files) != 1)} quoted verbatim.",
        "",
        "**Sources:** " + "; ".join(title_of(cid, manifest) for cid in contents),
        "</answer>",
    ]
    citations = [
        citation_entry(
            claim,
            ids[id(claim)],
            relevance="direct" if claim is top or claim.coverage >= 0.7 else "supporting",
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
            f"Conclusion: answered from {len(files)} file(s) by quoting the passage that states the answer first.",
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
    question: str,
    terms: list[str],
    *,
    searches: list[str],
    timestamp: str,
    files_indexed: int,
    absent: list[str] | None = None,
    consulted: list[Claim] | None = None,
    manifest: Mapping[str, Mapping[str, object]] | None = None,
) -> Answer:
    """The unified "no results" form (docs/FORMATS.md, No Definitive Answer Found): not found in this
    session's content, what was searched, the nearest passages consulted
    (named, never cited), confidence NONE."""
    wanted = ", ".join(f'"{t}"' for t in terms) or "(no searchable words)"
    absent = absent or []
    consulted = consulted or []
    if not terms:
        why = "The question has no words to search for once common words are removed."
    elif absent:
        missing = ", ".join(f'"{t}"' for t in absent)
        why = f"Not found in this session's content: no indexed file mentions {missing}."
    elif consulted:
        why = (
            "Not found in this session's content: the nearest passages do not cover what the question asks "
            f"(searched for {wanted})."
        )
    elif files_indexed == 1:
        why = f"Not found in this session's content: the one indexed file has no passage that mentions {wanted}."
    else:
        why = (
            f"Not found in this session's content: none of the {files_indexed} indexed files "
            f"has a passage that mentions {wanted}."
        )
    near = []
    for claim in consulted:
        content_id, _, inner = claim.path.partition("/")
        title = title_of(content_id, manifest or {})
        gap = f" (does not mention {', '.join(claim.missing)})" if claim.missing else ""
        near.append(f"- {title} — {_show(inner)}, lines {claim.line_start} to {claim.line_end}{gap}")
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
    report = [
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
    ]
    if near:
        report += ["", "Consulted (nearest passages, no claim made from them):", *near]
    report += [
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
    return Answer(
        envelope(question, timestamp, 0, "NONE", tools="Grep"), thinking, "\n".join(report), [], "NONE"
    )


def citation_entry(claim, cid: str, *, relevance: str = "direct", confidence: float = 0.9) -> dict:
    """One entry of the CITATIONS block (docs/FORMATS.md, CITATIONS block) for a quoted claim."""
    return {
        "id": cid,
        "source_file": claim.path,
        "source_type": "file",
        "location": {
            "line_start": claim.line_start,
            "line_end": claim.line_end,
            # the section itself, without the document's title it is indexed under
            "section": claim.heading.rsplit(SECTION_SEPARATOR, 1)[-1] if claim.heading else claim.heading,
            "page": None,
        },
        "excerpt": claim.excerpt,
        "relevance": relevance,
        "confidence": confidence,
    }
