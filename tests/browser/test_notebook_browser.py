"""The Notebook page in Debian's Chromium: log in, open the page, add an entry, watch the usage bar move.

The fixtures are local to this module (module-scoped, so they never overlap another Playwright
instance); switch to tests/browser/conftest.py's once it is on main. Never `playwright install`.
"""

import os

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def notebook_browser():
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing: apt-get install -y chromium")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def notebook_page(notebook_browser, live_server, transactional_db, django_user_model):
    """A fresh context on the live server, logged in as staff through the real login form."""
    django_user_model.objects.create_user("keeper", password="keeper-pass-1", is_staff=True)
    context = notebook_browser.new_context(base_url=live_server.url, locale="en-US")
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto("/login/")
    page.fill("input[name=username]", "keeper")
    page.fill("input[name=password]", "keeper-pass-1")
    page.click("form button")
    page.wait_for_url(lambda url: "/login/" not in url)
    yield page
    context.close()


def test_add_an_entry_and_see_the_usage_bar_move(notebook_page):
    page = notebook_page
    page.get_by_role("link", name="Notebook").click()
    page.wait_for_url("**/notebooks/global/")
    panel = page.locator("#notebook-memory")
    bar = panel.get_by_role("progressbar")
    assert bar.get_attribute("aria-valuenow") == "0"
    assert panel.locator(".usage-text").inner_text() == "0% — 0/2200 chars"

    text = "The deploy script lives in scripts/deploy.sh and needs a release tag. " * 4
    page.evaluate("window.notSwappedAway = true")
    panel.get_by_label("New entry").fill(text)
    panel.get_by_role("button", name="Add entry").click()

    page.locator("#notebook-memory .usage-text").filter(has_text="12% — 279/2200 chars").wait_for()
    panel = page.locator("#notebook-memory")
    assert panel.get_by_role("progressbar").get_attribute("aria-valuenow") == "12"
    width = panel.locator(".progress > span").evaluate("el => el.getBoundingClientRect().width")
    assert width > 0
    assert panel.locator("ol.entries li").count() == 1
    assert page.evaluate("window.notSwappedAway === true")  # htmx swapped the panel; no page reload
    page.locator("#notebook-history").get_by_text("notebook.add").wait_for()
