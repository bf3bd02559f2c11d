# An answer's citations are read in order from an index on (question, position), not sorted per page.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("citations", "0007_citation_found_by_api"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="citation",
            index=models.Index(fields=["question", "position"], name="citations_c_questio_f121f7_idx"),
        ),
    ]
