"""Seed behaviours in Chromium: a job cancelled with its button says so, a bridged turn shows its group and user,
and vault spaces go into a workspace's MEMORY.md only when a person includes them."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from memoryhub.jobs.models import Job

pytestmark = pytest.mark.browser


def test_a_queued_job_is_cancelled_with_its_button(logged_in_page):
    job = Job.objects.create(kind="selftest", label="Self test")  # queued: no worker picked it up yet
    page = logged_in_page
    page.goto("/jobs/")
    row = page.locator(f"#job-{job.pk}")
    expect(row).to_have_attribute("data-status", "queued")
    row.get_by_role("button", name="Cancel").click()
    row = page.locator(f"#job-{job.pk}")
    expect(row).to_have_attribute("data-status", "cancelled")
    expect(row).to_contain_text("cancelled")
    expect(row.get_by_role("button", name="Cancel")).to_have_count(0)


def test_a_bridged_turn_shows_its_group_and_user(logged_in_page, api):
    r = api.turn("今晚谁来打球", "我来", channel={"platform": "qq", "chat_type": "group", "chat_id": "123456789",
                                             "chat_name": "Night owls", "user_id": "987", "bridge": "astrbot"})
    assert r.status_code == 201, r.content
    page = logged_in_page
    page.goto("/spaces/default/")
    row = page.locator("article.entry").first
    expect(row.locator(".tag.chat")).to_have_text("group Night owls (123456789) · user 987")
    expect(row).to_contain_text("qq-group")


def test_vault_spaces_go_into_memory_md_only_when_a_person_includes_them(logged_in_page, api, tmp_path):
    from memoryhub.spaces.models import MemorySpace, Workspace

    project = tmp_path / "diary-app"
    project.mkdir()
    assert api.tool("memory_save", category="progress", title="Open step", body="x",
                    workspace=str(project)).status_code == 200
    workspace = Workspace.objects.get(path=str(project))
    MemorySpace.objects.create(slug="diary", name="Diary", access="vault", workspace=workspace)
    assert api.tool("memory_save", category="companion", title="A quiet walk", body="y",
                    space="diary").status_code == 200
    page = logged_in_page
    page.goto("/workspaces/")
    row = page.locator("tr", has_text="diary-app")
    row.get_by_role("button", name="Switch on").click()
    row = page.locator("tr", has_text="diary-app")
    expect(row).to_contain_text("vault spaces left out")
    assert "A quiet walk" not in (project / "MEMORY.md").read_text(encoding="utf-8")
    row.get_by_role("button", name="Include vault spaces").click()
    expect(page.get_by_text("where agents working there can read them")).to_be_visible()
    expect(page.locator("tr", has_text="diary-app")).to_contain_text("vault spaces included")
    assert "A quiet walk" in (project / "MEMORY.md").read_text(encoding="utf-8")
