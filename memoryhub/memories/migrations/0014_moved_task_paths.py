"""The sweeps' modules moved into memories' sub-packages: point their schedules at the new paths."""

from django.db import migrations

MOVED = {
    "memoryhub.memories.enrich.sweep": "memoryhub.memories.growth.enrich.sweep",
    "memoryhub.memories.search.recount_words": "memoryhub.memories.search.fulltext.recount_words",
    "memoryhub.memories.vectors.sweep": "memoryhub.memories.search.vectors.sweep",
}


def forwards(apps, schema_editor):
    schedule = apps.get_model("django_q", "Schedule")
    for old, new in MOVED.items():
        schedule.objects.filter(func=old).update(func=new)


def backwards(apps, schema_editor):
    schedule = apps.get_model("django_q", "Schedule")
    for old, new in MOVED.items():
        schedule.objects.filter(func=new).update(func=old)


class Migration(migrations.Migration):
    dependencies = [("memories", "0013_gin_pending_list"), ("django_q", "0019_alter_task_options_alter_ormq_key_alter_ormq_lock_and_more")]
    operations = [migrations.RunPython(forwards, backwards)]
