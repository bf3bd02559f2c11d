"""Move each web page's original bytes and source.json out of its content
folder (where engines searched and quoted the markup) into the session's
state folder, ``STATE_ROOT/<session>/originals/<item>/``. Files only."""

import shutil
from pathlib import Path

from django.conf import settings
from django.db import migrations

PROVENANCE = ("original.html", "original.txt", "original.md", "source.json")


def move_originals(apps, schema_editor):
    ContentItem = apps.get_model("researchmind", "ContentItem")
    items = ContentItem.objects.using(schema_editor.connection.alias).filter(kind="url_scrape")
    for item_id, session_id in items.values_list("id", "session_id").iterator():
        folder = Path(settings.SANDBOX_ROOT) / str(session_id) / str(item_id)
        kept = Path(settings.STATE_ROOT) / str(session_id) / "originals" / str(item_id)
        for name in PROVENANCE:
            source = folder / name
            if source.is_file() and not source.is_symlink():
                kept.mkdir(parents=True, exist_ok=True)
                shutil.move(str(source), str(kept / name))


class Migration(migrations.Migration):
    dependencies = [
        ("researchmind", "0003_question_model"),
    ]

    operations = [
        migrations.RunPython(move_originals, migrations.RunPython.noop, elidable=True),
    ]
