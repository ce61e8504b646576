"""Moving a space to another engine in a real browser: pick the target, read what it cannot keep, copy, read the
receipts, confirm, and the source is empty; then the same page brings the memories back into a native space."""

import pytest
from playwright.sync_api import expect

from memoryhub.memories.models import Entry
from memoryhub.memories.write import gateway
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.provider_services import save_service
from tests.providers.fakes.mem0 import Mem0Fake

pytestmark = pytest.mark.browser


@pytest.fixture
def spaces(transactional_db):
    fake = Mem0Fake()
    save_service("mem0", {"endpoint": fake.url, "apiKey": fake.api_key, "mode": "platform"})
    mem0 = MemorySpace.objects.create(slug="m0", name="Mem0 space", provider="mem0", config={"userId": "alice"})
    notes = MemorySpace.objects.create(slug="notes", name="Notes")
    for n in range(3):
        gateway.write(notes, gateway.Draft(title=f"Backup note {n}", body=f"The NAS is backup-0{n}", tags=["nas"]))
    MemorySpace.objects.create(slug="back", name="Back home")
    yield notes, mem0
    fake.stop()


def test_a_space_moves_to_mem0_and_comes_back(logged_in_page, spaces):
    page = logged_in_page
    page.goto("/spaces/notes/")
    page.locator("#space-copy").click()
    page.wait_for_url("**/spaces/notes/copy/")
    expect(page.locator("#copy-receipts")).to_contain_text("has not been copied anywhere yet")
    page.select_option("#copy-target", "m0")
    page.locator("#copy-preview-button").click()
    expect(page.locator("#copy-count")).to_contain_text("3 memories would go into Mem0 space")
    expect(page.locator("#copy-losses")).to_contain_text("Mem0 extracts memories")
    page.locator("#copy-start").click()
    expect(page.locator("#copy-job")).to_contain_text("3 accepted")
    receipts = page.locator("#copy-receipts")
    expect(receipts).to_contain_text("Into Mem0 space (m0)")
    expect(receipts.locator("li", has_text="accepted")).to_contain_text("3")
    assert Entry.objects.live().filter(space__slug="notes").count() == 3  # nothing left the source yet

    receipts.get_by_label("I have seen the receipts").check()
    receipts.get_by_role("button", name="Remove from this space").click()
    expect(page.locator("#copy-job")).to_contain_text("Removed 3 copied memories from this space.")
    assert not Entry.objects.live().filter(space__slug="notes").exists()

    page.goto("/spaces/m0/copy/?to=back")
    expect(page.locator("#copy-losses")).to_have_count(0)
    expect(page.locator("#copy-preview")).to_contain_text("Back home keeps everything these memories have.")
    page.locator("#copy-start").click()
    expect(page.locator("#copy-job")).to_contain_text("3 committed")
    page.goto("/spaces/back/")
    expect(page.locator("article.entry")).to_have_count(3)
    expect(page.locator("article.entry").first).to_contain_text("Backup note")
