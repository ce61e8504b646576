"""#31: op log details and chat channels stored before they were redacted are redacted now
(maintenance/stored_fields.py)."""

from django.db import migrations


def forwards(apps, schema_editor):
    from memoryhub.memories.maintenance.stored_fields import redact_stored_fields

    redact_stored_fields(apps)


class Migration(migrations.Migration):
    dependencies = [("memories", "0020_provider_stores_per_space")]
    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
