"""Workspaces in a real browser: an agent binds its directory, a person finds it with who bound it and switches
MEMORY.md export on; only then does the file appear."""

import os

import pytest

pytestmark = pytest.mark.browser


def test_a_person_switches_memory_md_export_on(logged_in_page, api, tmp_path):
    from playwright.sync_api import expect

    project = tmp_path / "garden-app"
    project.mkdir()
    saved = api.tool("memory_save", category="decision", title="Chose SQLite", body="WAL mode.",
                     workspace=str(project))
    assert saved.status_code == 200, saved.content
    target = project / "MEMORY.md"
    assert not target.exists()

    page = logged_in_page
    page.goto("/")
    page.get_by_role("link", name="Workspaces").click()
    row = page.locator("tr", has_text="garden-app")
    expect(row).to_contain_text(str(project))
    expect(row).to_contain_text(api.token.actor)
    expect(row).to_contain_text("off")
    row.get_by_role("button", name="Switch on").click()
    expect(page.locator("tr", has_text="garden-app")).to_contain_text("on")
    expect(page.get_by_text("MEMORY.md will be written to")).to_be_visible()
    assert "Chose SQLite" in target.read_text(encoding="utf-8")
    assert not os.path.islink(target)
