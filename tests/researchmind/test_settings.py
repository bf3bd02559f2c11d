"""Settings come from the environment; production mode passes the deploy checks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_manage(*args, env_extra):
    env = {
        k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY")
    }
    env.update(env_extra)
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def settings_dump(env_extra, expr):
    code = (
        "import django, json; django.setup(); from django.conf import settings as s; "
        f"print(json.dumps({expr}, default=str))"
    )
    env = {
        k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY")
    }
    env.update({"DJANGO_SETTINGS_MODULE": "researchmind.settings", **env_extra})
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_production_mode_passes_check_deploy_with_nothing_silenced(tmp_path):
    """DEBUG off + a real secret: `check --deploy` reports zero issues and silences none."""
    result = run_manage(
        "check",
        "--deploy",
        env_extra={
            "DEBUG": "false",
            "SECRET_KEY": "x9!" + "k2Lm_Qz8" * 8,
            "ALLOWED_HOSTS": "research.example.com",
            "DATA_DIR": str(tmp_path),
        },
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


def test_production_mode_refuses_to_start_without_secret_key(tmp_path):
    """DEBUG off without SECRET_KEY is a clear configuration error, not a silent default."""
    result = run_manage("check", env_extra={"DEBUG": "false", "DATA_DIR": str(tmp_path)})
    assert result.returncode != 0
    assert "SECRET_KEY must be set when DEBUG is off." in result.stderr


def test_default_is_sqlite_and_in_memory_layer(tmp_path):
    """With nothing set: SQLite in the data folder, the in-memory channel layer, embedded runs."""
    data = settings_dump(
        {"DATA_DIR": str(tmp_path)},
        '[s.DATABASES["default"]["ENGINE"], s.DATABASES["default"]["NAME"], '
        's.CHANNEL_LAYERS["default"]["BACKEND"], s.RUN_EXECUTOR]',
    )
    assert data[0] == "django.db.backends.sqlite3"
    assert data[1].startswith(str(tmp_path))
    assert data[2] == "channels.layers.InMemoryChannelLayer"
    assert data[3] == "embedded"


def test_database_and_redis_urls_switch_to_postgres_redis_and_celery(tmp_path):
    """DATABASE_URL=postgres://… uses psycopg; REDIS_URL uses channels-redis with socket_timeout None."""
    data = settings_dump(
        {
            "DATA_DIR": str(tmp_path),
            "DATABASE_URL": "postgres://u@127.0.0.1:5432/test",
            "REDIS_URL": "redis://127.0.0.1:6379/3",
        },
        '[s.DATABASES["default"]["ENGINE"], s.DATABASES["default"]["NAME"], s.CHANNEL_LAYERS["default"], '
        "s.RUN_EXECUTOR, s.CELERY_BROKER_URL]",
    )
    assert data[0] == "django.db.backends.postgresql"
    assert data[1] == "test"
    assert data[2]["BACKEND"] == "channels_redis.core.RedisChannelLayer"
    assert data[2]["CONFIG"]["hosts"] == [{"address": "redis://127.0.0.1:6379/3", "socket_timeout": None}]
    assert data[3] == "celery"
    assert data[4] == "redis://127.0.0.1:6379/3"
