"""The full-text index of entries (SQLite FTS5; PostgreSQL gets its own in the search module)."""

from django.db import migrations


def create_index(apps, schema_editor):
    from memoryhub.memories.search import fulltext as search

    search.create_index(schema_editor.connection)


def drop_index(apps, schema_editor):
    from memoryhub.memories.search import fulltext as search

    search.drop_index(schema_editor.connection)


class Migration(migrations.Migration):
    dependencies = [("memories", "0001_initial")]
    operations = [migrations.RunPython(create_index, drop_index)]
