"""PostgreSQL: a short GIN pending list for the full-text index (pgsearch.PENDING_LIST_KB); SQLite: nothing."""

from django.db import migrations


def shorten(apps, schema_editor):
    from memoryhub.memories.search import fulltext as search

    search.create_index(schema_editor.connection)  # idempotent: sets what an older index lacks


class Migration(migrations.Migration):
    dependencies = [("memories", "0012_entry_vectors")]
    operations = [migrations.RunPython(shorten, migrations.RunPython.noop)]
