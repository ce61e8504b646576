"""The everyday flow in a real browser: create a space, note a memory, find it, edit it, preview recall, run a job."""

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_create_note_search_edit_preview_and_rebuild(logged_in_page):
    page = logged_in_page
    page.goto("/spaces/new/")
    page.fill("input[name=slug]", "garden")
    page.fill("input[name=name]", "Garden notes")
    page.click("#space-form button[type=submit]")
    page.wait_for_url("**/spaces/garden/**")

    page.fill("textarea[name=text]", "The tomato seedlings go into the greenhouse on the 15th of May.")
    page.click("#note-form button[type=submit]")
    expect(page.locator("#note-form [role=status]")).to_contain_text("Saved as #")

    page.fill("#memory-q", "tomato greenhouse")
    expect(page).to_have_url(re.compile(r"q=tomato"), timeout=10_000)  # filters live in the URL
    expect(page.locator(".entry-title").first).to_contain_text("tomato seedlings")
    page.reload()
    expect(page.locator("#memory-q")).to_have_value("tomato greenhouse")

    page.locator(".entry-actions a", has_text="Edit").first.click()
    body = page.locator("textarea[name=body]")
    expect(body).to_be_visible()
    body.fill("The tomato seedlings go into the greenhouse on the 20th of May, after the frost.")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("article.entry").first).to_contain_text("20th of May")

    # Each row's buttons swap that row (the target is inherited from the row's actions).
    page.goto("/spaces/garden/")
    row = page.locator("article.entry").first
    row.get_by_role("button", name="Show full text").click()
    expect(row.locator(".entry-body pre")).to_contain_text("after the frost")
    expect(page.locator("article.entry article, article.entry button article")).to_have_count(0)  # swapped, not nested
    row.get_by_role("button", name="Collapse").click()
    expect(row.locator(".entry-body")).to_have_count(0)
    page.once("dialog", lambda dialog: dialog.accept())
    row.get_by_role("button", name="Delete").click()
    expect(page.locator("article.entry")).to_have_count(0)
    page.goto("/spaces/garden/")
    expect(page.locator("article.entry")).to_have_count(0)
    page.fill("textarea[name=text]", "The tomato seedlings go into the greenhouse on the 20th of May.")
    page.click("#note-form button[type=submit]")
    expect(page.locator("#note-form [role=status]")).to_contain_text("Saved as #")

    page.goto("/spaces/garden/recall/")
    page.fill("#id_q", "when do the tomatoes go into the greenhouse?")
    page.get_by_role("button", name="Preview").click()
    expect(page.locator("#recall-text")).to_contain_text("The tomato seedlings go into the greenhouse on the 20th of May.")
    expect(page.locator("#recall-why")).to_contain_text("matches: tomato, go, greenhouse")  # why the card is there
    chars = int(page.locator("#recall-chars").inner_text())
    assert 0 < chars <= 2600

    page.goto("/spaces/garden/persona/")
    page.click("#rebuild")
    expect(page.locator("#job-status")).to_contain_text("succeeded", timeout=15_000)
