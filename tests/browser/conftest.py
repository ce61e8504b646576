"""Browser tests: Debian's Chromium driven by Playwright against Django's live server (never a downloaded browser)."""

import os

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="session")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing: apt-get install -y chromium")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture
def page(browser, live_server):
    """A fresh browser context on the live server; `page.base_url` is the server's address."""
    context = browser.new_context(base_url=live_server.url)
    context.set_default_timeout(10_000)
    tab = context.new_page()
    tab.base_url = live_server.url
    yield tab
    context.close()


@pytest.fixture
def logged_in(page, django_user_model):
    """A staff user logged in through the real login form."""
    django_user_model.objects.create_user("browser", password="browser-pass-1", is_staff=True)
    page.goto("/login/")
    page.fill("input[name=username]", "browser")
    page.fill("input[name=password]", "browser-pass-1")
    page.click("form.login button")
    page.wait_for_url(lambda url: "/login/" not in url)
    return page
