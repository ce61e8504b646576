"""Loaded with `-p tests.testenv` before pytest-django reads settings: a throwaway data dir, sync jobs."""

import os
import tempfile

os.environ.setdefault("MEMORYHUB_DATA_DIR", tempfile.mkdtemp(prefix="memoryhub-test-"))
os.environ.setdefault("MEMORYHUB_Q_SYNC", "true")
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
