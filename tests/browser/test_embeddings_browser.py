"""Turning embeddings on for a space that already has memories, in a real browser: embed, then find by meaning."""

import re

import pytest
from playwright.sync_api import expect

from memoryhub.memories.write import gateway
from memoryhub.spaces.models import MemorySpace
from tests.fakes_embeddings import FakeEmbeddings

pytestmark = pytest.mark.browser


def test_embed_the_existing_memories_then_search_finds_a_synonym(logged_in_page, settings):
    page = logged_in_page
    space = MemorySpace.objects.create(slug="garage", name="Garage")
    gateway.write(space, gateway.Draft(body="Bought a used sedan from the dealer on Friday"))
    gateway.write(space, gateway.Draft(body="The lawn mower needs a new blade"))
    with FakeEmbeddings() as service:
        settings.MEMORYHUB = {**settings.MEMORYHUB, "EMBEDDINGS_BASE_URL": service.base_url,
                              "EMBEDDINGS_MODEL": "fake-synonyms"}
        page.goto("/spaces/garage/maintenance/")
        card = page.locator("#embeddings")
        expect(card).to_contain_text("2 of 2 live entries are not embedded yet")
        card.get_by_role("button", name="Embed them now").click()
        expect(card.locator(".job")).to_contain_text("Embedded 2 entries")  # a sentence, not the raw result

        page.goto("/spaces/garage/")
        page.fill("#memory-q", "automobile")
        expect(page).to_have_url(re.compile(r"q=automobile"))
        expect(page.locator(".entry-title")).to_have_count(1)
        expect(page.locator(".entry-title").first).to_contain_text("used sedan")
