"""Core domain: research sessions, their content and the questions asked."""

from __future__ import annotations

import uuid
from pathlib import Path

from django.conf import settings
from django.db import models
from django.utils import timezone

from core.content_kinds import ContentKind


def _owned(queryset: models.QuerySet, user, owner_field: str) -> models.QuerySet:
    """The rows ``user`` owns: none for an anonymous or missing user."""
    if not getattr(user, "is_authenticated", False):
        return queryset.none()
    return queryset.filter(**{owner_field: user})


class ResearchSessionQuerySet(models.QuerySet):
    def owned_by(self, user) -> ResearchSessionQuerySet:
        return _owned(self, user, "owner")


class ContentItemQuerySet(models.QuerySet):
    def owned_by(self, user) -> ContentItemQuerySet:
        return _owned(self, user, "session__owner")


# A fan-out parent keeps its spec in ``protocol["fanout"]``; each of its sub-runs
# keeps its own (index, label, type, items) in ``protocol["fanout_run"]``.
FANOUT_KEY = "fanout"
SUB_RUN_KEY = "fanout_run"


class QuestionQuerySet(models.QuerySet):
    def owned_by(self, user) -> QuestionQuerySet:
        return _owned(self, user, "session__owner")

    def for_page(self) -> QuestionQuerySet:
        """Without what the engine printed and wrote verbatim (the admin and the API
        show it, no page does): as large as the run, ~1 MB for an answer with
        1,000 citations, read only if asked for."""
        return self.defer("raw_output", "answer_raw")

    def fanouts(self) -> QuestionQuerySet:
        """Fan-out parents (``Question.is_fanout``)."""
        return self.filter(protocol__has_key=FANOUT_KEY)


class ResearchSession(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="research_sessions"
    )
    title = models.CharField(max_length=200)
    engine = models.CharField(max_length=40, default="builtin", help_text="Default engine for new questions.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ResearchSessionQuerySet.as_manager()

    class Meta:
        ordering = ["-updated_at"]

    def __str__(self) -> str:
        return self.title

    @property
    def sandbox_path(self) -> Path:
        return Path(settings.SANDBOX_ROOT) / str(self.id)

    @property
    def state_path(self) -> Path:
        """The session's private state (index, run logs, staging), outside its sandbox."""
        return Path(settings.STATE_ROOT) / str(self.id)


class ContentItem(models.Model):
    # Derived from the one list of kinds (core/content_kinds.py), members and labels alike.
    Kind = models.TextChoices(
        "Kind",
        [(kind.name, (kind.value, kind.label)) for kind in ContentKind],
        module=__name__,
        qualname="ContentItem.Kind",
    )

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        READY = "ready", "Ready"
        FAILED = "failed", "Failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    session = models.ForeignKey(ResearchSession, on_delete=models.CASCADE, related_name="content_items")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    title = models.CharField(max_length=300, blank=True)
    source_url = models.CharField(max_length=2000, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    error = models.TextField(blank=True)
    note = models.TextField(blank=True, help_text="What was left out, e.g. files that are not text.")
    progress_done = models.BigIntegerField(default=0)
    progress_total = models.BigIntegerField(null=True, blank=True)
    progress_message = models.CharField(max_length=200, blank=True)
    file_count = models.PositiveIntegerField(default=0)
    byte_size = models.BigIntegerField(default=0)
    added_at = models.DateTimeField(auto_now_add=True)

    objects = ContentItemQuerySet.as_manager()

    class Meta:
        ordering = ["added_at"]
        indexes = [models.Index(fields=["session", "status"])]

    def __str__(self) -> str:
        return self.title or f"{self.get_kind_display()} {str(self.id)[:8]}"

    @property
    def folder(self) -> Path:
        return self.session.sandbox_path / str(self.id)

    @property
    def documents_path(self) -> Path:
        """Its documents' originals and locator maps, in the session's private
        state (never its sandbox)."""
        return self.session.state_path / "documents" / str(self.id)


class Question(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        COMPLETE = "complete", "Complete"
        PARTIAL = "partial", "Partial"
        ERROR = "error", "Error"
        CANCELLED = "cancelled", "Cancelled"
        INTERRUPTED = "interrupted", "Interrupted"

    FINISHED = frozenset({"complete", "partial", "error", "cancelled", "interrupted"})

    class ResultStatus(models.TextChoices):
        CLEAN = "CLEAN"
        FINDINGS = "FINDINGS"
        PARTIAL = "PARTIAL"
        ERROR = "ERROR"

    class Confidence(models.TextChoices):
        HIGH = "HIGH"
        MEDIUM = "MEDIUM"
        LOW = "LOW"
        NONE = "NONE"

    session = models.ForeignKey(ResearchSession, on_delete=models.CASCADE, related_name="questions")
    parent = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="sub_runs",
        help_text="The fan-out question this sub-run belongs to.",
    )
    # A thread is its first question and the follow-ups asked after it.
    thread = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="thread_turns",
        help_text="The first question of the thread this follow-up belongs to (blank: it starts one).",
    )
    follows = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="follow_ups",
        help_text="The turn this follow-up was asked after.",
    )
    text = models.TextField()
    scope = models.JSONField(
        default=list,
        blank=True,
        help_text="The content items (ids) the question searches; empty: every item of the session.",
    )
    asked_as = models.TextField(
        blank=True,
        help_text="What the engine was given when it differs from the text: a follow-up rewritten "
        "to stand alone (built-in engine) or with the thread's earlier turns (Claude engines).",
    )
    engine = models.CharField(max_length=40, default="builtin")
    model = models.CharField(
        max_length=100,
        blank=True,
        help_text="The model the engine was asked to use (blank: the engine's default).",
    )
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED)
    answer = models.TextField(
        blank=True, help_text="The answer as shown: markers and the citations block removed."
    )
    answer_raw = models.TextField(blank=True, help_text="The answer exactly as the engine wrote it.")
    thinking = models.TextField(blank=True)
    result_status = models.CharField(max_length=10, choices=ResultStatus.choices, blank=True)
    confidence = models.CharField(max_length=6, choices=Confidence.choices, blank=True)
    error = models.TextField(blank=True)
    stderr_tail = models.TextField(blank=True)
    raw_output = models.TextField(blank=True, help_text="Every line the engine printed, kept verbatim.")
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, null=True, blank=True)
    usage = models.JSONField(default=dict, blank=True)
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    num_turns = models.PositiveIntegerField(null=True, blank=True)
    protocol = models.JSONField(default=dict, blank=True, help_text="Parsed envelope / result protocol data.")
    cancel_requested = models.BooleanField(default=False)
    lease_owner = models.CharField(max_length=200, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    html_cache = models.TextField(blank=True)
    summary = models.JSONField(
        default=dict,
        blank=True,
        help_text="The finished run at a glance, recorded once as it ends (timeline picture, "
        "files read, step counts), so its page does not read every event.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = QuestionQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status"])]

    def __str__(self) -> str:
        return self.text[:80]

    @property
    def is_finished(self) -> bool:
        return self.status in self.FINISHED

    @property
    def is_fanout(self) -> bool:
        """A fan-out parent: it runs sub-runs (``sub_runs``) and aggregates their results."""
        return isinstance(self.protocol, dict) and FANOUT_KEY in self.protocol

    @property
    def fanout_spec(self) -> dict:
        """A fan-out parent's spec (type, items, pairs, checklist, concurrency); else empty."""
        return (self.protocol[FANOUT_KEY] or {}) if self.is_fanout else {}

    @property
    def sub_run_spec(self) -> dict:
        """A sub-run's own spec (index, label, type, items); else empty."""
        return (self.protocol or {}).get(SUB_RUN_KEY) or {}

    @property
    def title(self) -> str:
        """What a page calls the question: the person's own words. A sub-run's
        text is the prompt built for it (its scope's folders, the format), so it
        is named by its items and the question it serves."""
        if self.parent_id:
            return f"{self.sub_run_label} — {self.parent.text}"
        return self.text

    @property
    def sub_run_label(self) -> str:
        """How a sub-run is named in the lanes and the aggregated report."""
        return self.sub_run_spec.get("label") or f"Sub-run {self.pk}"

    @property
    def thread_root_id(self) -> int:
        return self.thread_id or self.pk

    def thread_questions(self) -> models.QuerySet[Question]:
        """Every turn of this question's thread, oldest first (this one included)."""
        root = self.thread_root_id
        return Question.objects.filter(models.Q(pk=root) | models.Q(thread_id=root)).order_by(
            "created_at", "pk"
        )

    def scope_items(self) -> list[ContentItem]:
        """The content items this question was limited to, in the session's order (none: all)."""
        if not self.scope:
            return []
        return list(self.session.content_items.filter(pk__in=self.scope).order_by("added_at"))

    def earlier_turns(self) -> models.QuerySet[Question]:
        """The turns asked before this one in its thread, oldest first."""
        return self.thread_questions().filter(created_at__lt=self.created_at).exclude(pk=self.pk)


class ApiTokenQuerySet(models.QuerySet):
    def active(self) -> ApiTokenQuerySet:
        """Neither revoked nor expired."""
        return self.filter(revoked_at__isnull=True).filter(
            models.Q(expires_at__isnull=True) | models.Q(expires_at__gt=timezone.now())
        )


class ApiToken(models.Model):
    """A per-user API token. Only its SHA-256 is stored; the token is shown once."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=12, help_text="The token's first characters, to recognise it.")
    token_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(
        null=True, blank=True, help_text="Refused from then on; never if empty."
    )
    # The token whose program made this one through the API: revoking it
    # revokes this one too, so a leaked token cannot leave a copy behind.
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="children", editable=False
    )

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= timezone.now()


# A provider's engine name: "<kind>:<slug>", e.g. "openai:ollama" or "anthropic:team" (fits
# Question.engine's 40 characters: an Anthropic provider's slug has at most 30).
PROVIDER_ENGINE_PREFIX = "openai:"  # an OpenAI-compatible provider's
ENGINE_NAME_MAX = 40


class EngineProvider(models.Model):
    """A model server set up in the app (the Engines page): an OpenAI-compatible
    one, or Anthropic's Messages API. Its API key is stored sealed
    (``core.secretbox``), never in clear."""

    class Kind(models.TextChoices):
        # Each value is also the engine (core.engines.registry) that answers for it.
        OPENAI = "openai", "OpenAI-compatible (Chat Completions)"
        ANTHROPIC = "anthropic", "Anthropic (Messages API, citations by the API)"

    class ToolMode(models.TextChoices):
        AUTO = "auto", "Auto: tools unless the server refuses them"
        ON = "on", "On: the model researches with tools"
        OFF = "off", "Off: the app retrieves passages for the model"

    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.OPENAI)
    slug = models.SlugField(
        max_length=32,
        unique=True,
        help_text='Its engine name is its kind, ":" and this (e.g. openai:ollama, anthropic:team).',
    )
    name = models.CharField(max_length=100)
    base_url = models.URLField(
        max_length=500,
        blank=True,
        help_text="An OpenAI-compatible server's /v1 address; for Anthropic, blank is Anthropic's own API.",
    )
    api_key_sealed = models.TextField(blank=True, editable=False)
    model = models.CharField(max_length=100, help_text="The model asked unless a question names another.")
    models_listed = models.JSONField(
        default=list, blank=True, editable=False, help_text="What /v1/models listed at the last test."
    )
    # OpenAI-compatible providers only: the Messages API needs neither.
    context_length = models.PositiveIntegerField(default=8192)
    tool_mode = models.CharField(max_length=4, choices=ToolMode.choices, default=ToolMode.AUTO)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        permissions = [("manage_engines", "Can set up engine providers and run engine tests")]

    def __str__(self) -> str:
        return self.name

    @property
    def engine_name(self) -> str:
        return f"{self.kind}:{self.slug}"

    @property
    def is_anthropic(self) -> bool:
        return self.kind == self.Kind.ANTHROPIC

    @property
    def has_key(self) -> bool:
        return bool(self.api_key_sealed)

    @property
    def offered_models(self) -> list[str]:
        """The default model, then the others the server listed."""
        return [self.model] + [m for m in self.models_listed if m != self.model]


class EngineCheck(models.Model):
    """One engine test run in the background from the Engines page: at most
    one runs per engine at a time; it stops when nobody polls it any more."""

    class Status(models.TextChoices):
        RUNNING = "running", "Running"
        OK = "ok", "OK"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    engine = models.CharField(max_length=40)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING)
    # What the page shows: the server's folders under neutral names
    # (core.redact); raw_report keeps the engine's words as they were, for the admin.
    report = models.JSONField(default=dict, blank=True)
    raw_report = models.JSONField(default=dict, blank=True)
    started_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    started_at = models.DateTimeField(auto_now_add=True)
    polled_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["engine"], condition=models.Q(status="running"), name="one_running_check_per_engine"
            )
        ]

    def __str__(self) -> str:
        return f"{self.engine} check ({self.status})"

    @property
    def running(self) -> bool:
        return self.status == self.Status.RUNNING
