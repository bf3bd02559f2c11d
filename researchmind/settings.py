"""Django settings for Research Mind, read from the environment.

Embedded default (nothing set): SQLite under ``data/``, the in-memory channel
layer and questions run inside the ASGI process. ``DATABASE_URL`` and
``REDIS_URL`` switch to PostgreSQL, channels-redis and Celery workers.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from core.engines.base import model_name
from core.ratelimit import RateError, parse_rate

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value.lower() in {"1", "true", "yes", "on"}:
        return True
    if value.lower() in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, not {value!r}.")


def env_list(name: str, default: str) -> list[str]:
    return [part.strip() for part in os.environ.get(name, default).split(",") if part.strip()]


def env_model(name: str, default: str = "") -> str:
    """A model name from the environment, by the one rule (``model_name``)."""
    try:
        return model_name(os.environ.get(name, "")) or default
    except ValueError as error:
        raise ImproperlyConfigured(f"{name}: {error}") from error


def generated_secret_key(data_dir: Path) -> str:
    """The key kept in ``DATA_DIR/secret_key``, made on first start (mode 0600).

    Every process on this machine reads the same file, so sessions survive a
    restart; several machines must share ``SECRET_KEY`` instead."""
    path = data_dir / "secret_key"
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    data_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(50)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it first: use theirs
        return path.read_text().strip()
    with os.fdopen(fd, "w") as handle:
        handle.write(key + "\n")
    return key


# Off unless asked for: an error shows the app's own page, never a traceback.
DEBUG = env_bool("DEBUG", False)
# Served over HTTPS (behind a proxy that terminates TLS): secure cookies, HSTS,
# SSL redirect. Off for `make run` on http://127.0.0.1.
HTTPS = env_bool("HTTPS", False)

DATA_DIR = Path(os.environ.get("DATA_DIR", BASE_DIR / "data"))
SECRET_KEY = os.environ.get("SECRET_KEY") or generated_secret_key(DATA_DIR)

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

SANDBOX_ROOT = Path(os.environ.get("SANDBOX_ROOT", DATA_DIR / "sandboxes"))
# The app's private state per session (built-in index, run logs, staging,
# engines' working files): never inside a sandbox, where an engine could read it.
STATE_ROOT = Path(os.environ.get("STATE_ROOT", DATA_DIR / "state"))

INSTALLED_APPS = [
    # daphne first: its runserver serves ASGI, so websockets work in development.
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "ninja",  # serves its Swagger UI files from our static folder
    "researchmind",
    "citations",
    "progress",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Static files from the app itself under plain daphne (no proxy needed).
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # Reads a posted form first, so one over the limits gets our 413, not Django's 400.
    "researchmind.middleware.RequestLimitsMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "researchmind.urls"
ASGI_APPLICATION = "researchmind.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.csp",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

_DATABASE_URL = os.environ.get("DATABASE_URL") or f"sqlite:///{DATA_DIR / 'researchmind.sqlite3'}"
DATABASES = {
    "default": dj_database_url.parse(
        _DATABASE_URL,
        # Each process keeps its connections open (checked before reuse): opening
        # one per database call cost a Celery worker a quarter of its time, and a
        # run's recorder (one database call per flush) 5-7 % of its ingestion time
        # on SQLite, whose every open also runs the PRAGMAs below. Every call from
        # async code (channels' database_sync_to_async) still closes connections
        # older than this.
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", 60)),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    Path(DATABASES["default"]["NAME"]).parent.mkdir(parents=True, exist_ok=True)
    # WAL and a busy timeout let the ASGI process, a management command and
    # the run executor write without "database is locked".
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # Redis pub/sub: one publish per event, received once per web
            # process and handed to its consumers there. The list-based layer
            # pushed one copy per consumer through Redis (200 pages: 200 per
            # event) and fell seconds behind (bench/perf/websocket_fanout.py). Nothing
            # is lost with it: the database holds every event and a page that
            # misses a notification catches up from there. Our subclass decodes
            # a message once per process and hands it to up-to-date pages at
            # once (progress/layers.py).
            "BACKEND": "progress.redislayer.BroadcastRedisPubSubChannelLayer",
            # redis-py 8 defaults to a socket timeout that kills idle
            # consumers with close code 1011; channels-redis needs None.
            "CONFIG": {"hosts": [{"address": REDIS_URL, "socket_timeout": None}]},
        }
    }
else:
    CHANNEL_LAYERS = {
        "default": {"BACKEND": "progress.layers.BroadcastInMemoryChannelLayer", "CONFIG": {"capacity": 5000}}
    }

# The cache: local memory in the embedded default (one web process); Redis in
# scale-out, so the API's rate counters and sessions kept there while the
# database's disk is full are seen by every web process.
if REDIS_URL:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
else:
    # Room for a counter per token and user seen in the last windows: Django's
    # default of 300 entries would let a spray of made-up tokens evict them.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "OPTIONS": {"MAX_ENTRIES": 50_000},
        }
    }

# The API's rate limits ("requests/seconds", or "off"): per token, and per user
# over all their tokens. A refused request gets a JSON 429 with Retry-After.
API_RATE_PER_TOKEN = os.environ.get("API_RATE_PER_TOKEN", "60/10s")
API_RATE_PER_USER = os.environ.get("API_RATE_PER_USER", "120/10s")
API_RATE_CACHE = os.environ.get("API_RATE_CACHE", "default")
for _rate in ("API_RATE_PER_TOKEN", "API_RATE_PER_USER"):
    try:
        parse_rate(globals()[_rate])
    except RateError as error:
        raise ImproperlyConfigured(f"{_rate}: {error}") from None

# Where questions run: "embedded" (inside the ASGI process) or "celery".
RUN_EXECUTOR = os.environ.get("RUN_EXECUTOR", "celery" if REDIS_URL else "embedded")
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", REDIS_URL or "memory://")
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "sessions"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Served straight from the app and package static folders (no collectstatic
# step); STATIC_ROOT only if a deployment sets it to collect into.
STATIC_ROOT = os.environ.get("STATIC_ROOT") or None
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

# A pasted text (UTF-8 bytes); a form's fields together may be a little more.
MAX_PASTE_BYTES = int(os.environ.get("MAX_PASTE_BYTES", 5 * 1024 * 1024))
DATA_UPLOAD_MAX_MEMORY_SIZE = 2 * MAX_PASTE_BYTES
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
MAX_UPLOAD_BYTES = int(os.environ.get("MAX_UPLOAD_BYTES", 200 * 1024 * 1024))
# Large files go in chunks (researchmind/uploads.py): one chunk is what a
# request holds, so a server's memory per upload stays bounded whatever the
# file's size. Unfinished uploads untouched this long are removed.
UPLOAD_CHUNK_MAX_BYTES = int(os.environ.get("UPLOAD_CHUNK_MAX_BYTES", 8 * 1024 * 1024))
UPLOAD_ABANDONED_SECONDS = float(os.environ.get("UPLOAD_ABANDONED_SECONDS", 6 * 3600))
UPLOAD_MAX_OPEN = int(os.environ.get("UPLOAD_MAX_OPEN", 32))
# A PDF with more pages is refused (its text would take long to extract and be too long to read).
DOCUMENT_MAX_PDF_PAGES = int(os.environ.get("DOCUMENT_MAX_PDF_PAGES", 2000))
# OCR of scanned PDF pages (tesseract): seconds per page, pages per document,
# seconds per document; a page over a limit is named in the item's note.
DOCUMENT_OCR_PAGE_TIMEOUT = float(os.environ.get("DOCUMENT_OCR_PAGE_TIMEOUT", 60))
DOCUMENT_OCR_MAX_PAGES = int(os.environ.get("DOCUMENT_OCR_MAX_PAGES", 50))
DOCUMENT_OCR_TIMEOUT = float(os.environ.get("DOCUMENT_OCR_TIMEOUT", 900))

# Engines
DEFAULT_ENGINE = os.environ.get("DEFAULT_ENGINE", "builtin")
CLAUDE_BIN = os.environ.get("CLAUDE_BIN", "")
CLAUDE_MPM_BIN = os.environ.get("CLAUDE_MPM_BIN", "")
ANTHROPIC_BASE_URL = os.environ.get("ANTHROPIC_BASE_URL", "")
ANTHROPIC_API_KEY = os.environ.get("ANTHROPIC_API_KEY", "")
ANTHROPIC_AUTH_TOKEN = os.environ.get("ANTHROPIC_AUTH_TOKEN", "")
# The model the Claude engines use unless a question names one (an alias such
# as sonnet/opus/haiku or a full model id); the CLI's own default is its most
# expensive model. CLAUDE_MPM_MODEL overrides it for claude-mpm.
CLAUDE_MODEL = env_model("CLAUDE_MODEL") or env_model("ANTHROPIC_MODEL") or "sonnet"
CLAUDE_MPM_MODEL = env_model("CLAUDE_MPM_MODEL")
CLAUDE_MODEL_CHOICES = [model_name(name) for name in env_list("CLAUDE_MODEL_CHOICES", "sonnet,opus,haiku")]
# Who judges whether a citation supports its sentence: "lexical" (offline, the
# default), "llm" (Claude Code, one extra request per answer, with
# SUPPORT_JUDGE_MODEL or else CLAUDE_MODEL) or "openai" (the OpenAI-compatible
# model of OPENAI_*, with SUPPORT_JUDGE_MODEL or else OPENAI_MODEL); the lexical
# label stays wherever the model gives none or cannot be asked.
SUPPORT_JUDGE = os.environ.get("SUPPORT_JUDGE", "lexical").strip().lower()
SUPPORT_JUDGE_MODEL = env_model("SUPPORT_JUDGE_MODEL")
# How the built-in engine's follow-ups are rewritten to stand alone: "lexical"
# (offline rules, the default) or "openai" (the OpenAI-compatible model of
# OPENAI_*, sent the thread, with FOLLOWUP_REWRITE_MODEL or else OPENAI_MODEL;
# the lexical rewrite stays when it fails).
FOLLOWUP_REWRITE = os.environ.get("FOLLOWUP_REWRITE", "lexical").strip().lower()
FOLLOWUP_REWRITE_MODEL = env_model("FOLLOWUP_REWRITE_MODEL")
# CLAUDE_CONFIG_DIR of a Claude Code that is logged in (claude /login): its
# login is copied into each run's own config folder.
CLAUDE_CONFIG_DIR = os.environ.get("CLAUDE_CONFIG_DIR", "")
# API retries per request for the Claude CLIs (429, overloaded, 5xx; their own default is
# 10, growing to minutes); a refused key is never retried: the run stops at the first 401.
CLAUDE_MAX_RETRIES = os.environ.get("CLAUDE_MAX_RETRIES", "5")
# The OpenAI-compatible engine ("openai"): any Chat Completions server with
# streaming. OPENAI_BASE_URL is the server's /v1 address (blank: OpenAI's own,
# which needs OPENAI_API_KEY; a local Ollama, vLLM or llama.cpp takes any key).
# The key is read here only, and never shown, logged or sent anywhere but there.
OPENAI_BASE_URL = os.environ.get("OPENAI_BASE_URL", "")
OPENAI_API_KEY = os.environ.get("OPENAI_API_KEY", "")
OPENAI_MODEL = env_model("OPENAI_MODEL")
# The model's context window in tokens: prompts are budgeted to it by the app
# (Ollama cuts a longer prompt silently, so the server is never relied on).
OPENAI_CONTEXT_LENGTH = int(os.environ.get("OPENAI_CONTEXT_LENGTH") or 0)  # 0: ask the model's server
# Tool calling: "on", "off" (retrieval mode: the app sends the passages) or
# "auto" (tools, unless the server says the model takes none).
OPENAI_TOOLS = os.environ.get("OPENAI_TOOLS", "auto").strip().lower()
OPENAI_MAX_TURNS = int(os.environ.get("OPENAI_MAX_TURNS", 12))  # requests per run
OPENAI_MAX_TOKENS = int(os.environ.get("OPENAI_MAX_TOKENS", 16000))  # tokens the model writes per run
OPENAI_TIMEOUT = float(os.environ.get("OPENAI_TIMEOUT", 300))  # seconds per run
OPENAI_MAX_RETRIES = int(os.environ.get("OPENAI_MAX_RETRIES", 3))  # of a 429/5xx, with backoff
OPENAI_RETRY_DELAY = float(os.environ.get("OPENAI_RETRY_DELAY", 1.0))  # the first retry's delay, doubling
# The Anthropic engine ("anthropic"): the Messages API called by the app, with
# ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL (blank: Anthropic's) and CLAUDE_MODEL;
# its citations are extracted by the API (docs/ENGINES.md, The Anthropic engine).
ANTHROPIC_MAX_TURNS = int(os.environ.get("ANTHROPIC_MAX_TURNS", 12))  # requests per run
ANTHROPIC_MAX_TOKENS = int(os.environ.get("ANTHROPIC_MAX_TOKENS", 16000))  # tokens the model writes per run
ANTHROPIC_THINKING_TOKENS = int(os.environ.get("ANTHROPIC_THINKING_TOKENS", 0))  # per reply; 0: no thinking
ANTHROPIC_TIMEOUT = float(os.environ.get("ANTHROPIC_TIMEOUT", 300))  # seconds per run
ANTHROPIC_MAX_RETRIES = int(os.environ.get("ANTHROPIC_MAX_RETRIES", 3))  # of a 429/529/5xx, with backoff
ANTHROPIC_RETRY_DELAY = float(os.environ.get("ANTHROPIC_RETRY_DELAY", 1.0))  # first retry's delay, doubling
ENGINE_IDLE_TIMEOUT = float(os.environ.get("ENGINE_IDLE_TIMEOUT", 300))
ENGINE_TIMEOUT = float(os.environ.get("ENGINE_TIMEOUT", 1800))
# The longest gap allowed between a run's events: heartbeats fill silences (researchmind/runs/heartbeat.py).
HEARTBEAT_SECONDS = float(os.environ.get("HEARTBEAT_SECONDS", 2.0))
# An engine test from the Engines page stops when its page has not polled it for this long.
ENGINE_TEST_ABANDON_SECONDS = float(os.environ.get("ENGINE_TEST_ABANDON_SECONDS", 15))
# Deleting a session first stops its running questions and waits this long
# for them to end (a cancel is seen within half a second; the engine is then
# forced within its cancel graces).
RUN_STOP_WAIT_SECONDS = float(os.environ.get("RUN_STOP_WAIT_SECONDS", 15.0))

# Where content is added in the embedded default: a pool of INGEST_WORKERS in the
# web process ("thread" or "process", docs/ARCHITECTURE.md says why the default);
# more ingests wait in its queue ("Queued"). With RUN_EXECUTOR=celery the workers add it.
INGEST_WORKERS = int(os.environ.get("INGEST_WORKERS", 2))
INGEST_POOL = os.environ.get("INGEST_POOL", "process")
# How much a pool process steps back for the web process (os.nice; 0 keeps its priority).
INGEST_NICE = int(os.environ.get("INGEST_NICE", 10))
if INGEST_POOL not in {"thread", "process"}:
    raise ImproperlyConfigured(f"INGEST_POOL must be 'thread' or 'process', not {INGEST_POOL!r}.")

# Ingestion: tests set this to scrape a local HTTP server on 127.0.0.1.
INGEST_ALLOW_LOOPBACK = env_bool("INGEST_ALLOW_LOOPBACK", False)
# Cloning a repository by its path on the server, from the web forms.
INGEST_ALLOW_LOCAL_GIT = env_bool("INGEST_ALLOW_LOCAL_GIT", False)

# Security. Content Security Policy: scripts only from us (htmx is served
# from static by django-htmx), no inline script without the nonce.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF],
}
# Sessions in the database, kept in the cache only while its disk is full (researchmind/signin.py).
SESSION_ENGINE = "researchmind.signin"
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # htmx reads nothing from it; the token is in the page.
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
if HTTPS:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", 31536000))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
    "loggers": {"researchmind": {"level": os.environ.get("LOG_LEVEL", "INFO")}},
}
