"""Smoke paths through the real dashboard in Chromium: log in, provider config, tokens, jobs, screenshots."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from memoryhub.jobs.models import Job
from memoryhub.jobs.runner import job_progress
from memoryhub.spaces import secrets
from tests.browser.conftest import STAFF_PASSWORD, STAFF_USERNAME, log_in

pytestmark = pytest.mark.browser

SECRET = "browser-secret-value-42"


def test_login_refuses_a_wrong_password_then_lets_staff_in(browser_page, staff_user):
    page = browser_page
    page.goto("/")
    expect(page).to_have_url(re.compile(r"/login/"))
    page.get_by_label("Username").fill(STAFF_USERNAME)
    page.get_by_label("Password").fill("wrong")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_text("Wrong username or password.")).to_be_visible()
    log_in(page, STAFF_USERNAME, STAFF_PASSWORD)
    expect(page.get_by_role("heading", name="Memory spaces")).to_be_visible()


def test_saving_a_provider_key_shows_configured_never_the_value(logged_in_page):
    page = logged_in_page
    page.get_by_role("link", name="Providers").click()
    card = page.locator("#provider-honcho")
    card.locator("summary").click()  # cards are compact until opened
    expect(card.locator('[data-secret="apiKey"]')).to_have_text("not set")
    card.get_by_label("Endpoint").fill("http://127.0.0.1:9")
    card.get_by_label("API key").fill(SECRET)
    card.get_by_role("button", name="Save").click()
    expect(card.get_by_text("Saved.")).to_be_visible()
    expect(card.locator('[data-secret="apiKey"]')).to_have_text("configured")
    expect(card.get_by_label("API key")).to_have_value("")
    assert SECRET not in page.content()
    assert secrets.for_kind("honcho") == {"apiKey": SECRET}
    page.reload()
    expect(page.locator('#provider-honcho [data-secret="apiKey"]')).to_have_text("configured")
    assert SECRET not in page.content()


def test_test_connection_shows_the_error_inline(logged_in_page):
    page = logged_in_page
    page.goto("/providers/")
    card = page.locator("#provider-hindsight")
    card.locator("summary").click()  # cards are compact until opened
    card.get_by_label("Endpoint").fill("http://127.0.0.1:9")
    card.get_by_role("button", name="Save").click()
    expect(card.get_by_text("Saved.")).to_be_visible()
    card.get_by_role("button", name="Test connection").click()
    expect(card.get_by_text(re.compile("Connection failed"))).to_be_visible()


def test_a_new_token_is_shown_once(logged_in_page):
    page = logged_in_page
    page.get_by_role("link", name="API tokens").click()
    page.get_by_label("Name").fill("laptop-agent")
    page.get_by_label("Every space (unrestricted)").check()
    page.get_by_role("button", name="Create token").click()
    value = page.locator("#new-token-value")
    expect(value).to_have_value(re.compile(r"^mh_"))
    raw = value.input_value()
    expect(page.locator("table.tokens")).to_contain_text("laptop-agent")
    page.reload()
    expect(page.locator("#new-token-value")).to_have_count(0)
    assert raw not in page.content()
    page.get_by_role("button", name="Pause").click()  # one click, over htmx: the row says so and offers Resume
    expect(page.locator("table.tokens")).to_contain_text("paused")
    page.get_by_role("button", name="Resume").click()
    expect(page.get_by_role("button", name="Pause")).to_be_visible()
    expect(page.locator("table.tokens")).not_to_contain_text("paused")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("link", name="Revoke").click()
    expect(page.locator("table.tokens")).to_contain_text("revoked")


def test_self_test_job_runs_and_its_progress_bar_reaches_done(logged_in_page):
    page = logged_in_page
    page.get_by_role("link", name="Jobs").click()
    expect(page.get_by_text("No jobs yet")).to_be_visible()
    page.get_by_role("button", name="Run self test").click()
    row = page.locator("#job-table tbody tr").first
    expect(row).to_have_attribute("data-status", "succeeded")
    expect(row.get_by_role("progressbar")).to_have_attribute("aria-valuenow", "100")


def test_jobs_table_polls_progress_until_nothing_is_pending(logged_in_page):
    page = logged_in_page
    job = Job.objects.create(kind="selftest", label="Self test", status="running", started_at=timezone.now(),
                             heartbeat_at=timezone.now())
    job_progress(job, 20, "step 1")
    page.goto("/jobs/")
    bar = page.locator(f"#job-{job.pk} [role=progressbar]")
    expect(bar).to_have_attribute("aria-valuenow", "20")
    expect(page.locator("#job-table")).to_have_attribute("data-polling", "true")
    job_progress(job, 60, "step 3")
    expect(bar).to_have_attribute("aria-valuenow", "60")
    Job.objects.filter(pk=job.pk).update(status="succeeded", progress=100, finished_at=timezone.now())
    expect(page.locator(f"#job-{job.pk}")).to_have_attribute("data-status", "succeeded")
    expect(page.locator("#job-table")).to_have_attribute("data-polling", "false")


def test_language_switch_shows_chinese(logged_in_page):
    page = logged_in_page
    page.goto("/jobs/")
    page.get_by_label("Language").select_option("zh-hans")
    expect(page.get_by_role("heading", name="任务")).to_be_visible()
    page.get_by_label("语言").select_option("en")
    expect(page.get_by_role("heading", name="Jobs")).to_be_visible()


def test_screenshots_of_the_main_pages(browser_page, staff_user, client, tmp_path):
    """PNG screenshots (1280×800) for the README; written to MEMORYHUB_SCREENSHOTS when set."""
    from tests.browser.demo import populate

    out = Path(os.environ.get("MEMORYHUB_SCREENSHOTS") or tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    page = browser_page
    page.goto("/login/")
    page.screenshot(path=out / "login.png")
    log_in(page)
    populate(client)
    pages = (("spaces", "/"), ("memories", "/spaces/default/"), ("facts", "/spaces/default/facts/"),
             ("recall", "/spaces/default/recall/?q=do+we+keep+SQLite+in+WAL+mode"), ("settings", "/spaces/default/settings/"),
             ("providers", "/providers/"), ("jobs", "/jobs/"), ("tokens", "/tokens/"))
    for name, url in pages:
        page.goto(url)
        expect(page.locator("main h1").first).to_be_visible()
        page.screenshot(path=out / f"{name}.png")
        assert (out / f"{name}.png").stat().st_size > 10_000
