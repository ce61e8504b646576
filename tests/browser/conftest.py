"""Browser-test harness: pytest-django's live server driven by Debian's Chromium through Playwright.

Fixtures: `chromium_browser` (one per session), `browser_page` (a fresh 1280×800 English context
pointed at the live server), `staff_user` and `logged_in_page` (logged in through the real login
form). Tests mark themselves `@pytest.mark.browser`; they skip when Chromium is not installed.
Never run `playwright install`: the system Chromium is the browser.
"""

from __future__ import annotations

import os
import shutil

import pytest

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # Playwright's sync API runs an event loop in this thread

CHROMIUM = os.environ.get("MEMORYHUB_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
VIEWPORT = {"width": 1280, "height": 800}
STAFF_USERNAME = "admin"
STAFF_PASSWORD = "browser-test-password"


@pytest.fixture(scope="session")
def chromium_browser():
    """One headless Chromium for the whole session."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"Chromium not found at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield browser
    browser.close()
    playwright.stop()


@pytest.fixture
def browser_page(chromium_browser, live_server, transactional_db):
    """A fresh browser context (no cookies) whose relative URLs go to the live server."""
    context = chromium_browser.new_context(base_url=live_server.url, viewport=VIEWPORT, locale="en-US")
    context.set_default_timeout(10_000)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture(autouse=True)
def private_secrets_file(settings, tmp_path):
    """Provider secrets saved during a browser test go to a file of its own."""
    settings.MEMORYHUB = {**settings.MEMORYHUB, "SECRETS_FILE": tmp_path / "state" / "memory-providers.json"}


@pytest.fixture
def staff_user(transactional_db, django_user_model, settings):
    """A staff user; a fast password hasher keeps logging in through the form quick."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    return django_user_model.objects.create_user(STAFF_USERNAME, password=STAFF_PASSWORD, is_staff=True)


def log_in(page, username: str = STAFF_USERNAME, password: str = STAFF_PASSWORD) -> None:
    """Log in through the real login form and wait for the spaces page."""
    page.goto("/login/")
    page.locator("input[name=username]").fill(username)  # by name: the form may be in either language
    page.locator("input[name=password]").fill(password)
    page.locator("form.login button").click()
    page.wait_for_url(lambda url: "/login/" not in url)


@pytest.fixture
def logged_in_page(browser_page, staff_user):
    log_in(browser_page)
    return browser_page
