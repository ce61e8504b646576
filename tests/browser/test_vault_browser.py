"""The vault loop in a real browser: a person ticks one entry, presses "Allow selected", the agent reads exactly it."""

import pytest

from memoryhub.spaces.models import MemorySpace

pytestmark = pytest.mark.browser


def result(response):
    assert response.status_code == 200, response.content
    return response.json()["result"]


def test_person_allows_one_entry_and_the_agent_reads_exactly_it(logged_in_page, api):
    from playwright.sync_api import expect

    MemorySpace.objects.create(slug="diary", name="Diary", access="vault")
    chosen = result(api.tool("memory_save", category="decision", title="Chose SQLite", body="WAL mode.", space="diary"))
    result(api.tool("memory_save", category="companion", title="Evening walk", body="Private.", space="diary"))
    request_id = result(api.tool("memory_request"))["request_id"]
    assert api.tool("memory_read", request_id=request_id).status_code == 403

    page = logged_in_page
    page.goto("/")
    page.get_by_role("link", name="Pending requests").click()
    expect(page.locator("#nav-vault-requests .dot.red")).to_be_visible()
    card = page.locator(f"#req-{request_id}")
    expect(card).to_contain_text("Evening walk")
    card.get_by_label("Chose SQLite").check()
    card.get_by_role("button", name="Allow selected").click()
    expect(card).to_contain_text("Allowed 1 entry")
    expect(page.locator("#nav-vault-requests .dot.red")).to_have_count(0)

    entries = result(api.tool("memory_read", request_id=request_id))["entries"]
    assert [(e["id"], e["title"]) for e in entries] == [(chosen["id"], "Chose SQLite")]
    assert api.tool("memory_read", session_id="elsewhere", request_id=request_id).status_code == 403
