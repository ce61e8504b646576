"""Per-origin keeping (issue #21): idempotency keys, topics and personas per origin; remote records' origins.

Existing data is local, as seed 003 says of untagged data, with two exceptions read from the rows:
a topic holding turns of several origins is dissolved (its turns wait for the worker to group them
again, each origin apart, so no title mixes them), and each id a third-party write got keeps the
origin of the write.
"""

import django.db.models.deletion
from django.db import migrations, models


def dissolve_mixed_topics(apps, schema_editor):
    Entry, Topic = apps.get_model("memories", "Entry"), apps.get_model("memories", "Topic")
    origins: dict[int, set[str]] = {}
    for topic_id, origin in Entry.objects.filter(topic__isnull=False).values_list("topic_id", "origin").distinct():
        origins.setdefault(topic_id, set()).add(origin)
    mixed = [topic_id for topic_id, found in origins.items() if len(found) > 1]
    for start in range(0, len(mixed), 500):
        chunk = mixed[start:start + 500]
        Entry.objects.filter(topic_id__in=chunk).update(topic=None, enrich_pending=True)
        Topic.objects.filter(pk__in=chunk).delete()
    single = {topic_id: next(iter(found)) for topic_id, found in origins.items() if len(found) == 1}
    for origin in set(single.values()) - {"local"}:
        ids = [topic_id for topic_id, o in single.items() if o == origin]
        for start in range(0, len(ids), 500):
            Topic.objects.filter(pk__in=ids[start:start + 500]).update(origin=origin)


def remember_remote_origins(apps, schema_editor):
    RemoteWrite, RemoteRecord = apps.get_model("memories", "RemoteWrite"), apps.get_model("memories", "RemoteRecord")
    rows = {}
    for write in RemoteWrite.objects.exclude(state="failed").order_by("id").iterator():
        detail = write.detail if isinstance(write.detail, dict) else {}
        for record_id in [write.provider_id or write.uri, *map(str, detail.get("record_ids") or [])]:
            if record_id and (write.space_id, record_id) not in rows:
                rows[(write.space_id, record_id)] = RemoteRecord(space_id=write.space_id, record_id=record_id[:500],
                                                                 origin=write.origin, write_id=write.pk)
    RemoteRecord.objects.bulk_create(rows.values(), batch_size=500, ignore_conflicts=True)


class Migration(migrations.Migration):

    dependencies = [
        ('memories', '0015_oplog_seq'),
        ('spaces', '0004_space_enrich_queue'),
    ]

    operations = [
        migrations.CreateModel(
            name='RemoteRecord',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('record_id', models.CharField(max_length=500)),
                ('origin', models.CharField(max_length=60)),
            ],
        ),
        migrations.RemoveConstraint(
            model_name='entry',
            name='entry_unique_idempotency_key',
        ),
        migrations.RemoveIndex(
            model_name='entry',
            name='entry_space_idempotency',
        ),
        migrations.AddField(
            model_name='persona',
            name='origin',
            field=models.CharField(default='local', max_length=60),
        ),
        migrations.AddField(
            model_name='topic',
            name='origin',
            field=models.CharField(default='local', max_length=60),
        ),
        migrations.AlterField(
            model_name='persona',
            name='space',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='personas', to='spaces.memoryspace'),
        ),
        migrations.AddIndex(
            model_name='entry',
            index=models.Index(fields=['space', 'origin', 'idempotency_key'], name='entry_space_origin_idempotency'),
        ),
        migrations.AddConstraint(
            model_name='entry',
            constraint=models.UniqueConstraint(condition=models.Q(('idempotency_key', ''), _negated=True), fields=('space', 'origin', 'idempotency_key'), name='entry_unique_origin_idempotency_key'),
        ),
        migrations.AddConstraint(
            model_name='persona',
            constraint=models.UniqueConstraint(fields=('space', 'origin'), name='persona_unique_origin'),
        ),
        migrations.AddField(
            model_name='remoterecord',
            name='space',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='spaces.memoryspace'),
        ),
        migrations.AddField(
            model_name='remoterecord',
            name='write',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='records', to='memories.remotewrite'),
        ),
        migrations.AddConstraint(
            model_name='remoterecord',
            constraint=models.UniqueConstraint(fields=('space', 'record_id'), name='remoterecord_unique_id'),
        ),
        migrations.RunPython(dissolve_mixed_topics, migrations.RunPython.noop),
        migrations.RunPython(remember_remote_origins, migrations.RunPython.noop),
    ]
