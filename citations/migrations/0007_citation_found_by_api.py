# Citations extracted by Anthropic's Messages API (core/engines/anthropic/) are stored as found_by="api".

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('citations', '0006_citation_found_by_attached'),
    ]

    operations = [
        migrations.AlterField(
            model_name='citation',
            name='found_by',
            field=models.CharField(choices=[('citations_block', 'CITATIONS block'), ('backtick_path', 'Backtick path'), ('sources_section', 'Sources section'), ('file_line', 'file:line'), ('web_source', 'Web source'), ('attached', 'Attached by the app'), ('api', 'Extracted by the API')], max_length=20),
        ),
    ]
