"""#31: the stores Holographic and ByteRover spaces shared are split into one per space (maintenance/store_split.py)."""

from django.conf import settings
from django.db import migrations


def forwards(apps, schema_editor):
    from memoryhub.memories.maintenance.store_split import split_shared_stores

    split_shared_stores(apps, settings.DATA_DIR)


class Migration(migrations.Migration):
    dependencies = [("memories", "0019_tasks_module"), ("spaces", "0005_workspace_export")]
    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
