"""Loaded with `-p tests.testenv` before pytest-django reads settings: a throwaway data dir (removed when
pytest exits), sync jobs."""

import atexit
import os
import shutil
import tempfile

if "MEMORYHUB_DATA_DIR" not in os.environ:
    os.environ["MEMORYHUB_DATA_DIR"] = tempfile.mkdtemp(prefix="memoryhub-test-")
    atexit.register(shutil.rmtree, os.environ["MEMORYHUB_DATA_DIR"], ignore_errors=True)
os.environ.setdefault("MEMORYHUB_Q_SYNC", "true")
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
