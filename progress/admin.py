from __future__ import annotations

from django.contrib import admin

from progress.models import ProgressEvent


@admin.register(ProgressEvent)
class ProgressEventAdmin(admin.ModelAdmin):
    list_display = ["question", "seq", "kind", "stage", "phase", "detail", "created_at"]
    list_filter = ["kind", "stage", "phase"]
    search_fields = ["detail"]
    list_select_related = ["question"]
    readonly_fields = [f.name for f in ProgressEvent._meta.fields]
