"""Provider secrets: a 0600 file written atomically, and never in the database, admin, logs, pages, jobs or exports."""

from __future__ import annotations

import io
import json
import logging
import os
import stat

import pytest
from django.core.management import call_command
from django.urls import reverse

from memoryhub.jobs import runner
from memoryhub.jobs.models import Job
from memoryhub.spaces import secrets
from memoryhub.spaces.models import MemorySpace, ProviderService
from tests.conftest import make_api
from tests.providers.fakes.openviking import FakeOpenViking

pytestmark = pytest.mark.django_db

KEY = "key-alice"  # the fake OpenViking's user key: the secret under test


@pytest.fixture(autouse=True)
def secrets_file(settings, tmp_path):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "SECRETS_FILE": tmp_path / "state" / "memory-providers.json"}
    return secrets.path()


@pytest.fixture
def viking():
    server = FakeOpenViking()
    yield server
    server.stop()


@pytest.fixture
def saved(client, staff, viking):
    """OpenViking configured through the dashboard with KEY as its API key."""
    r = client.post(reverse("dashboard:provider_save", args=["openviking"]),
                    {"endpoint": viking.url, "apiKey": KEY, "account": "acme", "discoveryUser": "alice"})
    assert r.status_code == 302 and secrets.for_kind("openviking")["apiKey"] == KEY
    return viking


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_secrets_file_is_private(secrets_file):
    secrets.save("honcho", {"apiKey": "s3cret"})
    assert mode(secrets_file) == 0o600
    assert json.loads(secrets_file.read_text()) == {"honcho": {"apiKey": "s3cret"}}


def test_ensure_admin_fixes_a_loosened_secrets_file(secrets_file):
    secrets.save("honcho", {"apiKey": "s3cret"})
    os.chmod(secrets_file, 0o644)
    out = io.StringIO()
    call_command("ensure_admin", stdout=out)
    assert mode(secrets_file) == 0o600 and "0600" in out.getvalue()


def test_a_failed_write_leaves_the_old_file_whole_and_no_temp_files(secrets_file):
    secrets.save("honcho", {"apiKey": "old"})
    before = secrets_file.read_text()
    with pytest.raises(TypeError):
        secrets.save("mem0", {"apiKey": object()})  # not JSON: the dump fails half-way
    assert secrets_file.read_text() == before
    assert os.listdir(secrets_file.parent) == [secrets_file.name]


def test_secret_is_not_in_the_database_dump(saved):
    out = io.StringIO()
    call_command("dumpdata", stdout=out)
    dump = out.getvalue()
    assert '"kind": "openviking"' in dump and KEY not in dump


def test_secret_is_not_in_the_admin(client, saved, django_user_model):
    root = django_user_model.objects.create_superuser("root", password="pw")
    client.force_login(root)
    service = ProviderService.objects.get(kind="openviking")
    for url in ("/admin/spaces/providerservice/", f"/admin/spaces/providerservice/{service.pk}/change/"):
        page = client.get(url)
        assert page.status_code == 200 and KEY not in page.content.decode()


def test_secret_is_not_in_the_providers_page_or_api_listing(client, saved):
    html = client.get(reverse("dashboard:providers")).content.decode()
    assert "configured" in html and KEY not in html
    listing = make_api(client).get("providers").content.decode()
    assert "openviking" in listing and KEY not in listing


def test_secret_is_not_logged_on_save_or_failing_test_connection(client, staff, viking, caplog):
    caplog.set_level(logging.DEBUG)
    client.post(reverse("dashboard:provider_save", args=["openviking"]),
                {"endpoint": viking.url, "apiKey": KEY, "account": "acme", "discoveryUser": "alice"})
    viking.keys.pop(KEY)  # the provider now refuses the key
    r = client.post(reverse("dashboard:provider_test", args=["openviking"]), headers={"HX-Request": "true"})
    assert "Connection failed" in r.content.decode()
    client.post(reverse("dashboard:provider_save", args=["openviking"]),
                {"endpoint": viking.url, "apiKey": KEY, "account": "acme", "discoveryUser": "alice"})
    assert caplog.records and KEY not in caplog.text
    assert KEY not in ProviderService.objects.get(kind="openviking").last_error


def test_secret_is_not_in_job_rows_or_space_errors(client, saved):
    space = MemorySpace.objects.create(slug="ov", name="ov", provider="openviking",
                                       config={"targetUri": "viking://user/alice/memories"})
    saved.keys.pop(KEY)
    make_api(client, spaces=[space]).tool("memory_search", query="anything", space="ov")
    runner.enqueue("selftest")
    runner.enqueue("persona_rebuild", space=space)
    rows = json.dumps(list(Job.objects.values("result", "error", "message", "params")), default=str)
    assert Job.objects.count() == 2 and KEY not in rows
    space.refresh_from_db()
    assert KEY not in space.last_error
