"""Every dashboard page at phone width (390 × 844), in English and in 中文: no page wider than the viewport.

The page list comes from the URL resolver, so a page added later is walked too; a page whose URL needs an
argument this file has no sample for fails the walk until one is added. Also: the menu toggle, the skip link and
visible focus at phone width.
"""

from __future__ import annotations

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from playwright.sync_api import expect

from memoryhub.jobs import runner
from memoryhub.jobs.models import Job
from memoryhub.memories.models import Entry, Fact, Topic
from memoryhub.spaces.models import MemorySpace, Workspace
from tests.browser.conftest import log_in
from tests.conftest import make_api

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
SKIPPED_PREFIXES = ("admin/", "api/", "i18n/", "mcp")
LONG = "https://example.com/" + "a-very-long-path-segment-without-spaces-" * 8


def dashboard_routes(patterns=None, prefix: str = "", namespace: str = "") -> list[tuple[str, list[str], dict]]:
    """(qualified URL name, argument names, default kwargs) of every named page outside admin, the API and i18n."""
    routes = []
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        route = prefix + str(entry.pattern)
        if route.startswith(SKIPPED_PREFIXES):
            continue
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            routes += dashboard_routes(entry.url_patterns, route, inner)
        elif isinstance(entry, URLPattern) and entry.name:
            routes.append((namespace + entry.name, sorted(entry.pattern.converters), entry.default_args))
    return routes


def populate(client) -> dict:
    """Believable data with every kind of object a page can be about, and some long unbroken text."""
    from tests.browser.demo import populate as demo

    demo(client)
    api = make_api(client, name="phone-agent")
    api.turn(f"Our deploy notes live at {LONG} and nowhere else", "ok")
    api.tool("memory_save", category="progress", title=LONG, body=LONG, tags=["a-rather-long-tag-name-for-layout"])
    MemorySpace.objects.create(slug="diary", name="Diary", access="vault")
    vault_entry = api.tool("memory_save", category="companion", title="Evening walk", body=LONG, space="diary")
    request_id = api.tool("memory_request", space="diary").json()["result"]["request_id"]
    space = MemorySpace.objects.get(slug="default")
    consolidation = runner.enqueue("consolidate", space=space)
    return {
        "slug": "default", "pk": Entry.objects.filter(space=space).latest("id").pk,
        "job_id": Job.objects.filter(space=space, kind="persona_rebuild").first().pk,
        "run_id": consolidation.pk, "entry_id": int(vault_entry.json()["result"]["id"]),
        "request_id": request_id, "kind": "honcho", "scope": "global", "target": "memory", "action": "add",
        "token_id": api.token.pk, "write_id": 1,
        "by_name": {"dashboard:topic": {"pk": Topic.objects.filter(space=space).first().pk},
                    "dashboard:fact_invalidate": {"pk": Fact.objects.first().pk},
                    "dashboard:notebook": {"scope": Workspace.objects.first().slug},
                    "dashboard:vault_export": {"slug": Workspace.objects.first().slug}},
        "queries": {"dashboard:memory_related": f"?id={Entry.objects.filter(space=space).latest('id').pk}"},
    }


def pages(client, samples: dict) -> list[str]:
    """The URL of every page that answers GET with HTML; POST-only actions and downloads are left out."""
    urls, missing = [], []
    for name, args, defaults in dashboard_routes():
        kwargs = {**{a: samples[a] for a in args if a in samples}, **samples["by_name"].get(name, {})}
        if set(args) - set(kwargs) - set(defaults):
            missing.append(f"{name} needs {sorted(set(args) - set(kwargs))}")
            continue
        url = reverse(name, kwargs={k: v for k, v in kwargs.items() if k in args}) + samples["queries"].get(name, "")
        response = client.get(url)
        if response.status_code == 405 or "attachment" in response.get("Content-Disposition", ""):
            continue
        if response.status_code >= 400:
            missing.append(f"{name} answered {response.status_code} at {url}")
            continue
        if "text/html" in response.get("Content-Type", ""):
            urls.append(url)
    assert not missing, f"add sample arguments to tests/browser/test_layout_browser.py: {missing}"
    return urls


def too_wide(page, urls: list[str]) -> list[str]:
    wide = []
    for url in urls:
        response = page.goto(url)
        assert response.ok, f"{url} answered {response.status}"
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > page.evaluate("window.innerWidth"):
            wide.append(f"{url} is {width} px wide")
    return wide


@pytest.fixture
def phone(chromium_browser, live_server, transactional_db, staff_user, client):
    client.force_login(staff_user)
    samples = populate(client)
    contexts = []

    def open_page():
        context = chromium_browser.new_context(base_url=live_server.url, viewport=PHONE, locale="en-US")
        context.set_default_timeout(10_000)
        contexts.append(context)
        page = context.new_page()
        log_in(page)
        return page

    yield open_page, pages(client, samples)
    for context in contexts:
        context.close()


def test_every_page_fits_a_phone_in_english(phone):
    open_page, urls = phone
    assert len(urls) >= 30 and "/spaces/default/topics/" in urls and "/audit/" in urls
    page = open_page()
    assert too_wide(page, urls + ["/search/?q=deploy"]) == []


def test_every_page_fits_a_phone_in_chinese(phone):
    open_page, urls = phone
    page = open_page()
    page.goto("/")
    page.get_by_role("button", name="Menu").click()
    page.get_by_label("Language").select_option("zh-hans")
    expect(page.get_by_role("heading", name="记忆空间")).to_be_visible()
    assert too_wide(page, urls) == []


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


def test_screenshots_at_phone_width(phone, tmp_path):
    """Phone-width PNGs for the README (390 × 844); written to MEMORYHUB_SCREENSHOTS when set."""
    import os
    from pathlib import Path

    open_page, _urls = phone
    out = Path(os.environ.get("MEMORYHUB_SCREENSHOTS") or tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    page = open_page()
    page.goto("/spaces/default/")
    page.screenshot(path=out / "phone-memories.png")
    page.get_by_role("button", name="Menu").click()
    page.screenshot(path=out / "phone-menu.png")
    assert (out / "phone-memories.png").stat().st_size > 10_000 and (out / "phone-menu.png").stat().st_size > 10_000
