"""Entry embeddings (vectors.py): the table, pgvector's column where PostgreSQL has the extension, and the sweep."""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


SWEEP = "memoryhub-embed-sweep"


def add_pgvector_and_sweep(apps, schema_editor):
    from memoryhub.memories.search import pgvectors

    pgvectors.add_column(schema_editor.connection)
    apps.get_model("django_q", "Schedule").objects.update_or_create(
        name=SWEEP, defaults={"func": "memoryhub.memories.search.vectors.sweep", "schedule_type": "I", "minutes": 5,
                              "repeats": -1})


def drop_sweep(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.filter(name=SWEEP).delete()


class Migration(migrations.Migration):

    dependencies = [
        ('memories', '0011_term_stats'),
        ('spaces', '0004_space_enrich_queue'),
    ]

    operations = [
        migrations.CreateModel(
            name='EntryVector',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('model', models.CharField(max_length=200)),
                ('dims', models.PositiveSmallIntegerField()),
                ('data', models.BinaryField()),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('entry', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='vector', to='memories.entry')),
                ('space', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='spaces.memoryspace')),
            ],
            options={
                'indexes': [models.Index(fields=['space', 'model', 'id'], name='entryvector_space_model')],
            },
        ),
        migrations.RunPython(add_pgvector_and_sweep, drop_sweep),
    ]
