"""The recall preview is /context: the same pinned notebooks first, counted against the budget, byte for byte."""

import html
import re

import pytest

from memoryhub.dashboard.views.recall import preview_for
from memoryhub.memories.notebooks import hot
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.workspaces import default_space, resolve_workspace, workspace_space

QUERY = "when does the nightly backup run?"


def fill(api, **where):
    api.turn("The nightly backup goes to the NAS at 02:00.", "ok", **where)
    api.turn("The staging server is called kestrel.", "noted", **where)


def context(api, max_chars, **body):
    r = api.post("context", {"session_id": f"fresh-{max_chars}", "query": QUERY, "max_chars": max_chars, **body})
    assert r.status_code == 200, r.content
    return r.json()


def preview_text(client, slug, max_chars, **params):
    r = client.get(f"/spaces/{slug}/recall/", {"q": QUERY, "max_chars": max_chars, **params})
    assert r.status_code == 200
    found = re.search(r'<pre id="recall-text" class="frame">(.*?)</pre>', r.content.decode(), re.S)
    return html.unescape(found.group(1)) if found else ""


@pytest.mark.parametrize("max_chars", [2600, 400, 120, 0])
def test_the_preview_of_the_default_space_is_what_context_gives_byte_for_byte(api, client, staff, max_chars):
    fill(api)
    hot.apply(None, [hot.Op("add", "memory", "Deploys go through make release, never by hand."),
                     hot.Op("add", "user", "Prefers short answers in English.")], actor="test")
    expected = context(api, max_chars, space="default")
    assert preview_for(default_space(), QUERY, max_chars).text == expected["text"]
    assert preview_text(client, "default", max_chars, reads="named") == expected["text"]
    if max_chars >= 400:
        assert expected["text"].startswith("## MEMORY (your notes)") and "make release" in expected["text"]
        assert "NAS at 02:00" in expected["text"]


def test_the_preview_of_a_workspace_space_pins_the_workspaces_notebooks_too(api, client, staff, tmp_path):
    path = str(tmp_path / "ledger")
    workspace = resolve_workspace(path)
    fill(api, workspace=path)
    hot.apply(None, [hot.Op("add", "memory", "The hub's own note.")], actor="test")
    hot.apply(workspace, [hot.Op("add", "memory", "Ledger closes on the 25th.")], actor="test")
    space = workspace_space(workspace)
    expected = context(api, 2600, space=space.slug, workspace=workspace.slug)
    assert "The hub's own note." in expected["text"] and "Ledger closes on the 25th." in expected["text"]
    assert preview_text(client, space.slug, 2600, reads="named") == expected["text"]
    ids = [i["id"] for i in context(api, 2600, space=space.slug, workspace=workspace.slug)["items"]][:2]
    assert ids == ["notebook:global:memory", f"notebook:{workspace.slug}:memory"]


def test_the_preview_says_why_a_notebook_is_there(api, client, staff):
    hot.apply(None, [hot.Op("add", "memory", "Deploys go through make release.")], actor="test")
    page = client.get("/spaces/default/recall/", {"q": QUERY}).content.decode()
    assert "MEMORY.md · the hub" in page and "A pinned notebook: first in every session" in page


def test_a_vault_space_previews_only_the_notebooks(api, client, staff):
    MemorySpace.objects.create(slug="diary", name="Diary", access="vault")
    api.tool("memory_save", category="companion", title="A walk", body="We walked by the river.", space="diary")
    hot.apply(None, [hot.Op("add", "memory", "A note for every session.")], actor="test")
    text = preview_for(MemorySpace.objects.get(slug="diary"), "river walk", 2600).text
    assert "A note for every session." in text and "river" not in text


def test_by_default_the_preview_is_what_an_agent_naming_no_space_gets(api, client, staff, tmp_path):
    """An agent's hooks name no space, only their workspace: that block is the preview of the space its turns
    land in (before, the preview read only the space itself: 1,401 characters against the agent's 513)."""
    path = str(tmp_path / "ledger")
    workspace = resolve_workspace(path)
    fill(api)
    api.turn("The ledger's nightly backup is verified by restore-check at 03:00.", "ok", workspace=path)
    MemorySpace.objects.create(slug="notes", name="Notes")
    api.tool("memory_save", category="decision", title="Backup", body="Backups of the NAS run nightly.", space="notes")
    space = workspace_space(workspace)

    unnamed = context(api, 2600, workspace=workspace.slug)
    named = context(api, 2600, space=space.slug, workspace=workspace.slug)
    assert unnamed["text"] != named["text"] and "Backups of the NAS" in unnamed["text"]
    page = client.get(f"/spaces/{space.slug}/recall/", {"q": QUERY}).content.decode()
    assert 'data-named="false"' in page and 'id="id_reads"' in page
    assert preview_text(client, space.slug, 2600) == unnamed["text"]
    assert preview_text(client, space.slug, 2600, reads="named") == named["text"]

    nothing = context(api, 2600)
    assert preview_text(client, "default", 2600) == nothing["text"]
    assert "restore-check" in nothing["text"]  # no workspace named: the workspace's spaces are read too


def test_a_space_no_unnamed_write_lands_in_previews_only_as_named(api, client, staff):
    MemorySpace.objects.create(slug="notes", name="Notes")
    api.tool("memory_save", category="decision", title="Backup", body="The nightly backup runs at 02:00.",
             space="notes")
    page = client.get("/spaces/notes/recall/", {"q": QUERY, "reads": "unnamed"}).content.decode()
    assert 'id="id_reads"' not in page and 'data-named="true"' in page
    assert preview_text(client, "notes", 2600) == context(api, 2600, space="notes")["text"]


def test_without_notebooks_the_preview_is_what_the_hooks_inject_with_each_prompt(api, client, staff):
    fill(api)
    hot.apply(None, [hot.Op("add", "memory", "Deploys go through make release, never by hand.")], actor="test")
    per_prompt = context(api, 2600, notebooks=False)["text"]
    assert "make release" not in per_prompt and "NAS at 02:00" in per_prompt
    assert preview_text(client, "default", 2600, notebooks="without") == per_prompt
    assert preview_text(client, "default", 2600).startswith("## MEMORY (your notes)")
