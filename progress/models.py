"""Progress events: the persisted timeline of a question's run.

The database is the source of truth; the channel layer only notifies."""

from __future__ import annotations

from django.db import models


class ProgressEvent(models.Model):
    class Stage(models.TextChoices):
        EXPANDABLE = "expandable", "Details"
        PRIMARY = "primary", "Primary"

    # No index of its own: the unique (question, seq) index serves lookups by
    # question, the (question, kind, seq) index those by kind.
    question = models.ForeignKey(
        "researchmind.Question", on_delete=models.CASCADE, related_name="events", db_index=False
    )
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=30)
    stage = models.CharField(max_length=12, choices=Stage.choices, default=Stage.EXPANDABLE)
    phase = models.CharField(max_length=30, blank=True)
    step = models.IntegerField(null=True, blank=True)
    total = models.IntegerField(null=True, blank=True)
    detail = models.CharField(max_length=100, blank=True)
    payload = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["question", "seq"]
        constraints = [models.UniqueConstraint(fields=["question", "seq"], name="unique_event_seq")]
        # Filters by kind (the last phase, a step's result, the files read) read
        # only the rows of that kind, however long the run.
        indexes = [models.Index(fields=["question", "kind", "seq"], name="event_kind_seq")]

    def __str__(self) -> str:
        return f"#{self.seq} {self.kind}: {self.detail}"
