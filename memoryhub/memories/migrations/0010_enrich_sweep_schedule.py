"""The minute sweep that enriches entries whose queued run was lost (idempotent by name)."""

from django.db import migrations

NAME = "memoryhub-enrich-sweep"


def create_schedule(apps, schema_editor):
    Schedule = apps.get_model("django_q", "Schedule")
    Schedule.objects.update_or_create(
        name=NAME, defaults={"func": "memoryhub.memories.growth.enrich.sweep", "schedule_type": "I", "minutes": 1,
                             "repeats": -1})


def drop_schedule(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.filter(name=NAME).delete()


class Migration(migrations.Migration):
    dependencies = [("memories", "0009_entry_enrich_pending"), ("django_q", "0019_alter_task_options_alter_ormq_key_alter_ormq_lock_and_more")]
    operations = [migrations.RunPython(create_schedule, drop_schedule)]
