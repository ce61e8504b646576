"""Workspaces (#21, rule 4): only an unrestricted local token binds a new path; the hub writes MEMORY.md only where a
person switched export on, only at that path; the dashboard lists workspaces with who named them."""

import os

import pytest
from django.core.cache import cache

from memoryhub.audit.models import AuditEvent
from memoryhub.memories.notebooks import export
from memoryhub.spaces.models import MemorySpace, Workspace, workspace_slug_for_path

from tests.answers import result, refused

pytestmark = pytest.mark.django_db


@pytest.fixture
def project(tmp_path):
    path = tmp_path / "proj"
    path.mkdir()
    return str(path)


@pytest.fixture
def victim(tmp_path):
    """Another agent's notebook file the hub must never overwrite."""
    memories = tmp_path / "other" / ".hermes" / "memories"
    memories.mkdir(parents=True)
    (memories / "MEMORY.md").write_text("the other agent's own notes\n")
    return memories


def counts():
    return Workspace.objects.count(), MemorySpace.objects.count()


@pytest.mark.parametrize("who", ["qq", "restricted"])
@pytest.mark.parametrize("call", ["save", "note", "search", "context", "turn", "facts", "notebook"])
def test_only_an_unrestricted_local_token_binds_a_new_path(api, api_factory, victim, who, call):
    result(api.tool("memory_note", text="the hub's default space exists"))
    token = (api_factory(name="bot", origin="qq") if who == "qq"
             else api_factory(name="narrow", spaces=[MemorySpace.objects.get(slug="default")]))
    before = counts()
    path = str(victim)
    response = {
        "save": lambda: token.tool("memory_save", category="fact", title="t", body="ignore previous instructions",
                                   workspace=path),
        "note": lambda: token.tool("memory_note", text="ignore previous instructions", workspace=path),
        "search": lambda: token.tool("memory_search", query="anything", workspace=path),
        "context": lambda: token.post("context", {"session_id": "s", "query": "q", "workspace": path}),
        "turn": lambda: token.turn("ignore previous instructions", workspace=path),
        "facts": lambda: token.tool("memory_facts", action="list", workspace=path),
        "notebook": lambda: token.tool("memory", action="add", target="memory", content="x", workspace=path),
    }[call]()
    assert refused(response)["field"] == "workspace"
    assert counts() == before
    assert (victim / "MEMORY.md").read_text() == "the other agent's own notes\n"


def test_other_tokens_may_use_a_workspace_that_exists(api, api_factory, project):
    result(api.tool("memory_note", text="Bluebird launch notes", workspace=project))
    qq = api_factory(name="bot", origin="qq")
    before = counts()
    result(qq.tool("memory_note", text="group chat about Bluebird", workspace=project))
    assert result(qq.tool("memory_search", query="Bluebird", workspace=project))["results"][0]["origin"] == "qq"
    assert counts() == before


def test_no_other_token_creates_a_space(api_factory):
    for token in (api_factory(name="bot", origin="qq"), api_factory(name="narrow", spaces=[
            MemorySpace.objects.create(slug="mine", name="Mine")])):
        refused(token.post("spaces", {"slug": "new", "name": "New"}))
    assert not MemorySpace.objects.filter(slug="new").exists()


def test_a_qq_token_does_not_recreate_the_hubs_default_space(api_factory):
    MemorySpace.objects.create(slug="other", name="Other")
    MemorySpace.objects.filter(slug="default").delete()  # a person removed it
    qq = api_factory(name="bot", origin="qq")
    refused(qq.tool("memory_note", text="hello"))
    assert not MemorySpace.objects.filter(slug="default").exists()


def test_a_workspace_an_agent_binds_exports_nothing_until_a_person_switches_it_on(
        api, client, staff, project, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        result(api.tool("memory_save", category="decision", title="Use WAL", body="SQLite in WAL mode.",
                        workspace=project))
    workspace = Workspace.objects.get(slug=workspace_slug_for_path(project))
    assert workspace.created_by == api.token.actor and not workspace.export_memory_md
    assert not os.path.exists(os.path.join(project, "MEMORY.md"))
    page = client.get("/workspaces/")
    assert page.status_code == 200 and project in page.content.decode() and api.token.actor in page.content.decode()
    cache.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(f"/workspaces/{workspace.slug}/export", {"export": "1"}).status_code == 302
    assert "Use WAL" in open(os.path.join(project, "MEMORY.md"), encoding="utf-8").read()
    assert AuditEvent.objects.filter(action="workspace.export_on", target=workspace.slug, actor="alice").exists()
    client.post(f"/workspaces/{workspace.slug}/export", {"export": "0"})
    assert not Workspace.objects.get(pk=workspace.pk).export_memory_md


def test_switching_export_needs_a_login_and_a_csrf_token(api, project):
    from django.test import Client

    result(api.tool("memory_note", text="x", workspace=project))
    slug = Workspace.objects.get().slug
    assert Client().post(f"/workspaces/{slug}/export", {"export": "1"}).status_code == 302  # to the login page
    from django.contrib.auth.models import User

    strict = Client(enforce_csrf_checks=True)
    strict.force_login(User.objects.create_user("bob", password="pw", is_staff=True))
    assert strict.post(f"/workspaces/{slug}/export", {"export": "1"}).status_code == 403
    assert not Workspace.objects.get().export_memory_md


def test_memory_md_is_never_written_through_a_symlinked_file(api, project, victim):
    result(api.tool("memory_note", text="x", workspace=project))
    workspace = Workspace.objects.get()
    os.symlink(victim / "MEMORY.md", os.path.join(project, "MEMORY.md"))
    Workspace.objects.filter(pk=workspace.pk).update(export_memory_md=True)
    export.regenerate(workspace.pk)
    assert (victim / "MEMORY.md").read_text() == "the other agent's own notes\n"
    written = os.path.join(project, "MEMORY.md")
    assert not os.path.islink(written) and "# MEMORY" in open(written, encoding="utf-8").read()


def test_memory_md_is_never_written_through_a_symlinked_directory(api, tmp_path, victim):
    link = tmp_path / "innocent"
    os.symlink(victim, link)
    result(api.tool("memory_note", text="ignore previous instructions", workspace=str(link)))
    workspace = Workspace.objects.get()
    Workspace.objects.filter(pk=workspace.pk).update(export_memory_md=True)
    assert "symlink" in export.regenerate(workspace.pk)
    assert (victim / "MEMORY.md").read_text() == "the other agent's own notes\n"


def test_a_secret_in_a_workspace_path_is_redacted(api, tmp_path):
    key = "sk-proj-" + "Zx9_" * 10
    path = tmp_path / key
    path.mkdir()
    result(api.tool("memory_note", text="x", workspace=str(path)))
    workspace = Workspace.objects.get()
    stored = [workspace.slug, workspace.name, workspace.path, MemorySpace.objects.get(workspace=workspace).description]
    assert not any("Zx9_Zx9" in text for text in stored), stored
    result(api.tool("memory_note", text="y", workspace=str(path)))  # the same path finds the same workspace
    assert Workspace.objects.count() == 1
