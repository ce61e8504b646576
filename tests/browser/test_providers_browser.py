"""The provider page and the entity page in a real browser: compact cards that open, Test connection on the
values typed (unsaved), the error sentence with its raw detail folded, and entities with trust feedback."""

from __future__ import annotations

import pytest

from memoryhub.spaces.models import MemorySpace, ProviderService
from memoryhub.spaces.provider_services import provider_for
from tests.providers.fakes.mem0 import Mem0Fake

pytestmark = pytest.mark.browser


def test_provider_cards_are_compact_and_test_connection_uses_the_form(logged_in_page):
    fake = Mem0Fake()
    try:
        page = logged_in_page
        page.goto("/providers/")
        cards = page.locator("section.provider")
        assert cards.count() == 9
        height = page.evaluate("document.documentElement.scrollHeight")
        assert height < 2000, f"the collapsed page is {height}px tall"
        assert not page.locator("#provider-mem0 form").is_visible()
        page.locator("#provider-mem0 summary").click()
        form = page.locator("#provider-mem0 form")
        form.locator('input[name="endpoint"]').fill("http://127.0.0.1:9")
        form.locator('input[name="apiKey"]').fill(fake.api_key)
        form.locator('select[name="mode"]').select_option("platform")  # nothing is chosen for the person
        form.get_by_role("button", name="Test connection").click()
        status = page.locator("#provider-mem0 .test-result")
        status.wait_for()
        assert "Could not reach 127.0.0.1:9" in status.inner_text() and "not saved yet" in status.inner_text()
        assert not page.locator("#provider-mem0 .raw-detail pre").is_visible()
        page.locator("#provider-mem0 .raw-detail summary").click()
        assert "ConnectError" in page.locator("#provider-mem0 .raw-detail pre").inner_text()
        form = page.locator("#provider-mem0 form")
        form.locator('input[name="endpoint"]').fill(fake.url)
        form.locator('input[name="apiKey"]').fill(fake.api_key)
        form.locator('select[name="mode"]').select_option("platform")
        form.get_by_role("button", name="Test connection").click()
        page.locator("#provider-mem0 .test-result.ok").wait_for()
        assert "Connection works" in page.locator("#provider-mem0 .test-result").inner_text()
        assert not ProviderService.objects.filter(kind="mem0", config__endpoint=fake.url).exists()
    finally:
        fake.stop()


def test_entity_page_opens_an_entitys_memories_and_takes_feedback(logged_in_page, tmp_path):
    ProviderService.objects.create(kind="holographic", config={"dataPath": str(tmp_path / "facts.json")})
    space = MemorySpace.objects.create(slug="holo", name="Holo", provider="holographic", config={})
    provider = provider_for(space)
    provider.remember("Grace Hopper found the first bug")
    provider.remember("Grace Hopper wrote the first compiler")
    page = logged_in_page
    page.goto("/spaces/holo/")
    page.get_by_role("link", name="Entities").click()
    page.get_by_role("link", name="Grace Hopper").click()
    records = page.locator("#entity-records")
    records.get_by_text("wrote the first compiler").wait_for()
    assert "entity=" in page.url
    first = records.locator(".trust").first
    assert "0.50" in first.inner_text()
    first.get_by_role("button", name="Helpful").click()
    page.locator("#entity-records .trust").first.get_by_text("0.55").wait_for()
