"""The Notebook page in Debian's Chromium: log in, open the page, add an entry, watch the usage bar move."""

import pytest

pytestmark = pytest.mark.browser


def test_add_an_entry_and_see_the_usage_bar_move(logged_in_page):
    page = logged_in_page
    page.get_by_role("link", name="Notebook").click()
    page.wait_for_url("**/notebooks/global/")
    panel = page.locator("#notebook-memory")
    bar = panel.get_by_role("progressbar")
    assert bar.get_attribute("aria-valuenow") == "0"
    assert panel.locator(".usage-text").inner_text() == "0% — 0 of 2200 characters"

    text = "The deploy script lives in scripts/deploy.sh and needs a release tag. " * 4
    page.evaluate("window.notSwappedAway = true")
    panel.get_by_label("New entry").fill(text)
    panel.get_by_role("button", name="Add entry").click()

    page.locator("#notebook-memory .usage-text").filter(has_text="12% — 279 of 2200 characters").wait_for()
    panel = page.locator("#notebook-memory")
    assert panel.get_by_role("progressbar").get_attribute("aria-valuenow") == "12"
    width = panel.locator(".progress > span").evaluate("el => el.getBoundingClientRect().width")
    assert width > 0
    assert panel.locator("ol.entries li").count() == 1
    assert page.evaluate("window.notSwappedAway === true")  # htmx swapped the panel; no page reload
    page.locator("#notebook-history").get_by_text("notebook entry added").wait_for()
