"""Admin for sessions, content and questions; the question page is where an
auditor reads a run: its citations and its progress events inline."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.db.models import Count, Q
from django.utils.html import format_html, format_html_join

from citations.admin import export_response
from citations.models import Citation
from citations.presenters import viewer_url
from citations.services import citations_reverify
from core.citations.states import COUNTED_AS_VERIFIED, SupportLabel
from progress.models import ProgressEvent
from researchmind import services
from researchmind.models import FANOUT_KEY, ApiToken, ContentItem, EngineCheck, Question, ResearchSession
from researchmind.tokens import token_revoke


def audit_export_actions(lookup: str, name: str):
    """The CSV and JSON export actions for the citations of the selected rows."""

    @admin.action(description="Export the citation audit as CSV")
    def export_csv(modeladmin, request, queryset):
        return export_response(Citation.objects.filter(**{lookup: queryset}), "csv", name)

    @admin.action(description="Export the citation audit as JSON")
    def export_json(modeladmin, request, queryset):
        return export_response(Citation.objects.filter(**{lookup: queryset}), "json", name)

    return export_csv, export_json


def rate(good: int, total: int) -> str:
    return f"{round(100 * good / total)}% ({good}/{total})" if total else "—"


class ContentInline(admin.TabularInline):
    model = ContentItem
    extra = 0
    fields = ["title", "kind", "status", "file_count", "byte_size", "source_url", "error"]
    readonly_fields = fields
    show_change_link = True
    # Removal goes through the item's own page, which runs the content service
    # (its citations marked "source removed", its folder and line indexes gone).
    can_delete = False


def stop_runs_then(delete_view, model_admin, request, object_id, extra_context):
    """The admin's delete view runs in one transaction, where a stop flag
    would not be seen by the runner until the end: a confirmed delete stops
    the runs first (``services.runs_stop_before_delete``), then deletes."""
    if request.method == "POST" and request.POST.get("post"):
        obj = model_admin.get_object(request, unquote(object_id))
        if obj is not None and model_admin.has_delete_permission(request, obj):
            services.runs_stop_before_delete(obj)
    return delete_view(request, object_id, extra_context)


@admin.register(ResearchSession)
class ResearchSessionAdmin(admin.ModelAdmin):
    list_display = [
        "title",
        "owner",
        "engine",
        "n_content",
        "n_questions",
        "verification_rate",
        "support_rate",
        "updated_at",
    ]
    list_filter = ["engine", "owner"]
    search_fields = ["title", "owner__username"]
    inlines = [ContentInline]
    actions = ["export_csv", "export_json"]

    # Deleting here must remove the sandbox and private state folders too, as
    # the app does, after stopping its running questions.
    def delete_view(self, request, object_id, extra_context=None):
        return stop_runs_then(super().delete_view, self, request, object_id, extra_context)

    def delete_model(self, request, obj):
        services.session_delete(obj)

    def delete_queryset(self, request, queryset):
        for session in queryset:
            services.session_delete(session)

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                _content=Count("content_items", distinct=True),
                _questions=Count("questions", distinct=True),
                _cits=Count("questions__citations", distinct=True),
                _good=Count(
                    "questions__citations",
                    filter=Q(questions__citations__verification__in=COUNTED_AS_VERIFIED),
                    distinct=True,
                ),
                _judged=Count(
                    "questions__citations",
                    filter=~Q(questions__citations__support="unjudged"),
                    distinct=True,
                ),
                _supported=Count(
                    "questions__citations",
                    filter=Q(questions__citations__support=SupportLabel.SUPPORTS),
                    distinct=True,
                ),
            )
        )

    @admin.display(description="Content", ordering="_content")
    def n_content(self, obj):
        return obj._content

    @admin.display(description="Questions", ordering="_questions")
    def n_questions(self, obj):
        return obj._questions

    @admin.display(description="Citations verified")
    def verification_rate(self, obj):
        return rate(obj._good, obj._cits)

    @admin.display(description="Judged citations supporting their sentence")
    def support_rate(self, obj):
        return rate(obj._supported, obj._judged)

    export_csv, export_json = audit_export_actions("question__session__in", "session-audit")


@admin.register(ContentItem)
class ContentItemAdmin(admin.ModelAdmin):
    list_display = ["__str__", "kind", "status", "session", "file_count", "byte_size", "added_at"]
    list_filter = ["kind", "status"]
    search_fields = ["title", "source_url", "id"]
    readonly_fields = [
        "id",
        "session",
        "kind",
        "status",
        "error",
        "file_count",
        "byte_size",
        "added_at",
        "progress_done",
        "progress_total",
        "progress_message",
    ]

    # Deleting here goes through the same service as the app: the item's
    # citations become "source removed" (excerpts kept), its folder and line
    # indexes go, and the confirmation page counts the citations affected.
    def delete_model(self, request, obj):
        services.content_delete(obj)

    def delete_queryset(self, request, queryset):
        for item in queryset.select_related("session"):
            services.content_delete(item)

    def get_deleted_objects(self, objs, request):
        deleted, model_count, perms_needed, protected = super().get_deleted_objects(objs, request)
        items = list(objs)
        cited = sum(Citation.objects.citing(item).count() for item in items)
        if cited:
            model_count["citations marked “source removed” (their excerpts are kept)"] = cited
        return deleted, model_count, perms_needed, protected


class CitationInline(admin.TabularInline):
    model = Citation
    extra = 0
    fields = [
        "cid",
        "source_type",
        "source_path",
        "url",
        "line_start",
        "line_end",
        "verification",
        "match_score",
        "review_status",
        "open",
    ]
    readonly_fields = fields
    show_change_link = True
    can_delete = False

    @admin.display(description="Viewer")
    def open(self, obj):
        url = viewer_url(obj)
        return format_html('<a href="{}" target="_blank" rel="noopener">open</a>', url) if url else "—"


class EventInline(admin.TabularInline):
    model = ProgressEvent
    extra = 0
    fields = ["seq", "kind", "stage", "phase", "detail", "created_at"]
    readonly_fields = fields
    can_delete = False
    max_num = 0
    ordering = ["seq"]


def question_findings(question) -> list[dict] | None:
    """The finding rows of a fan-out report or of one protocol result; None
    when the question has neither."""
    protocol = question.protocol or {}
    if "aggregate" in protocol:
        return protocol["aggregate"].get("findings") or []
    if "result" in protocol:
        return protocol["result"].get("findings") or []
    return None


class FanoutFilter(admin.SimpleListFilter):
    title = "fan-out"
    parameter_name = "fanout"

    def lookups(self, request, model_admin):
        return [("parent", "Fan-out questions"), ("sub", "Sub-runs"), ("single", "Single questions")]

    def queryset(self, request, queryset):
        if self.value() == "parent":
            return queryset.fanouts()
        if self.value() == "sub":
            return queryset.filter(parent__isnull=False)
        if self.value() == "single":
            return queryset.filter(parent__isnull=True).exclude(protocol__has_key=FANOUT_KEY)
        return queryset


@admin.register(Question)
class QuestionAdmin(admin.ModelAdmin):
    list_display = [
        "short_text",
        "session",
        "engine",
        "status",
        "result_status",
        "confidence",
        "findings_count",
        "verification_rate",
        "support_rate",
        "created_at",
    ]
    list_filter = ["status", "engine", "result_status", "confidence", FanoutFilter, "session"]
    search_fields = ["text", "answer"]
    readonly_fields = [
        "session",
        "parent",
        "text",
        "engine",
        "status",
        "answer",
        "answer_raw",
        "thinking",
        "result_status",
        "confidence",
        "error",
        "stderr_tail",
        "cost_usd",
        "usage",
        "duration_ms",
        "num_turns",
        "protocol",
        "created_at",
        "started_at",
        "finished_at",
        "lease_owner",
        "raw_output",
        "findings_table",
    ]
    exclude = ["html_cache", "cancel_requested", "lease_expires_at"]
    inlines = [CitationInline, EventInline]
    actions = ["reverify", "export_csv", "export_json"]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("session")
            .annotate(
                _cits=Count("citations", distinct=True),
                _good=Count(
                    "citations", filter=Q(citations__verification__in=COUNTED_AS_VERIFIED), distinct=True
                ),
                _judged=Count("citations", filter=~Q(citations__support="unjudged"), distinct=True),
                _supported=Count(
                    "citations", filter=Q(citations__support=SupportLabel.SUPPORTS), distinct=True
                ),
            )
        )

    @admin.display(description="Question")
    def short_text(self, obj):
        return obj.text[:80]

    @admin.display(description="Findings")
    def findings_count(self, obj):
        findings = question_findings(obj)
        return len(findings) if findings is not None else "—"

    @admin.display(description="Findings table")
    def findings_table(self, obj):
        findings = question_findings(obj)
        if not findings:
            return "—"
        columns = ["id", "severity", "type", "location", "counter_location", "description", "suggestion"]
        head = format_html_join("", "<th>{}</th>", ((c.replace("_", "-").capitalize(),) for c in columns))
        rows = format_html_join(
            "",
            "<tr>{}</tr>",
            ((format_html_join("", "<td>{}</td>", ((f.get(c) or "—",) for c in columns)),) for f in findings),
        )
        return format_html(
            '<table class="findings-table"><thead><tr>{}</tr></thead><tbody>{}</tbody></table>', head, rows
        )

    @admin.display(description="Citations verified")
    def verification_rate(self, obj):
        return rate(obj._good, obj._cits)

    @admin.display(description="Judged citations supporting their sentence")
    def support_rate(self, obj):
        return rate(obj._supported, obj._judged)

    @admin.action(description="Verify all their citations again")
    def reverify(self, request, queryset):
        count = citations_reverify(Citation.objects.filter(question__in=queryset))
        self.message_user(request, f"Verified {count} citation(s) again.", messages.SUCCESS)

    export_csv, export_json = audit_export_actions("question__in", "question-audit")

    # Deleting here stops a question still running first, as deleting its session does.
    def delete_view(self, request, object_id, extra_context=None):
        return stop_runs_then(super().delete_view, self, request, object_id, extra_context)

    def delete_model(self, request, obj):
        services.question_delete(obj)

    def delete_queryset(self, request, queryset):
        for question in queryset:
            services.question_delete(question)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["name", "user", "prefix", "created_at", "last_used_at", "expires_at", "revoked_at"]
    list_filter = ["revoked_at"]
    readonly_fields = ["prefix", "token_hash", "created_at", "last_used_at", "parent"]
    actions = ["revoke"]

    @admin.action(description="Revoke")
    def revoke(self, request, queryset):
        for token in queryset:
            token_revoke(token)

    # A deleted token is revoked first: the sockets opened with it close, and
    # the tokens made with it are revoked too.
    def delete_model(self, request, obj):
        token_revoke(obj)
        super().delete_model(request, obj)

    def delete_queryset(self, request, queryset):
        for token in queryset:
            token_revoke(token)
        super().delete_queryset(request, queryset)


@admin.register(EngineCheck)
class EngineCheckAdmin(admin.ModelAdmin):
    """The Engines page's tests, read-only: ``raw_report`` is the report as the
    engine gave it, with the server's folders the page names neutrally."""

    list_display = ["engine", "status", "started_by", "started_at", "finished_at"]
    list_filter = ["engine", "status"]
    readonly_fields = [
        "engine",
        "status",
        "started_by",
        "started_at",
        "polled_at",
        "finished_at",
        "report",
        "raw_report",
    ]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
