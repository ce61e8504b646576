"""Test setup: a throwaway data dir before Django's settings load, sync django-q2 tasks."""

import os
import tempfile

os.environ.setdefault("MEMORYHUB_DATA_DIR", tempfile.mkdtemp(prefix="memoryhub-test-"))
os.environ.setdefault("MEMORYHUB_Q_SYNC", "true")
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
