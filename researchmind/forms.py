from __future__ import annotations

from django import forms
from django.conf import settings

from core.engines.registry import list_engines
from core.protocols import FANOUT_RESULT_TYPES
from researchmind.engine_config import engine_settings
from researchmind.models import ENGINE_NAME_MAX, ContentItem, EngineProvider, ResearchSession
from researchmind.providers import provider_availability, provider_engines
from researchmind.runs.fanout import MAX_CONCURRENCY


def offered_engines():
    """``(name, label, availability)``: the engines, then the providers set up in the app."""
    return [e for e in list_engines(engine_settings()) if e[0] != "replay"] + provider_engines()


def unavailable_engines() -> dict[str, str]:
    """Each engine that cannot run here, with the reason."""
    return {
        name: availability.reason
        for name, _label, availability in offered_engines()
        if not availability.available
    }


def engine_choices() -> list[tuple[str, str]]:
    choices = []
    for name, label, availability in offered_engines():
        if not availability.available:
            # The first sentence names what is missing; the option's tooltip has the rest.
            why = availability.reason.split(". ")[0].removeprefix(label).strip()
            label = f"{label} (unavailable: {why})"
        choices.append((name, label))
    return choices


class EngineSelect(forms.Select):
    """Engines that cannot run here stay listed, disabled, with the reason as tooltip."""

    def get_context(self, name, value, attrs):
        self.unavailable = unavailable_engines()
        return super().get_context(name, value, attrs)

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        reason = getattr(self, "unavailable", {}).get(str(value))
        if reason:
            option["attrs"] |= {"disabled": True, "title": reason}
            option["selected"] = False
        return option


class EngineField(forms.ChoiceField):
    widget = EngineSelect

    def __init__(self, **kwargs):
        super().__init__(choices=engine_choices, **kwargs)

    def validate(self, value):
        super().validate(value)
        for name, _label, availability in offered_engines():
            if name == value and not availability.available:
                raise forms.ValidationError(f"That engine is unavailable: {availability.reason}")


class SessionForm(forms.ModelForm):
    engine = EngineField(label="Default engine", initial=lambda: settings.DEFAULT_ENGINE)

    class Meta:
        model = ResearchSession
        fields = ["title", "engine"]


# An alias (sonnet) or a model id (claude-sonnet-4-5, …@20250929, arn:…/…:0, llama3.1:8b): never an option.
MODEL_PATTERN = r"\A[A-Za-z0-9][A-Za-z0-9._:@/\[\]-]*\Z"


class ProviderForm(forms.ModelForm):
    """A provider on the Engines page: an OpenAI-compatible server or Anthropic's
    Messages API. The key is write-only: the form never shows it, only whether
    one is stored. The kind and the short name make the engine's name, so
    neither changes once saved; context length and tool calling are the
    OpenAI-compatible kind's only (hidden for Anthropic, and ignored)."""

    OPENAI_ONLY = ("context_length", "tool_mode")

    api_key = forms.CharField(
        label="API key",
        required=False,
        max_length=500,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off"}),
        help_text="Stored encrypted; never shown again. Blank keeps the stored key. "
        "A local server (Ollama, llama.cpp) needs none; Anthropic's API does.",
    )
    clear_key = forms.BooleanField(label="Remove the stored key", required=False)
    model = forms.RegexField(
        label="Default model",
        max_length=100,
        regex=MODEL_PATTERN,
        error_messages={"invalid": "A model is a name such as gpt-4o-mini or llama3.1:8b."},
    )
    context_length = forms.IntegerField(
        label="Context length (tokens)", min_value=512, max_value=10_000_000, initial=8192, required=False
    )

    class Meta:
        model = EngineProvider
        fields = ["kind", "name", "slug", "base_url", "model", "context_length", "tool_mode"]
        labels = {"slug": "Short name", "base_url": "Base URL", "tool_mode": "Tool calling"}
        help_texts = {
            "base_url": "An OpenAI-compatible server's /v1 address. For Anthropic: blank is Anthropic's own "
            "API (https://api.anthropic.com), or a gateway's address without /v1."
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["tool_mode"].required = False
        self.fields["kind"].required = False  # not given: OpenAI-compatible, as before kinds existed
        if self.instance.pk:  # questions name the provider by them
            self.fields["slug"].disabled = True
            self.fields["slug"].help_text = "Questions name the provider by it: it cannot change."
            self.fields["kind"].disabled = True
            if self.instance.is_anthropic:
                for name in self.OPENAI_ONLY:
                    del self.fields[name]

    @property
    def openai_only(self) -> tuple[str, ...]:
        return self.OPENAI_ONLY

    def clean(self):
        cleaned = super().clean()
        if "kind" in cleaned and not cleaned["kind"]:
            cleaned["kind"] = EngineProvider.Kind.OPENAI
        if cleaned.get("kind") == EngineProvider.Kind.ANTHROPIC:
            self._clean_anthropic(cleaned)
        elif cleaned.get("kind") == EngineProvider.Kind.OPENAI:
            if "base_url" in cleaned and not cleaned["base_url"]:
                self.add_error(
                    "base_url",
                    "An OpenAI-compatible provider needs its server's /v1 address "
                    "(e.g. http://127.0.0.1:11434/v1 for Ollama).",
                )
            for name in self.OPENAI_ONLY:
                if name in cleaned and cleaned[name] in (None, ""):
                    self.add_error(name, "This field is required.")
        return cleaned

    def _clean_anthropic(self, cleaned: dict) -> None:
        room = ENGINE_NAME_MAX - len(f"{EngineProvider.Kind.ANTHROPIC}:")
        if not self.instance.pk and len(cleaned.get("slug") or "") > room:
            self.add_error("slug", f"An Anthropic provider's short name has at most {room} characters.")
        # The library adds /v1 itself: an address given with it would ask /v1/v1/messages.
        cleaned["base_url"] = (cleaned.get("base_url") or "").removesuffix("/v1")
        keeps_key = self.instance.has_key and not cleaned.get("clear_key")
        if "api_key" in cleaned and not (cleaned["api_key"] or keeps_key):
            self.add_error("api_key", "An Anthropic provider needs its API key.")
        for name in self.OPENAI_ONLY:  # not Anthropic settings: what is stored (the defaults) stays
            if name in self.fields:
                cleaned[name] = getattr(self.instance, name)

    def clean_slug(self):
        return self.cleaned_data["slug"].lower()

    def clean_base_url(self):
        url = self.cleaned_data["base_url"].strip().rstrip("/")
        if not url:  # required of the OpenAI-compatible kind only (clean)
            return ""
        if not url.startswith(("http://", "https://")):
            raise forms.ValidationError("The base URL starts with http:// or https://.")
        if "@" in url.split("//", 1)[1].split("/", 1)[0]:
            raise forms.ValidationError("Put the key in the API key field, not in the URL.")
        return url

    def clean_api_key(self):
        key = self.cleaned_data["api_key"]
        if any(c.isspace() or not c.isprintable() for c in key):
            raise forms.ValidationError("An API key has no spaces or control characters.")
        return key


def megabytes(size: int) -> str:
    return f"{size / 1_048_576:,.1f} MB"


class TextContentForm(forms.Form):
    title = forms.CharField(max_length=300)
    # Limited in bytes, not characters, and never by a ``maxlength`` attribute:
    # a browser cuts a paste at maxlength without a word.
    markdown = forms.CharField(label="Text (Markdown)", widget=forms.Textarea(attrs={"rows": 8}))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # app.js checks the size before sending, so the text never leaves the form.
        self.fields["markdown"].widget.attrs["data-max-bytes"] = settings.MAX_PASTE_BYTES

    def clean_markdown(self):
        text = self.cleaned_data["markdown"]
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > settings.MAX_PASTE_BYTES:
            raise forms.ValidationError(
                f"This text is {megabytes(size)}; a pasted text holds at most "
                f"{megabytes(settings.MAX_PASTE_BYTES)}. Add it as a file instead (the Files tab)."
            )
        return text


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", MultipleFileInput())
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        single = super().clean
        files = data if isinstance(data, list | tuple) else [data]
        cleaned = [single(item, initial) for item in files if item]
        if not cleaned:
            raise forms.ValidationError("Choose at least one file.")
        total = sum(f.size for f in cleaned)
        if total > settings.MAX_UPLOAD_BYTES:
            raise forms.ValidationError(
                f"The files are too large together ({total:,} bytes; the limit is {settings.MAX_UPLOAD_BYTES:,})."
            )
        return cleaned


def chunk_bytes() -> int:
    """Files larger than this go in chunks of this size (static/js/upload.js)."""
    return min(4 * 1024 * 1024, settings.UPLOAD_CHUNK_MAX_BYTES)


class FilesContentForm(forms.Form):
    title = forms.CharField(max_length=300, required=False)
    files = MultipleFileField()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["files"].widget.attrs["data-chunk-bytes"] = chunk_bytes()


class ZipContentForm(forms.Form):
    title = forms.CharField(max_length=300, required=False)
    archive = forms.FileField(label="Zip archive")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["archive"].widget.attrs["data-chunk-bytes"] = chunk_bytes()

    def clean_archive(self):
        archive = self.cleaned_data["archive"]
        if archive.size > settings.MAX_UPLOAD_BYTES:
            raise forms.ValidationError(
                f"The archive is too large (limit {settings.MAX_UPLOAD_BYTES:,} bytes)."
            )
        return archive


class GitContentForm(forms.Form):
    title = forms.CharField(max_length=300, required=False)
    repository = forms.CharField(max_length=2000, help_text="An https:// URL of a public repository.")

    def clean_repository(self):
        value = self.cleaned_data["repository"].strip()
        if value.startswith("-"):
            raise forms.ValidationError("That is not a repository URL.")
        return value


class UrlContentForm(forms.Form):
    url = forms.URLField(
        max_length=2000,
        assume_scheme="https",
        label="Web page URL",
        help_text="A web page, or a document: PDF, Word, OpenDocument, PowerPoint, Excel, EPUB or notebook.",
    )


class AskForm(forms.Form):
    text = forms.CharField(label="Question", widget=forms.Textarea(attrs={"rows": 3}), max_length=10_000)
    engine = EngineField(required=False)
    model = forms.RegexField(
        label="Model",
        required=False,
        max_length=100,
        strip=True,  # "sonnet\n" is "sonnet"; a control character inside is refused below
        regex=MODEL_PATTERN,
        error_messages={"invalid": "A model is a name such as sonnet or claude-sonnet-4-5."},
        help_text="For the Claude, Anthropic and OpenAI-compatible engines; blank uses the configured default.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # A session whose default engine cannot run here starts on the first one that can.
        unavailable = unavailable_engines()
        if self.initial.get("engine") in unavailable:
            usable = [name for name, _ in engine_choices() if name not in unavailable]
            self.initial["engine"] = usable[0] if usable else ""

    @property
    def default_model(self) -> str:
        return settings.CLAUDE_MODEL

    @property
    def model_choices(self) -> list[str]:
        return list(settings.CLAUDE_MODEL_CHOICES)

    @property
    def provider_models(self) -> list[dict]:
        """Each usable provider's models: its default, then those its server listed when tested."""
        return [
            {"label": provider.name, "models": provider.offered_models}
            for provider in EngineProvider.objects.all()
            if provider_availability(provider).available
        ]

    @property
    def offered_models(self) -> list[str]:
        return self.model_choices + [m for group in self.provider_models for m in group["models"]]

    @property
    def unavailable(self) -> dict[str, str]:
        return unavailable_engines()


class FollowUpForm(forms.Form):
    """A follow-up in a question's thread: asked of the same engine and model."""

    text = forms.CharField(
        label="Ask a follow-up", widget=forms.Textarea(attrs={"rows": 2}), max_length=10_000
    )


# The "Ask across content items" form: validation only; the work is in
# ``researchmind.runs.fanout``.

RESULT_TYPE_CHOICES = list(FANOUT_RESULT_TYPES.items())
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
