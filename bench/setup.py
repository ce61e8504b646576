"""Start Django on a throwaway data directory so benchmarks never touch real data."""

import atexit
import os
import shutil
import tempfile


def django_on_temp_data(prefix: str = "memoryhub-bench-") -> str:
    data_dir = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, data_dir, ignore_errors=True)  # 100k entries and their vectors take GBs
    os.environ["MEMORYHUB_DATA_DIR"] = data_dir
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")
    os.environ["MEMORYHUB_Q_SYNC"] = "false"  # jobs queue for a worker, as in production
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    return data_dir
