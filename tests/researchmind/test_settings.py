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
    """Served over HTTPS with a real secret: `check --deploy` reports zero issues and silences none."""
    result = run_manage(
        "check",
        "--deploy",
        env_extra={
            "HTTPS": "true",
            "SECRET_KEY": "x9!" + "k2Lm_Qz8" * 8,
            "ALLOWED_HOSTS": "research.example.com",
            "DATA_DIR": str(tmp_path),
        },
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


def test_debug_is_off_unless_asked_for(tmp_path):
    """Nothing set: DEBUG off (errors show the app's pages) and no HTTPS-only cookies,
    so `make run` works on http://127.0.0.1; DEBUG=true still turns it on."""
    off = settings_dump({"DATA_DIR": str(tmp_path)}, "[s.DEBUG, s.SESSION_COOKIE_SECURE, s.ALLOWED_HOSTS]")
    assert off == [False, False, ["127.0.0.1", "localhost", "[::1]"]]
    assert settings_dump({"DATA_DIR": str(tmp_path), "DEBUG": "true"}, "s.DEBUG") is True


def test_without_secret_key_one_is_generated_and_kept(tmp_path):
    """No SECRET_KEY: a random key is written to DATA_DIR/secret_key (owner-only)
    on first start and read by every later process, so sign-ins survive restarts."""
    first = settings_dump({"DATA_DIR": str(tmp_path)}, "s.SECRET_KEY")
    second = settings_dump({"DATA_DIR": str(tmp_path)}, "s.SECRET_KEY")
    other = settings_dump({"DATA_DIR": str(tmp_path / "other")}, "s.SECRET_KEY")
    assert first == second != other
    assert len(first) >= 50
    assert (tmp_path / "secret_key").stat().st_mode & 0o777 == 0o600
    assert settings_dump({"DATA_DIR": str(tmp_path), "SECRET_KEY": "given-" + "k" * 50}, "s.SECRET_KEY") == (
        "given-" + "k" * 50
    )


def test_generated_key_passes_the_deploy_check(tmp_path):
    """The generated key is strong enough for `check --deploy`'s key check."""
    result = run_manage("check", "--deploy", env_extra={"HTTPS": "true", "DATA_DIR": str(tmp_path)})
    assert "security.W009" not in result.stdout + result.stderr


def test_default_is_sqlite_and_in_memory_layer(tmp_path):
    """With nothing set: SQLite in the data folder, the in-memory channel layer, embedded runs."""
    data = settings_dump(
        {"DATA_DIR": str(tmp_path)},
        '[s.DATABASES["default"]["ENGINE"], s.DATABASES["default"]["NAME"], '
        's.CHANNEL_LAYERS["default"]["BACKEND"], s.RUN_EXECUTOR]',
    )
    assert data[0] == "django.db.backends.sqlite3"
    assert data[1].startswith(str(tmp_path))
    assert data[2] == "progress.layers.BroadcastInMemoryChannelLayer"
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
    # channels-redis pub/sub
    assert data[2]["BACKEND"] == "progress.redislayer.BroadcastRedisPubSubChannelLayer"
    assert data[2]["CONFIG"]["hosts"] == [{"address": "redis://127.0.0.1:6379/3", "socket_timeout": None}]
    assert data[3] == "celery"
    assert data[4] == "redis://127.0.0.1:6379/3"
