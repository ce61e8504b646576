"""The minute sweep that sends again the jobs whose hand-off to the worker failed (the broker was down)."""

from django.db import migrations

NAME = "memoryhub-dispatch-lost"


def create_schedule(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.update_or_create(
        name=NAME, defaults={"func": "memoryhub.jobs.runner.dispatch_lost", "schedule_type": "I", "minutes": 1,
                             "repeats": -1})


def drop_schedule(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.filter(name=NAME).delete()


class Migration(migrations.Migration):
    dependencies = [("jobs", "0004_job_cancel"),
                    ("django_q", "0019_alter_task_options_alter_ormq_key_alter_ormq_lock_and_more")]
    operations = [migrations.RunPython(create_schedule, drop_schedule)]
