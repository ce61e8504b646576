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


def preview_text(client, slug, max_chars):
    r = client.get(f"/spaces/{slug}/recall/", {"q": QUERY, "max_chars": max_chars})
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
    assert preview_text(client, "default", max_chars) == expected["text"]
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
    assert preview_text(client, space.slug, 2600) == expected["text"]
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
