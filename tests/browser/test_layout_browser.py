"""Every dashboard page at phone width (390 × 844), in English and in 中文: no page wider than the viewport, every
table's rows stacked as cards (no column squeezed, each cell labelled by its column), and on the 中文 walk no
English a reader would see (tests/browser/reading.py says what counts).

The page list comes from the URL resolver (tests/browser/walk.py), so a page added later is walked too; the demo
hub (tests/browser/demo.py) has data on every page. Also: the menu toggle, the skip link and visible focus at
phone width.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import log_in
from tests.browser.demo import every_page
from tests.browser.reading import COLLECT, TABLES, english
from tests.browser.walk import pages

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
TALLEST_ROW = 360  # px: a stacked row of the busiest table (audit: six cells, a long detail) stays this short


@pytest.fixture
def phone(chromium_browser, live_server, transactional_db, staff_user, client, tmp_path):
    client.force_login(staff_user)
    samples = every_page(client, tmp_path)
    contexts = []

    def open_page(locale: str = "en-US"):
        context = chromium_browser.new_context(base_url=live_server.url, viewport=PHONE, locale=locale)
        context.set_default_timeout(10_000)
        contexts.append(context)
        page = context.new_page()
        log_in(page)
        return page

    yield open_page, pages(client, samples)
    for context in contexts:
        context.close()


def walk(page, urls: list[str], *, chinese: bool = False) -> dict[str, list]:
    """Every page once: what is too wide, which tables are not cards, and (in Chinese) what reads in English."""
    found: dict[str, list] = {"wide": [], "tables": [], "english": [], "rows": {}}
    for url in urls:
        response = page.goto(url)
        assert response.ok, f"{url} answered {response.status}"
        page.wait_for_load_state("networkidle")  # htmx fragments loaded on page load (related memories) too
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > PHONE["width"]:
            found["wide"].append(f"{url} is {width} px wide")
        for table in page.evaluate(TABLES):
            found["rows"][f"{url} {table['id']}"] = table
            if table["squeezed"] or table["unlabelled"] or table["tallest"] > TALLEST_ROW:
                found["tables"].append(f"{url} {table}")
        if chinese:
            found["english"] += [f"{url}: {text}" for text in english(page.evaluate(COLLECT))]
    return found


def rows_of(found: dict, path: str) -> list[dict]:
    return [table for key, table in found["rows"].items() if key.split()[0].split("?")[0] == path]


def test_every_page_fits_a_phone_in_english_with_tables_as_cards(phone):
    open_page, urls = phone
    assert len(urls) >= 30 and "/spaces/default/topics/" in urls and "/audit/" in urls
    found = walk(open_page(), urls)
    assert found["wide"] == []
    assert found["tables"] == []
    for path in ("/spaces/default/activity/", "/audit/"):  # issue #36: rows there were 486–870 px tall
        assert sum(table["rows"] for table in rows_of(found, path)) >= 8, path


def test_every_page_reads_in_chinese_at_phone_width(phone):
    open_page, urls = phone
    page = open_page("zh-CN")
    page.goto("/")
    expect(page.get_by_role("heading", name="记忆空间")).to_be_visible()
    found = walk(page, urls, chinese=True)
    assert found["english"] == [], "translate these, or mark what is data translate=\"no\":\n" + "\n".join(found["english"])
    assert found["wide"] == []
    assert found["tables"] == []


def test_the_menu_toggle_opens_the_navigation_at_phone_width(phone):
    open_page, _urls = phone
    page = open_page()
    page.goto("/")
    nav = page.get_by_role("navigation", name="Main")
    toggle = page.get_by_role("button", name="Menu")
    expect(nav).to_be_hidden()
    expect(toggle).to_have_attribute("aria-expanded", "false")
    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    nav.get_by_role("link", name="Jobs").click()
    expect(page.get_by_role("heading", name="Jobs")).to_be_visible()
    expect(page.get_by_role("navigation", name="Main")).to_be_hidden()
    page.get_by_role("button", name="Menu").click()
    page.keyboard.press("Escape")
    expect(page.get_by_role("navigation", name="Main")).to_be_hidden()
    expect(page.get_by_role("button", name="Menu")).to_be_focused()


def test_the_skip_link_comes_first_and_focus_is_visible(phone):
    open_page, _urls = phone
    page = open_page()
    page.goto("/jobs/")
    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to content")
    expect(skip).to_be_focused()
    expect(skip).to_be_in_viewport()
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") != "none"
    page.keyboard.press("Enter")
    expect(page.locator("main#main")).to_be_focused()
    page.keyboard.press("Tab")
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineWidth")
    assert outline not in ("0px", ""), f"focused {page.evaluate('document.activeElement.outerHTML')[:80]} has no outline"


PHONE_SHOTS = (("memories", "/spaces/default/"), ("facts", "/spaces/default/facts/"),
               ("activity", "/spaces/default/activity/"), ("audit", "/audit/"), ("jobs", "/jobs/"))


def test_screenshots_at_phone_width(phone, tmp_path):
    """Phone-width PNGs for the README (390 × 844), in English and in 中文, and the open menu; written to
    MEMORYHUB_SCREENSHOTS when set (scripts/screenshots.py)."""
    import os
    from pathlib import Path

    open_page, _urls = phone
    out = Path(os.environ.get("MEMORYHUB_SCREENSHOTS") or tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    shots = []
    for language, locale in (("en", "en-US"), ("zh", "zh-CN")):
        page = open_page(locale)
        for name, url in PHONE_SHOTS:
            page.goto(url)
            page.wait_for_load_state("networkidle")
            shots.append(out / f"phone-{name}-{language}.png")
            page.screenshot(path=shots[-1])
        page.get_by_role("button", name="Menu" if language == "en" else "菜单").click()
        shots.append(out / f"phone-menu-{language}.png")
        page.screenshot(path=shots[-1])
    assert all(shot.stat().st_size > 10_000 for shot in shots)
