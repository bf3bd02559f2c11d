"""The citation audit: the admin is a primary interface for auditors."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.admin.options import ActionLocation
from django.http import HttpResponse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from citations import audit
from citations.models import Citation, CitationFeedback
from citations.presenters import viewer_url
from citations.services import citation_review, citations_reverify
from core.citations.rendering import web_href
from core.ingest.documents.locate import describe
from core.ingest.documents.render import RENDITION_SUFFIX
from core.text import shorten
from core.viewer import ViewerError, open_window


class FeedbackInline(admin.TabularInline):
    """Readers' verdicts, as they gave them: an auditor reads them, never adds or removes one."""

    model = CitationFeedback
    extra = 0
    readonly_fields = ["user", "verdict", "created_at"]
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


def export_response(queryset, fmt: str, name: str) -> HttpResponse:
    if fmt == "csv":
        response = HttpResponse(audit.audit_csv(queryset), content_type="text/csv; charset=utf-8")
    else:
        response = HttpResponse(audit.audit_json(queryset), content_type="application/json")
    stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
    response["Content-Disposition"] = f'attachment; filename="{name}-{stamp}.{fmt}"'
    return response


AUDIT_FIELDS = [
    "question",
    "cid",
    "viewer_link",
    "cited_lines",
    "excerpt",
    "verification",
    "verification_detail",
    "match_score",
    "claim",
    "support",
    "support_judged_by",
    "support_reason",
    "auto_support",
    "review_status",
    "review_note",
    "reviewer",
    "reviewed_at",
    "source_type",
    "found_by",
    "content_item",
    "source_path",
    "url",
    "title",
    "line_start",
    "line_end",
    "original_line_start",
    "original_line_end",
    "section",
    "page",
    "locator",
    "relevance",
    "confidence",
    "authority",
    "date",
    "version",
    "web_type",
    "file_sha256",
    "verified_at",
]
# The review first, beside what it judges; the rest of the record folded below.
AUDIT_REVIEW = ["review_status", "support", "review_note", "reviewer", "reviewed_at"]
AUDIT_EVIDENCE = [
    "question",
    "cid",
    "viewer_link",
    "claim",
    "excerpt",
    "cited_lines",
    "verification",
    "verification_detail",
    "support_reason",
    "support_judged_by",
    "auto_support",
]
AUDIT_FOLDED_OUT = frozenset(AUDIT_REVIEW + AUDIT_EVIDENCE)


@admin.register(Citation)
class CitationAdmin(admin.ModelAdmin):
    # Narrow enough for 1280 px: what an auditor scans for (verification,
    # support, review) stays on screen; source type and relevance are filters.
    list_display = [
        "cid",
        "question_link",
        "location",
        "verification_badge",
        "support_badge",
        "found_by",
        "similarity",
        "review_status",
        "reviewer",
    ]
    list_filter = [
        "verification",
        "support",
        "support_judged_by",
        "review_status",
        "relevance",
        "source_type",
        "found_by",
        "question__engine",
        "question__session",
    ]
    search_fields = ["excerpt", "source_path", "url", "question__text"]
    list_select_related = ["question", "question__session", "reviewer", "content_item"]
    # Everything is evidence except the auditor's own review.
    # The reviewer's support label is part of the review too.
    readonly_fields = [
        name for name in AUDIT_FIELDS if name not in ("review_status", "review_note", "support")
    ]
    fieldsets = [
        ("Review", {"fields": AUDIT_REVIEW}),
        ("Evidence", {"fields": AUDIT_EVIDENCE}),
        (
            "Record",
            {"classes": ["collapse"], "fields": [f for f in AUDIT_FIELDS if f not in AUDIT_FOLDED_OUT]},
        ),
    ]
    inlines = [FeedbackInline]
    actions = [
        "reverify",
        "approve",
        "reject",
        "mark_supports",
        "mark_partial",
        "mark_unsupported",
        "export_csv",
        "export_json",
        "export_reviewed_jsonl",
    ]
    change_list_template = "admin/citations/citation/change_list.html"

    class Media:
        css = {"all": ["css/admin-audit.css"]}

    def has_add_permission(self, request):
        # Citations come from answers; an auditor reviews them, never invents one.
        return False

    def change_view(self, request, object_id, form_url="", extra_context=None):
        # No "Delete" on the audit screen: evidence goes only with its answer or session.
        extra_context = {**(extra_context or {}), "show_delete": False}
        return super().change_view(request, object_id, form_url, extra_context)

    def get_actions(self, request, action_location=ActionLocation.CHANGE_LIST):
        actions = super().get_actions(request, action_location)
        actions.pop("delete_selected", None)  # nor from the list
        return actions

    @admin.display(description="Question")
    def question_link(self, obj):
        text = obj.question.text
        return format_html(
            '<a href="../question/{}/change/" title="{}">{}</a>',
            obj.question_id,
            text,
            shorten(text, 40),
        )

    @admin.display(description="Location")
    def location(self, obj):
        """The content item's title and the path inside it, instead of its UUID."""
        item = obj.content_item
        if item is None or not obj.path_in_item:
            return obj.location_label
        if obj.locator and obj.path_in_item.endswith(RENDITION_SUFFIX):
            # A document by its own name and page ("OCR text: check the page image" when it is).
            return format_html(
                '<span class="audit-location" title="{}"><strong>{}</strong> / {}</span>',
                obj.location_label,
                item.title or str(item.id)[:8],
                describe(obj.locator, obj.path_in_item.removesuffix(RENDITION_SUFFIX)),
            )
        lines = ""
        if obj.line_start:
            end = obj.line_end if obj.line_end and obj.line_end != obj.line_start else None
            lines = f":{obj.line_start}" + (f"-{end}" if end else "")
        return format_html(
            '<span class="audit-location" title="{}"><strong>{}</strong> / {}{}</span>',
            obj.location_label,
            item.title or str(item.id)[:8],
            obj.path_in_item,
            lines,
        )

    @admin.display(description="Verification", ordering="verification")
    def verification_badge(self, obj):
        return format_html(
            '<span class="badge verify-{}">{}</span>', obj.verification, obj.get_verification_display()
        )

    @admin.display(description="Support", ordering="support")
    def support_badge(self, obj):
        return format_html(
            '<span class="badge support-{}" title="{}">{}</span>',
            obj.support,
            f"{obj.support_reason} ({obj.get_support_judged_by_display()})" if obj.support_judged_by else "",
            obj.get_support_display(),
        )

    @admin.display(description="Similarity", ordering="match_score")
    def similarity(self, obj):
        """Only a mismatch has a similarity worth showing (never 100%)."""
        if obj.verification != Citation.Verification.EXCERPT_MISMATCH or obj.match_score is None:
            return "—"
        return f"{min(99, int(obj.match_score * 100))}%"

    def changelist_view(self, request, extra_context=None):
        response = super().changelist_view(request, extra_context)
        changelist = getattr(response, "context_data", {}).get("cl")
        if changelist is not None:
            response.context_data["support_agreement"] = audit.support_agreement(changelist.queryset)
        return response

    @admin.display(description="Open in viewer")
    def viewer_link(self, obj):
        url = viewer_url(obj)
        if url:
            return format_html('<a href="{}" target="_blank" rel="noopener">{}</a>', url, obj.location_label)
        href = web_href(obj.url)
        if href:
            return format_html('<a href="{}" target="_blank" rel="noopener noreferrer">{}</a>', href, href)
        if obj.url:  # not an http(s) URL: shown as text, never as a link
            return format_html("<span>{}</span> (not a web address)", obj.url)
        return "—"

    @admin.display(description="Cited lines in context")
    def cited_lines(self, obj):
        if not obj.source_path or not obj.line_start:
            return "—"
        root, path = obj.question.session.sandbox_path, obj.source_path
        if obj.content_item_id and obj.path_in_item:  # confined to the cited item's own folder
            root, path = root / str(obj.content_item_id), obj.path_in_item
        try:
            window = open_window(
                root,
                path,
                line_start=obj.line_start,
                line_end=obj.line_end or obj.line_start,
                context=5,
                highlight=True,
            )
        except ViewerError as exc:
            return format_html('<span class="error">{}</span>', str(exc))
        rows = format_html_join(
            "",
            '<tr class="{}"><td class="ln">{}</td><td class="src"><pre>{}</pre></td></tr>',
            (
                (
                    "hl"
                    if window.highlight_start
                    and window.highlight_start <= line.number <= window.highlight_end
                    else "",
                    line.number,
                    mark_safe(line.html),  # noqa: S308 (Pygments output: file text escaped already)
                )
                for line in window.lines
            ),
        )
        return format_html('<table class="code highlight audit-context">{}</table>', rows)

    def save_model(self, request, obj, form, change):
        if {"review_status", "review_note", "support"} & set(form.changed_data):
            obj.reviewer = request.user
            obj.reviewed_at = timezone.now()
        if "support" in form.changed_data:
            obj.support_judged_by = Citation.JudgedBy.HUMAN
            obj.support_reason = (obj.review_note or "Judged by a reviewer.")[:300]
        super().save_model(request, obj, form, change)

    def _mark_support(self, request, queryset, support: str) -> None:
        for citation in queryset:
            citation_review(
                citation,
                reviewer=request.user,
                status=citation.review_status,
                note=citation.review_note,
                support=support,
            )
        label = Citation.Support(support).label.lower()
        self.message_user(
            request, f"Recorded “{label}” for {queryset.count()} citation(s).", messages.SUCCESS
        )

    @admin.action(description="Review: the cited text supports the sentence")
    def mark_supports(self, request, queryset):
        self._mark_support(request, queryset, Citation.Support.SUPPORTS)

    @admin.action(description="Review: the cited text partly supports the sentence")
    def mark_partial(self, request, queryset):
        self._mark_support(request, queryset, Citation.Support.PARTIAL)

    @admin.action(description="Review: the cited text does not support the sentence")
    def mark_unsupported(self, request, queryset):
        self._mark_support(request, queryset, Citation.Support.UNSUPPORTED)

    @admin.action(description="Export reviewed support labels as JSONL")
    def export_reviewed_jsonl(self, request, queryset):
        response = HttpResponse(audit.reviewed_support_jsonl(queryset), content_type="application/x-ndjson")
        stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
        response["Content-Disposition"] = f'attachment; filename="support-reviews-{stamp}.jsonl"'
        return response

    @admin.action(description="Verify again against the sandbox")
    def reverify(self, request, queryset):
        count = citations_reverify(queryset)
        self.message_user(request, f"Verified {count} citation(s) again.", messages.SUCCESS)

    @admin.action(description="Approve (record me as reviewer)")
    def approve(self, request, queryset):
        for citation in queryset:
            citation_review(
                citation, reviewer=request.user, status=Citation.Review.APPROVED, note=citation.review_note
            )
        self.message_user(request, f"Approved {queryset.count()} citation(s).", messages.SUCCESS)

    @admin.action(description="Reject (record me as reviewer)")
    def reject(self, request, queryset):
        for citation in queryset:
            citation_review(
                citation, reviewer=request.user, status=Citation.Review.REJECTED, note=citation.review_note
            )
        self.message_user(request, f"Rejected {queryset.count()} citation(s).", messages.WARNING)

    @admin.action(description="Export audit as CSV")
    def export_csv(self, request, queryset):
        return export_response(queryset, "csv", "citations-audit")

    @admin.action(description="Export audit as JSON")
    def export_json(self, request, queryset):
        return export_response(queryset, "json", "citations-audit")


@admin.register(CitationFeedback)
class CitationFeedbackAdmin(admin.ModelAdmin):
    list_display = ["citation", "user", "verdict", "created_at"]
    list_filter = ["verdict"]
