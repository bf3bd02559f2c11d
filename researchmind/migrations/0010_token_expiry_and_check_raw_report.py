import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("researchmind", "0009_engine_providers"),
    ]

    operations = [
        migrations.AddField(
            model_name="apitoken",
            name="expires_at",
            field=models.DateTimeField(blank=True, help_text="Refused from then on; never if empty.", null=True),
        ),
        migrations.AddField(
            model_name="apitoken",
            name="parent",
            field=models.ForeignKey(
                blank=True,
                editable=False,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="children",
                to="researchmind.apitoken",
            ),
        ),
        migrations.AddField(
            model_name="enginecheck",
            name="raw_report",
            field=models.JSONField(blank=True, default=dict),
        ),
    ]
