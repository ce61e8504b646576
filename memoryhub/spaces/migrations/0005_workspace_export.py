
"""Workspaces remember who named them and write MEMORY.md only once a person switches export on (#21).

Existing workspaces were all named by agents, so their export starts off: a person switches it on
per workspace on the Workspaces page.
"""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('spaces', '0004_space_enrich_queue'),
    ]

    operations = [
        migrations.AddField(
            model_name='workspace',
            name='created_by',
            field=models.CharField(blank=True, help_text="Who first named it (an agent's token, or hub).", max_length=200),
        ),
        migrations.AddField(
            model_name='workspace',
            name='export_memory_md',
            field=models.BooleanField(default=False, help_text='Write MEMORY.md into the directory. Off until a person switches it on: an agent naming a path must not make the hub write files there.'),
        ),
    ]
