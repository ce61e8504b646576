"""Every entry indexed again with the tokenizer that reads every script (Cyrillic, Greek, Arabic, Hebrew, Thai,
kana, Hangul: before, their words were dropped) and brings English past forms to their verb. SQLite's FTS5 table
is made anew so that marks count as parts of a token; PostgreSQL's vectors are written as literals."""

from django.db import migrations


def retokenize(apps, schema_editor):
    from memoryhub.memories.search import fulltext as search

    search.reindex_all(schema_editor.connection)


class Migration(migrations.Migration):
    dependencies = [("memories", "0022_provenance_and_space_copies")]
    operations = [migrations.RunPython(retokenize, migrations.RunPython.noop)]
