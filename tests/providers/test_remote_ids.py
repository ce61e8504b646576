"""#22 part 3 at the hub: every id the API hands out for a third-party space reads back with memory_recall
(async write ids resolved hub-side, once), or the answer is 422 unsupported where the provider has no `get`."""

from __future__ import annotations

import os

import pytest

from memoryhub.memories.models import RemoteWrite
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.provider_services import save_service
from tests.providers.fakes.hindsight import FakeHindsight
from tests.providers.fakes.mem0 import Mem0Fake

BRV = os.path.join(os.path.dirname(__file__), "fakes", "brv")


@pytest.fixture(autouse=True)
def secrets_file(settings, tmp_path):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "SECRETS_FILE": tmp_path / "state" / "memory-providers.json"}


@pytest.fixture
def mem0(db):
    fake = Mem0Fake()
    fake.defer = True
    save_service("mem0", {"endpoint": fake.url, "apiKey": fake.api_key, "mode": "platform"})
    MemorySpace.objects.create(slug="m0", name="Mem0", provider="mem0", config={"userId": "alice"})
    yield fake
    fake.stop()


def test_a_mem0_write_id_resolves_once_extracted_and_the_mapping_is_kept(api, mem0):
    saved = api.tool("memory_save", category="preference", title="tea", body="Alice drinks oolong", space="m0")
    write_id = saved.json()["result"]["id"]
    assert write_id.startswith("m0:") and write_id != "m0:"
    early = api.tool("memory_recall", id=write_id)
    assert early.status_code == 502 and "still processing" in early.json()["error"]["message"]
    mem0.process()
    recalled = api.tool("memory_recall", id=write_id).json()["result"]
    assert recalled["body"] == "Alice drinks oolong" and recalled["id"] == write_id
    [memory_id] = RemoteWrite.objects.get().detail["record_ids"]
    events = sum(1 for r in mem0.log if r.path.startswith("/v1/event/"))
    assert api.tool("memory_recall", id=write_id).status_code == 200
    assert sum(1 for r in mem0.log if r.path.startswith("/v1/event/")) == events, "the mapping is asked once"
    hit = api.tool("memory_search", query="oolong", space="m0").json()["result"]["results"][0]
    assert hit["id"] == f"m0:{memory_id}" and hit["summary"] == "Alice drinks oolong"
    assert api.tool("memory_recall", id=hit["id"]).json()["result"]["body"] == "Alice drinks oolong"
    assert api.tool("memory_forget", id=write_id).json()["result"]["status"] == "forgotten"
    assert memory_id not in mem0.memories


def test_a_hindsight_write_id_resolves_to_its_memory_unit(api, db):
    fake = FakeHindsight()
    try:
        save_service("hindsight", {"endpoint": fake.url, "apiKey": fake.api_key})
        MemorySpace.objects.create(slug="hs", name="hs", provider="hindsight", config={"bankId": "demo"})
        saved = api.tool("memory_save", category="fact", title="db", body="Production runs PostgreSQL 16", space="hs")
        write_id = saved.json()["result"]["id"]
        assert write_id.startswith("hs:memoryhub-")
        assert api.tool("memory_recall", id=write_id).json()["result"]["body"] == "Production runs PostgreSQL 16"
    finally:
        fake.stop()


def test_recall_in_a_space_without_get_is_unsupported(api, db, tmp_path):
    save_service("byterover", {"cliPath": BRV, "defaultDirectory": str(tmp_path)})
    MemorySpace.objects.create(slug="brv", name="brv", provider="byterover", config={})
    r = api.tool("memory_recall", id="brv:brv-query:0123456789abcdef")
    assert r.status_code == 422 and r.json()["error"]["code"] == "unsupported"
