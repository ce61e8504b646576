"""The dashboard's fixed bugs and new pages in Chromium: chips, consolidation, vault counters, job pages, topics,
the audit log, the persona rebuild without a model, and search results that open their memory."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from memoryhub.memories.models import Entry
from memoryhub.memories.write import gateway
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.workspaces import default_space

pytestmark = pytest.mark.browser


def result(response):
    assert response.status_code < 300, response.content
    return response.json()["result"]


def test_a_progress_chip_is_a_chip_not_a_progress_bar(logged_in_page, api):
    result(api.tool("memory_save", category="progress", title="Shipped the importer", body="Done and merged."))
    page = logged_in_page
    page.goto("/spaces/default/")
    chip = page.locator("article.entry .chip").first
    expect(chip).to_have_text("progress")
    box = chip.bounding_box()
    assert box["height"] >= 14 and box["width"] < 120  # the progress bar is 8 px tall and at least 120 px wide
    assert chip.evaluate("el => getComputedStyle(el).backgroundColor") == "rgb(46, 158, 91)"


def test_consolidation_apply_reads_as_a_sentence_and_the_plan_refreshes(logged_in_page):
    space = MemorySpace.objects.create(slug="m", name="M")
    old = gateway.write(space, gateway.Draft(body="an old note nobody reads", at=timezone.now() - timedelta(days=60),
                                             importance=2)).entry
    page = logged_in_page
    page.goto("/spaces/m/")
    page.get_by_role("navigation", name="Space sections").get_by_role("link", name="Maintenance").click()
    plan = page.locator("#consolidation-plan")
    expect(plan).to_contain_text("an old note nobody reads")
    page.get_by_role("button", name="Apply").click()
    job = page.locator("#consolidate-job")
    expect(job).to_contain_text("Archived 1 entry nobody recalls")
    expect(job).not_to_contain_text("archived=1")
    expect(plan).to_contain_text("Nothing to consolidate")
    expect(plan.get_by_role("button", name="Apply")).to_have_count(0)
    expect(page.locator("#consolidation-runs")).to_contain_text("applied")
    expect(page.get_by_role("navigation", name="Space sections")).to_be_visible()
    job.get_by_role("link", name="see the archived entries").click()
    expect(page).to_have_url(re.compile(r"archived=only"))
    expect(page.locator(f"#entry-{old.pk}")).to_contain_text("archived")


def test_vault_counters_follow_each_decision(logged_in_page, api):
    MemorySpace.objects.create(slug="diary", name="Diary", access="vault")
    result(api.tool("memory_save", category="companion", title="Evening walk", body="Private.", space="diary"))
    first = result(api.tool("memory_request", session_id="s1"))["request_id"]
    result(api.tool("memory_request", session_id="s2"))
    page = logged_in_page
    page.goto("/vault/requests/")
    tabs = page.get_by_role("navigation", name="Vault")
    expect(tabs.get_by_role("link", name="Pending requests (2)")).to_be_visible()
    expect(page.locator("#nav-vault-requests")).to_contain_text("2")
    page.locator(f"#req-{first}").get_by_role("button", name="Deny").click()
    expect(page.locator(f"#req-{first}")).to_contain_text("Denied")
    expect(tabs.get_by_role("link", name="Pending requests (1)")).to_be_visible()
    expect(page.locator("#nav-vault-requests")).to_contain_text("1")


def test_a_job_opens_its_page_with_timings_log_and_result(logged_in_page):
    page = logged_in_page
    page.goto("/jobs/")
    page.get_by_role("button", name="Run self test").click()
    row = page.locator("#job-table tbody tr").first
    expect(row).to_have_attribute("data-status", "succeeded")
    expect(row.locator("td.num")).to_have_text(re.compile(r"^\d+ ms$|^\d+\.\d s$"))
    row.get_by_role("link", name="Details").click()
    expect(page.get_by_role("heading", name=re.compile("Self test"))).to_be_visible()
    expect(page.locator("#job-log tbody tr")).to_have_count(5)
    expect(page.locator("#job-log")).to_contain_text("step 5 of 5")
    expect(page.locator("#job-result")).to_contain_text("The worker walked 5 steps")


def test_the_topics_tab_lists_topics_that_open_their_turns(logged_in_page, api):
    api.turn("Let's set up the Postgres backup cron for billing", session_id="s1")
    api.turn("The Postgres backup cron should run nightly", session_id="s1")
    page = logged_in_page
    page.goto("/spaces/default/")
    page.get_by_role("navigation", name="Space sections").get_by_role("link", name="Topics").click()
    page.locator("#topics tbody a").first.click()
    expect(page.locator("article.entry")).to_have_count(2)
    expect(page.locator("article.entry").first).to_contain_text("backup cron for billing")


def test_the_audit_log_shows_dashboard_actions_and_filters_them(logged_in_page):
    default_space()
    page = logged_in_page
    page.goto("/tokens/")
    page.get_by_label("Name").fill("laptop-agent")
    page.get_by_label("Every space (unrestricted)").check()
    page.get_by_role("button", name="Create token").click()
    expect(page.locator("#new-token-value")).to_be_visible()
    page.goto("/")
    page.locator("#space-default button.toggle").click()
    expect(page.locator("#space-default button.toggle")).to_have_text(re.compile("inactive"))
    page.get_by_role("link", name="Audit log").click()
    table = page.locator("#audit-table")
    expect(table).to_contain_text("token created")  # the action's label (audit/actions.py)
    expect(table).to_contain_text("space switched off")
    page.get_by_label("Action").select_option("token.create")
    expect(page).to_have_url(re.compile(r"action=token.create"))
    expect(table).not_to_contain_text("space switched off")
    expect(table).to_contain_text("laptop-agent")


def test_without_a_model_the_persona_rebuild_says_it_goes_by_rules(logged_in_page, settings):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "LLM_BASE_URL": ""}
    default_space()
    page = logged_in_page
    page.goto("/spaces/default/persona/")
    expect(page.get_by_role("button", name="Rebuild with AI")).to_be_disabled()
    expect(page.locator("#rebuild-how")).to_contain_text("No model is configured")
    page.get_by_role("button", name="Rebuild by rules").click()
    expect(page.locator("#job-status")).to_contain_text("succeeded", timeout=15_000)


def test_a_search_result_opens_its_memory(logged_in_page, api):
    api.turn("We decided to keep SQLite in WAL mode for the hub.", "Noted.")
    page = logged_in_page
    page.fill("#global-q", "SQLite WAL")
    page.keyboard.press("Enter")
    page.locator("#search-results tbody a").first.click()
    entry = Entry.objects.get()
    expect(page).to_have_url(re.compile(rf"/spaces/default/entries/{entry.pk}/$"))
    expect(page.locator(".entry-body pre")).to_contain_text("keep SQLite in WAL mode")
