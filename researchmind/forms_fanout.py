"""The "Ask across content items" form: validation only; the work is in
``researchmind.fanout``."""

from __future__ import annotations

from django import forms

from researchmind.fanout import MAX_CONCURRENCY
from researchmind.forms import EngineField
from researchmind.models import ContentItem

RESULT_TYPE_CHOICES = [
    ("digest", "Digest of each content item"),
    ("consistency", "Consistency between content items"),
    ("verification", "Verification against a checklist"),
]
PAIR_CHOICES = [("all", "Every pair of the chosen items"), ("chosen", "Just the two chosen items")]


class ContentChoiceField(forms.ModelMultipleChoiceField):
    def label_from_instance(self, obj) -> str:
        return str(obj)


class FanoutForm(forms.Form):
    text = forms.CharField(label="Question", widget=forms.Textarea(attrs={"rows": 3}), max_length=10_000)
    result_type = forms.ChoiceField(label="Result type", choices=RESULT_TYPE_CHOICES, initial="digest")
    items = ContentChoiceField(
        label="Content items",
        queryset=ContentItem.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="None ticked: every ready content item.",
    )
    pairs = forms.ChoiceField(label="Pairs (consistency)", choices=PAIR_CHOICES, initial="all")
    checklist = forms.CharField(
        label="Checklist (verification)",
        required=False,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text="One item to verify per line.",
        max_length=20_000,
    )
    engine = EngineField(required=False)
    concurrency = forms.IntegerField(
        label="Sub-runs at a time", min_value=1, max_value=MAX_CONCURRENCY, initial=2
    )

    def __init__(self, *args, session, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.session = session
        self.fields["items"].queryset = session.content_items.filter(status=ContentItem.Status.READY)

    def clean(self):
        data = super().clean()
        items = list(data.get("items") or self.fields["items"].queryset)
        data["items"] = items
        kind = data.get("result_type")
        data["checklist_lines"] = [
            line.strip() for line in (data.get("checklist") or "").splitlines() if line.strip()
        ]
        if not items:
            raise forms.ValidationError("There is no ready content item to ask across yet.")
        if kind == "verification" and not data["checklist_lines"]:
            self.add_error("checklist", "A verification needs a checklist: one item per line.")
        if kind == "consistency":
            if len(items) < 2:
                self.add_error("items", "A consistency check needs at least two content items.")
            elif data.get("pairs") == "chosen" and len(items) != 2:
                self.add_error("items", "Choose exactly two content items, or compare every pair.")
        return data
