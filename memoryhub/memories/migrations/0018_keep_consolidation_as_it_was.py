"""Daily consolidation is on by default now (seed 003: autoConsolidate: true); spaces already in use keep theirs.

Before, it was off unless MEMORYHUB_AUTO_CONSOLIDATE said otherwise. A native space that already holds memories
and has no autoConsolidate of its own gets `false` written into its settings, so an upgrade archives nothing
nobody asked for; a person turns it on on the space's Settings tab. Where the environment had switched it on
for every space, nothing changes. New spaces, and spaces still empty, follow the new default.
"""

import os

from django.db import migrations

WAS_ON = ("1", "true", "yes", "on")


def keep_it_off_where_it_was_off(apps, schema_editor):
    if os.environ.get("MEMORYHUB_AUTO_CONSOLIDATE", "false").strip().lower() in WAS_ON:
        return
    MemorySpace = apps.get_model("spaces", "MemorySpace")
    Entry = apps.get_model("memories", "Entry")
    for space in MemorySpace.objects.filter(provider="native").iterator():
        settings = dict(space.settings or {})
        if "autoConsolidate" in settings or not Entry.objects.filter(space_id=space.pk).exists():
            continue
        settings["autoConsolidate"] = False
        MemorySpace.objects.filter(pk=space.pk).update(settings=settings)


class Migration(migrations.Migration):

    dependencies = [
        ("memories", "0017_entry_chat"),
    ]

    operations = [
        migrations.RunPython(keep_it_off_where_it_was_off, migrations.RunPython.noop),
    ]
