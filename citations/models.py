"""Citations of an answer, their verification against the sandbox and their review."""

from __future__ import annotations

from django.conf import settings
from django.db import connections, models

from core.citations.parsing import model as parsed
from core.citations.states import SupportLabel, VerificationState
from core.ingest.documents.locate import describe
from core.ingest.documents.render import RENDITION_SUFFIX


class CitationQuerySet(models.QuerySet):
    def support_rate(self) -> int | None:
        """Percent of the judged citations whose cited text supports their
        sentence; ``None`` when none was judged."""
        judged = self.exclude(support=SupportLabel.UNJUDGED)
        total = judged.count()
        return round(100 * judged.filter(support=SupportLabel.SUPPORTS).count() / total) if total else None

    def insert(self, rows: list[Citation]) -> None:
        """Insert new rows, each column's value prepared as ``bulk_create`` prepares it,
        in one ``executemany`` of a one-row INSERT. ``bulk_create`` builds a single
        statement of rows × columns placeholders (37,000 for an answer of 1,000
        citations) and took 2.5 times as long on SQLite (245 against 97 ms of CPU for
        the same 1,000 rows, the median of 7 alternated). The rows are written, not
        read back: they get no primary key."""
        if not rows:
            return
        connection = connections[self.db]
        fields = [f for f in self.model._meta.concrete_fields if f is not self.model._meta.pk]
        # Only the model's own table and column names, quoted; every value is a parameter.
        sql = "INSERT INTO {} ({}) VALUES ({})".format(  # noqa: S608
            connection.ops.quote_name(self.model._meta.db_table),
            ", ".join(connection.ops.quote_name(f.column) for f in fields),
            ", ".join(["%s"] * len(fields)),
        )
        params = [[f.get_db_prep_save(f.pre_save(row, True), connection) for f in fields] for row in rows]
        with connection.cursor() as cursor:
            cursor.executemany(sql, params)

    def citing(self, item):
        """Citations of a content item: of one of its files, or of its URL."""
        return self.filter(question__session_id=item.session_id).filter(
            models.Q(content_item=item) | models.Q(source_path__startswith=f"{item.pk}/")
        )


class Citation(models.Model):
    class SourceType(models.TextChoices):
        FILE = "file"
        URL = "url"
        MEMORY = "memory"
        INFERENCE = "inference"

    class Relevance(models.TextChoices):
        DIRECT = "direct"
        SUPPORTING = "supporting"
        CONTEXTUAL = "contextual"

    # Derived from the parser's forms (core/citations/parsing/model.py).
    FoundBy = models.TextChoices(
        "FoundBy",
        [(form.name, (form.value, form.label)) for form in parsed.FoundBy],
        module=__name__,
        qualname="Citation.FoundBy",
    )

    # Derived from the one list of states (core/citations/states.py), members and labels alike.
    Verification = models.TextChoices(
        "Verification",
        [(state.name, (state.value, state.label)) for state in VerificationState],
        module=__name__,
        qualname="Citation.Verification",
    )

    class Review(models.TextChoices):
        UNREVIEWED = "unreviewed"
        APPROVED = "approved"
        REJECTED = "rejected"

    Support = models.TextChoices(
        "Support",
        [(label.name, (label.value, label.label)) for label in SupportLabel],
        module=__name__,
        qualname="Citation.Support",
    )

    class JudgedBy(models.TextChoices):
        LEXICAL = "lexical", "Lexical (offline)"
        LLM = "llm", "Language model"
        HUMAN = "human", "Reviewer"

    question = models.ForeignKey("researchmind.Question", on_delete=models.CASCADE, related_name="citations")
    cid = models.CharField(max_length=20)
    position = models.PositiveIntegerField(default=0)
    source_type = models.CharField(max_length=10, choices=SourceType.choices, default=SourceType.FILE)
    content_item = models.ForeignKey(
        "researchmind.ContentItem", null=True, blank=True, on_delete=models.SET_NULL, related_name="citations"
    )
    source_path = models.CharField(max_length=1000, blank=True)
    url = models.CharField(max_length=2000, blank=True)
    title = models.CharField(max_length=300, blank=True)
    line_start = models.PositiveIntegerField(null=True, blank=True)
    line_end = models.PositiveIntegerField(null=True, blank=True)
    original_line_start = models.PositiveIntegerField(null=True, blank=True)
    original_line_end = models.PositiveIntegerField(null=True, blank=True)
    section = models.CharField(max_length=300, blank=True)
    page = models.CharField(max_length=50, blank=True)
    excerpt = models.TextField(blank=True)
    relevance = models.CharField(max_length=12, choices=Relevance.choices, blank=True)
    confidence = models.FloatField(null=True, blank=True)
    authority = models.CharField(max_length=20, blank=True)
    date = models.CharField(max_length=40, blank=True)
    version = models.CharField(max_length=60, blank=True)
    web_type = models.CharField(max_length=40, blank=True)
    found_by = models.CharField(max_length=20, choices=FoundBy.choices)
    verification = models.CharField(max_length=20, choices=Verification.choices, default=Verification.PENDING)
    verification_detail = models.TextField(blank=True)
    match_score = models.FloatField(null=True, blank=True)
    file_sha256 = models.CharField(max_length=64, blank=True)
    verified_at = models.DateTimeField(null=True, blank=True)
    review_status = models.CharField(max_length=12, choices=Review.choices, default=Review.UNREVIEWED)
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    review_note = models.TextField(blank=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)
    # Does the cited text support the sentence the marker is attached to?
    # ``support`` is what is shown (a reviewer's label wins); ``auto_support``
    # keeps the automatic judge's, to measure it against reviewers.
    claim = models.TextField(blank=True)
    support = models.CharField(max_length=12, choices=Support.choices, default=Support.UNJUDGED)
    support_judged_by = models.CharField(max_length=10, choices=JudgedBy.choices, blank=True)
    support_reason = models.CharField(max_length=300, blank=True)
    auto_support = models.CharField(max_length=12, choices=Support.choices, blank=True)
    # Where a citation of a document's rendition sits in the original: PDF
    # page and highlight rectangles, docx paragraph, slide, cells, notebook
    # cell (core/ingest/documents/locate.py gives the shape); null for text.
    locator = models.JSONField(null=True, blank=True)

    objects = CitationQuerySet.as_manager()

    class Meta:
        ordering = ["question", "position"]
        constraints = [models.UniqueConstraint(fields=["question", "cid"], name="unique_citation_cid")]
        indexes = [
            # An answer's citations in order, read from the index rather than sorted per page.
            models.Index(fields=["question", "position"]),
            models.Index(fields=["verification"]),
            models.Index(fields=["review_status"]),
            models.Index(fields=["support"]),
        ]

    def __str__(self) -> str:
        return f"[{self.cid}] {self.readable_location}"

    @property
    def readable_location(self) -> str:
        """``location_label`` with the content item's title where its path starts with the
        item's UUID (page titles and the admin's headings are read by people)."""
        label = self.location_label
        item = self.content_item if self.content_item_id else None
        prefix = f"{self.content_item_id}/"
        if item is not None and item.title and label.startswith(prefix):
            return f"{item.title}/{label.removeprefix(prefix)}"
        return label

    @property
    def location_label(self) -> str:
        if self.source_type == self.SourceType.URL and self.url:
            return self.url
        if self.locator and self.source_path.endswith(RENDITION_SUFFIX):
            # A document is named as itself with its page, slide or cell (and "OCR text" when it is).
            return describe(self.locator, self.source_path.removesuffix(RENDITION_SUFFIX))
        label = self.source_path or self.source_type
        if self.line_start:
            label += f":{self.line_start}" + (
                f"-{self.line_end}" if self.line_end and self.line_end != self.line_start else ""
            )
        return label

    @property
    def path_in_item(self) -> str:
        """The path below the content item's folder."""
        return self.source_path.split("/", 1)[1] if "/" in self.source_path else ""


class CitationFeedback(models.Model):
    class Verdict(models.TextChoices):
        HELPFUL = "helpful", "Helpful"
        WRONG = "wrong", "Wrong"

    citation = models.ForeignKey(Citation, on_delete=models.CASCADE, related_name="feedback")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    verdict = models.CharField(max_length=10, choices=Verdict.choices)
    created_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["citation", "user"], name="one_feedback_per_user")]

    def __str__(self) -> str:
        return f"{self.verdict} on {self.citation}"
