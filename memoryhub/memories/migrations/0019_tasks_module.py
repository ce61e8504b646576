"""memories/jobs.py became memories/tasks.py (beside the jobs app it was confused with): move the daily schedule."""

from django.db import migrations

OLD, NEW = "memoryhub.memories.jobs.daily_consolidation", "memoryhub.memories.tasks.daily_consolidation"


def forwards(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.filter(func=OLD).update(func=NEW)


def backwards(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.filter(func=NEW).update(func=OLD)


class Migration(migrations.Migration):
    dependencies = [("memories", "0018_keep_consolidation_as_it_was"),
                    ("django_q", "0019_alter_task_options_alter_ormq_key_alter_ormq_lock_and_more")]
    operations = [migrations.RunPython(forwards, backwards)]
