"""#22 part 4: each fake answers the vendor's documented shape and nothing more.

`tests/providers/fixtures/<vendor>.json` holds examples recorded from the vendor's documentation (its `source`
names the page or OpenAPI file). A field a fake sends that the documented example does not have fails here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.providers.fakes.hindsight import FakeHindsight
from tests.providers.fakes.honcho import HonchoFake
from tests.providers.fakes.mem0 import Mem0Fake
from tests.providers.fakes.retaindb import RetainDBFake
from tests.providers.fakes.supermemory import SupermemoryFake

FIXTURES = Path(__file__).parent / "fixtures"


def documented(vendor: str, name: str) -> Any:
    data = json.loads((FIXTURES / f"{vendor}.json").read_text())
    assert data["source"], "every fixture names the documentation it was recorded from"
    return data["examples"][name]


def undocumented(actual: Any, example: Any, path: str = "$") -> list[str]:
    """Paths of fields in `actual` that the documented `example` does not have (lists: each item vs the first)."""
    if isinstance(actual, dict) and isinstance(example, dict):
        extra = [f"{path}.{key}" for key in actual if key not in example]
        return extra + [p for key in actual if key in example
                        for p in undocumented(actual[key], example[key], f"{path}.{key}")]
    if isinstance(actual, list) and isinstance(example, list) and example:
        return [p for i, item in enumerate(actual) for p in undocumented(item, example[0], f"{path}[{i}]")]
    return []


def test_the_checker_catches_an_extra_field():
    assert undocumented({"a": 1, "b": [{"c": 1, "d": 2}]}, {"a": 0, "b": [{"c": 0}]}) == ["$.b[0].d"]


@pytest.fixture
def served():
    servers = []

    def start(cls):
        servers.append(cls())
        return servers[-1]

    yield start
    for server in servers:
        server.stop()


def call(fake, method: str, path: str, headers: dict, **kw) -> Any:
    response = httpx.request(method, fake.url + path, headers=headers, timeout=5, **kw)
    assert response.status_code < 400, response.text
    return response.json()


def test_mem0_add_event_and_memory(served):
    fake = served(Mem0Fake)
    auth = {"Authorization": f"Token {fake.api_key}"}
    added = call(fake, "POST", "/v3/memories/add/", auth,
                 json={"messages": [{"role": "user", "content": "Alice likes tea"}], "user_id": "alice"})
    assert undocumented(added, documented("mem0", "add_v3")) == []
    event = call(fake, "GET", f"/v1/event/{added['event_id']}/", auth)
    assert undocumented(event, documented("mem0", "event")) == []
    memory_id = event["results"][0]["id"]
    assert undocumented(call(fake, "GET", f"/v1/memories/{memory_id}/", auth), documented("mem0", "memory")) == []


def test_hindsight_health_retain_list_banks_and_stats(served):
    fake = served(FakeHindsight)
    auth = {"Authorization": f"Bearer {fake.api_key}"}
    assert undocumented(call(fake, "GET", "/health", {}), documented("hindsight", "health")) == []
    retained = call(fake, "POST", "/v1/default/banks/demo/memories", auth,
                    json={"items": [{"content": "PostgreSQL 16", "document_id": "d1"}], "async": True})
    assert undocumented(retained, documented("hindsight", "retain_async")) == []
    listed = call(fake, "GET", "/v1/default/banks/demo/memories/list", auth, params={"document_id": "d1"})
    assert listed["items"] and undocumented(listed, documented("hindsight", "memory_list")) == []
    assert undocumented(call(fake, "GET", "/v1/default/banks", auth), documented("hindsight", "bank_list")) == []
    assert undocumented(call(fake, "GET", "/v1/default/banks/demo/stats", auth), documented("hindsight", "stats")) == []


def test_honcho_workspaces_conclusions_and_queue(served):
    fake = served(HonchoFake)
    auth = {"Authorization": f"Bearer {fake.api_key}"}
    workspace = call(fake, "POST", "/v3/workspaces", auth, json={"id": "ws"})
    assert undocumented(workspace, documented("honcho", "workspace")) == []
    assert undocumented(call(fake, "POST", "/v3/workspaces/list", auth, json={}),
                        documented("honcho", "workspace_page")) == []
    call(fake, "POST", "/v3/workspaces/ws/peers", auth, json={"id": "alice"})
    created = call(fake, "POST", "/v3/workspaces/ws/conclusions", auth, json={"conclusions": [
        {"content": "Alice likes tea", "observer_id": "alice", "observed_id": "alice"}]})
    assert undocumented(created, documented("honcho", "conclusions")) == []
    page = call(fake, "POST", "/v3/workspaces/ws/conclusions/list", auth, json={"filters": {"id": created[0]["id"]}})
    assert page["total"] == 1 and undocumented(page, documented("honcho", "conclusion_page")) == []
    assert undocumented(call(fake, "GET", "/v3/workspaces/ws/queue/status", auth),
                        documented("honcho", "queue_status")) == []


def test_retaindb_write_reply_has_no_id_and_search_nests_the_memory(served):
    fake = served(RetainDBFake)
    auth = {"Authorization": f"Bearer {fake.api_key}"}
    written = call(fake, "POST", "/v1/memory", auth, json={"project": "p", "user_id": "u", "content": "Alice likes tea",
                                                            "write_mode": "sync"})
    assert undocumented(written, documented("retaindb", "write")) == [] and "id" not in written
    found = call(fake, "POST", "/v1/memory/search", auth, json={"project": "p", "user_id": "u", "query": "tea"})
    assert found["results"] and undocumented(found, documented("retaindb", "search")) == []


def test_supermemory_add_document(served):
    fake = served(SupermemoryFake)
    added = call(fake, "POST", "/v3/documents", {"Authorization": f"Bearer {fake.api_key}"},
                 json={"content": "Alice likes tea", "containerTag": "t"})
    assert undocumented(added, documented("supermemory", "add_document")) == []
