"""PostgreSQL's table of frequent-word counts (created with its full-text index) and the schedule that refreshes it."""

from django.db import migrations

NAME = "memoryhub-recount-words"


def create(apps, schema_editor):
    from memoryhub.memories.search import fulltext as search

    search.create_index(schema_editor.connection)  # idempotent: adds what an older index lacks
    apps.get_model("django_q", "Schedule").objects.update_or_create(
        name=NAME, defaults={"func": "memoryhub.memories.search.fulltext.recount_words", "schedule_type": "I", "minutes": 5,
                             "repeats": -1})


def drop(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.filter(name=NAME).delete()


class Migration(migrations.Migration):
    dependencies = [("memories", "0010_enrich_sweep_schedule")]
    operations = [migrations.RunPython(create, drop)]
