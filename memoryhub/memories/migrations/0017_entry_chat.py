"""Entries keep the bridged chat a turn came from; entries already tagged `test` become test entries."""

from django.db import migrations, models


def mark_test_entries(apps, schema_editor):
    """Entry.is_test follows the tag from now on; before, nothing set it."""
    Entry = apps.get_model("memories", "Entry")
    tagged = [pk for pk, tags in Entry.objects.filter(tags__icontains='"test"').values_list("pk", "tags").iterator()
              if "test" in (tags or [])]
    for start in range(0, len(tagged), 500):
        Entry.objects.filter(pk__in=tagged[start:start + 500]).update(is_test=True)


class Migration(migrations.Migration):

    dependencies = [
        ("memories", "0016_origins"),
    ]

    operations = [
        migrations.AddField(
            model_name="entry",
            name="chat",
            field=models.JSONField(blank=True, default=dict,
                                   help_text="The bridged chat the turn came from (channels.py)."),
        ),
        migrations.RunPython(mark_test_entries, migrations.RunPython.noop),
    ]
