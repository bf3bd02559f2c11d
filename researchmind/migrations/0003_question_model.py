from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("researchmind", "0002_move_private_state"),
    ]

    operations = [
        migrations.AddField(
            model_name="question",
            name="model",
            field=models.CharField(
                blank=True,
                help_text="The model the engine was asked to use (blank: the engine's default).",
                max_length=100,
            ),
        ),
    ]
