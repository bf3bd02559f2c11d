"""Move each session's private state (built-in index, run logs, staging,
spooled uploads) out of ``<sandbox>/.researchmind/`` into its state folder
``STATE_ROOT/<session id>``: an engine reads everything in its sandbox,
hidden folders included. Files only; the database does not change."""

from pathlib import Path

from django.conf import settings
from django.db import migrations

from core.sandbox import move_legacy_state


def move_private_state(apps, schema_editor):
    ResearchSession = apps.get_model("researchmind", "ResearchSession")
    sandbox_root = Path(settings.SANDBOX_ROOT)
    state_root = Path(settings.STATE_ROOT)
    sessions = ResearchSession.objects.using(schema_editor.connection.alias)
    for session_id in sessions.values_list("id", flat=True).iterator():
        move_legacy_state(sandbox_root / str(session_id), state_root / str(session_id))


class Migration(migrations.Migration):
    dependencies = [
        ("researchmind", "0001_initial"),
    ]

    operations = [
        migrations.RunPython(move_private_state, migrations.RunPython.noop, elidable=True),
    ]
