"""Every hub starts with one native space, the global default."""

from django.db import migrations


def create_default(apps, schema_editor):
    MemorySpace = apps.get_model("spaces", "MemorySpace")
    MemorySpace.objects.get_or_create(
        slug="default",
        defaults={"name": "Default", "provider": "native", "is_default": True,
                  "description": "The hub's global native space."},
    )


class Migration(migrations.Migration):
    dependencies = [("spaces", "0001_initial")]
    operations = [migrations.RunPython(create_default, migrations.RunPython.noop)]
