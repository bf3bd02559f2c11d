"""Citations of an answer: extracted, enriched from content items, verified
against the sandbox and saved; re-verified on demand; reviewed."""

from __future__ import annotations

import logging

from django.db import transaction
from django.utils import timezone

from citations.models import Citation, CitationFeedback
from citations.presenters import store_answer_html
from core.citations.parsing import ParsedCitation, parse_citations
from core.citations.parsing.model import FoundBy
from core.citations.states import HIGHLIGHTED, VerificationState
from core.citations.support.judge import claim_sentences, judge_citation
from core.citations.verification import file_digest, verify_citations
from core.citations.verification.quote import Quote, read_lines, whole_quote
from core.content_kinds import ContentKind
from core.ingest.documents import map_path
from core.ingest.documents.locate import locate
from core.sandbox import SandboxError, SandboxResolver, resolve_in_sandbox

log = logging.getLogger(__name__)

ATTACHED_KEY = "attached_citations"  # in Question.protocol: the ids the engine attached
API_KEY = "api_citations"  # in Question.protocol: the ids the model's API extracted


class Locators:
    """Locators of one session's citations, each rendition read once."""

    def __init__(self, session) -> None:
        self.session = session
        self.lines: dict[str, list[str]] = {}
        self.has_maps: dict[object, bool] = {}  # per item: were documents rendered into it at all?

    def find(self, item, source_path: str, status: str, line_start, line_end, excerpt: str) -> dict | None:
        """The citation's locator when it cites verified lines of a document's
        rendition (``None`` for plain text, or when nothing was verified)."""
        if item is None or line_start is None or "/" not in source_path:
            return None
        try:
            if not VerificationState(status).highlights:
                return None
        except ValueError:
            return None
        if item.pk not in self.has_maps:
            self.has_maps[item.pk] = map_path(item.documents_path, "").parent.is_dir()
        rendition = source_path.split("/", 1)[1]
        if not self.has_maps[item.pk] or not map_path(item.documents_path, rendition).is_file():
            return None
        try:
            if source_path not in self.lines:
                real = resolve_in_sandbox(self.session.sandbox_path, source_path)
                self.lines[source_path] = real.read_text(encoding="utf-8", errors="replace").split("\n")
            return locate(
                item.documents_path,
                rendition,
                self.lines[source_path],
                line_start,
                line_end or line_start,
                excerpt,
            )
        except (OSError, SandboxError, ValueError, KeyError, IndexError):
            # A damaged map or original: the citation keeps its lines, without a page.
            log.exception("No locator for %s lines %s-%s", source_path, line_start, line_end)
            return None


def _content_maps(session):
    items = list(session.content_items.all())
    by_id = {str(item.id): item for item in items}
    url_to_content = {
        item.source_url: str(item.id)
        for item in items
        if item.source_url and item.kind == ContentKind.URL_SCRAPE
    }
    return by_id, url_to_content


def whole_quotes(root, cited: list[tuple[str, str, int | None, int | None, str]]) -> list[Quote | None]:
    """For each (status, path, line_start, line_end, excerpt): the whole text of the
    lines a found excerpt was verified at (``core.citations.verification.quote``),
    each file read once; ``None`` where nothing was found there (the excerpt stays)."""
    spans: dict[str, set[tuple[int, int]]] = {}
    for status, path, start, end, excerpt in cited:
        if status in HIGHLIGHTED and path and start is not None and excerpt:
            spans.setdefault(path, set()).add((start, end if end is not None else start))
    resolver = SandboxResolver(root)  # the cited files' folders resolved once for them all
    lines = {path: read_lines(resolver, path, wanted) for path, wanted in spans.items()}
    quotes: list[Quote | None] = []
    for status, path, start, end, excerpt in cited:
        span = (start, end if end is not None else start) if start is not None else None
        found = lines.get(path, {}).get(span) if status in HIGHLIGHTED and span and excerpt else None
        quotes.append(whole_quote(excerpt, found, span[0]) if found else None)
    return quotes


def citations_record(question) -> int:
    """Parse the raw answer, verify every citation and replace the question's
    Citation rows. Returns how many were recorded; parse problems are kept
    on the question so nothing is dropped silently."""
    session = question.session
    by_id, url_to_content = _content_maps(session)
    parsed = parse_citations(question.answer_raw or question.answer or "", content_ids=list(by_id))
    verifications = verify_citations(
        session.sandbox_path,
        parsed.citations,
        url_to_content=url_to_content,
        content_ids=list(by_id),
        state=session.state_path,
    )
    claims = claim_sentences(question.answer or "")
    # Ids the engine attached itself (named on its result line, never read from the
    # model's text): stored as attached by the app, not as written by the model.
    attached = set((question.protocol or {}).get(ATTACHED_KEY) or [])
    extracted = set((question.protocol or {}).get(API_KEY) or [])
    now = timezone.now()
    locators = Locators(session)
    # What is stored as the excerpt is the whole of the lines it was verified at.
    quotes = whole_quotes(
        session.sandbox_path,
        [
            (
                ver.status,
                ver.resolved_path or cit.source_path or "",
                ver.line_start if ver.line_start is not None else cit.line_start,
                ver.line_end if ver.line_end is not None else cit.line_end,
                cit.excerpt or "",
            )
            for cit, ver in zip(parsed.citations, verifications, strict=True)
        ],
    )
    rows = []
    for position, (cit, ver, quote) in enumerate(zip(parsed.citations, verifications, quotes, strict=True)):
        claim = claims.get(cit.cid, "")
        excerpt = quote.text if quote else cit.excerpt or ""
        support = judge_citation(claim, excerpt, ver.status)
        content_id = ver.content_id or cit.content_id
        if content_id is None and cit.url and cit.url in url_to_content:
            content_id = url_to_content[cit.url]
        item = by_id.get(content_id or "")
        line_start = ver.line_start if ver.line_start is not None else cit.line_start
        line_end = ver.line_end if ver.line_end is not None else cit.line_end
        original = (ver.original_line_start, ver.original_line_end)
        if quote and (quote.line_start, quote.line_end) != (line_start, line_end):
            # A long span narrowed to its excerpt's lines: the cited range is kept as the original.
            original = (cit.line_start, cit.line_end) if original == (None, None) else original
            line_start, line_end = quote.line_start, quote.line_end
        source_path = (ver.resolved_path or cit.source_path or "")[:1000]
        rows.append(
            Citation(
                question=question,
                cid=cit.cid,
                position=position,
                source_type=cit.source_type or "file",
                content_item=item,
                source_path=source_path,
                url=(cit.url or (item.source_url if item else "") or "")[:2000],
                title=(cit.title or (item.title if item else "") or "")[:300],
                line_start=line_start,
                line_end=line_end,
                original_line_start=original[0],
                original_line_end=original[1],
                section=(cit.section or "")[:300],
                page=str(cit.page or "")[:50],
                excerpt=excerpt,
                relevance=cit.relevance or "",
                confidence=cit.confidence,
                authority=cit.authority or "",
                date=str(cit.date or "")[:40],
                version=str(cit.version or "")[:60],
                web_type=cit.web_type or "",
                found_by=_found_by(cit, attached, extracted),
                verification=ver.status,
                verification_detail=ver.detail,
                match_score=ver.score,
                file_sha256=ver.file_sha256 or "",
                verified_at=now,
                claim=claim,
                support=support.label,
                support_judged_by=Citation.JudgedBy.LEXICAL,
                support_reason=support.reason[:300],
                auto_support=support.withheld or support.label,
                locator=locators.find(item, source_path, ver.status, line_start, line_end, excerpt),
            )
        )
    with transaction.atomic():
        question.citations.all().delete()
        Citation.objects.insert(rows)
        if parsed.problems:
            question.protocol = dict(question.protocol or {}, citation_problems=parsed.problems)
        question.save(update_fields=["protocol"])
        store_answer_html(question, rows)
    return len(rows)


def _found_by(cit: ParsedCitation, attached: set[str], extracted: set[str]) -> str:
    """How the citation came: as the model wrote it, or, for the ids the engine
    named on its result line, attached by the app or extracted by the API."""
    if cit.found_by == FoundBy.CITATIONS_BLOCK:
        if cit.cid in extracted:
            return FoundBy.API
        if cit.cid in attached:
            return FoundBy.ATTACHED
    return cit.found_by


def citations_reverify(citations) -> int:
    """Verify the given citations again against the sandbox as it is now."""
    count = 0
    by_question: dict[int, list[Citation]] = {}
    # A removed source has nothing left to check: it stays as it was recorded.
    for citation in citations.exclude(verification=Citation.Verification.SOURCE_REMOVED).select_related(
        "question__session"
    ):
        by_question.setdefault(citation.question_id, []).append(citation)
    for group in by_question.values():
        session = group[0].question.session
        by_id, url_to_content = _content_maps(session)
        parsed = [
            ParsedCitation(
                cid=c.cid,
                found_by=c.found_by,
                source_type=c.source_type,
                source_path=c.source_path,
                content_id=str(c.content_item_id) if c.content_item_id else None,
                url=c.url or None,
                line_start=c.original_line_start or c.line_start,
                line_end=c.original_line_end or c.line_end,
                excerpt=c.excerpt or None,
            )
            for c in group
        ]
        results = verify_citations(
            session.sandbox_path,
            parsed,
            url_to_content=url_to_content,
            content_ids=list(by_id),
            state=session.state_path,  # line indexes: unchanged files are not read again
        )
        now = timezone.now()
        locators = Locators(session)
        # A row recorded before quotes were kept whole is widened to its lines now.
        quotes = whole_quotes(
            session.sandbox_path,
            [
                (
                    ver.status,
                    ver.resolved_path or c.source_path,
                    ver.line_start if ver.line_start is not None else cited.line_start,
                    ver.line_end if ver.line_end is not None else cited.line_end,
                    c.excerpt,
                )
                for c, cited, ver in zip(group, parsed, results, strict=True)
            ],
        )
        for citation, cited, ver, quote in zip(group, parsed, results, quotes, strict=True):
            # The range found, or the one cited when nothing was found; the
            # cited range is kept as the original whenever they differ.
            if ver.line_start is not None:
                citation.line_start, citation.line_end = ver.line_start, ver.line_end
            else:
                citation.line_start, citation.line_end = cited.line_start, cited.line_end
            citation.original_line_start = ver.original_line_start
            citation.original_line_end = ver.original_line_end
            if quote:
                if (quote.line_start, quote.line_end) != (citation.line_start, citation.line_end):
                    if citation.original_line_start is None:
                        citation.original_line_start, citation.original_line_end = (
                            cited.line_start,
                            cited.line_end,
                        )
                    citation.line_start, citation.line_end = quote.line_start, quote.line_end
                citation.excerpt = quote.text
            citation.verification = ver.status
            citation.verification_detail = ver.detail
            citation.match_score = ver.score
            citation.file_sha256 = ver.file_sha256 or ""
            citation.verified_at = now
            item = by_id.get(str(citation.content_item_id)) if citation.content_item_id else None
            citation.locator = locators.find(
                item,
                citation.source_path,
                ver.status,
                citation.line_start,
                citation.line_end,
                citation.excerpt,
            )
            _judge_again(citation)
            citation.save()
            count += 1
        store_answer_html(group[0].question)
    return count


def citations_mark_stale(citations) -> int:
    """Flag citations whose cited file changed (or vanished) since it was
    verified; each file is hashed once. Their answers' cached HTML is dropped
    so the badges change."""
    digests: dict[tuple, str | None] = {}
    stale_questions = set()
    for citation in citations.select_related("question__session").exclude(
        verification__in=[Citation.Verification.STALE, Citation.Verification.SOURCE_REMOVED]
    ):
        if not citation.file_sha256 or citation.source_type != "file":
            continue
        key = (citation.question.session_id, citation.source_path)
        if key not in digests:
            digests[key] = file_digest(citation.question.session.sandbox_path, citation.source_path)
        if digests[key] != citation.file_sha256:
            citation.verification = Citation.Verification.STALE
            citation.verification_detail = "The cited file changed after it was verified; verify it again."
            citation.save(update_fields=["verification", "verification_detail"])
            stale_questions.add(citation.question_id)
    if stale_questions:
        for question in _questions(stale_questions):
            store_answer_html(question)
    return len(stale_questions)


def citations_mark_source_removed(item) -> int:
    """A content item is being removed: the citations of it say so, keep
    their excerpt as it was recorded, and their answers' badges change.
    Called before the item's folder and row go. Returns how many changed."""
    citations = Citation.objects.citing(item)
    questions = set(citations.values_list("question_id", flat=True))
    title = item.title or item.source_url or str(item.pk)
    changed = citations.update(
        verification=Citation.Verification.SOURCE_REMOVED,
        verification_detail=(
            f"The content item “{title}” was removed on {timezone.now():%Y-%m-%d}; "
            "the excerpt is kept as it was recorded, and nothing is left to check it against."
        ),
        file_sha256="",
        verified_at=timezone.now(),
    )
    if questions:
        for question in _questions(questions):
            store_answer_html(question)
    return changed


def _questions(ids):
    """The questions with these ids, reached through the citation's own foreign
    key: the app owning questions sits above this one and is never imported."""
    question_model = Citation._meta.get_field("question").related_model
    return question_model.objects.filter(pk__in=ids).select_related("session")


def _judge_again(citation) -> None:
    """The automatic support label follows a new verification; a reviewer's stays shown."""
    support = judge_citation(citation.claim, citation.excerpt, citation.verification)
    citation.auto_support = support.withheld or support.label
    if citation.support_judged_by != Citation.JudgedBy.HUMAN:
        citation.support = support.label
        citation.support_judged_by = Citation.JudgedBy.LEXICAL
        citation.support_reason = support.reason[:300]


def citation_review(citation, *, reviewer, status: str, note: str = "", support: str = "") -> None:
    """Record a review; with ``support``, the reviewer's support label
    replaces the automatic one on show (which is kept to measure the judge)."""
    citation.review_status = status
    citation.reviewer = reviewer
    citation.review_note = note
    citation.reviewed_at = timezone.now()
    fields = ["review_status", "reviewer", "review_note", "reviewed_at"]
    if support:
        citation.support = support
        citation.support_judged_by = Citation.JudgedBy.HUMAN
        citation.support_reason = (note or "Judged by a reviewer.")[:300]
        fields += ["support", "support_judged_by", "support_reason"]
    citation.save(update_fields=fields)


def citation_feedback_record(*, citation, user, verdict: str) -> None:
    """A reader's "helpful" or "wrong" on a citation: one per reader, the last one kept."""
    CitationFeedback.objects.update_or_create(citation=citation, user=user, defaults={"verdict": verdict})
