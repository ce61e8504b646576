"""MEMORY.md: newest-first blocks, written atomically into the workspace, regenerated after writes (coalesced)."""

import os

import pytest
from django.core.cache import cache

from memoryhub.audit.models import AuditEvent
from memoryhub.jobs.models import Job
from memoryhub.spaces.models import MemorySpace, Workspace, workspace_slug_for_path
from memoryhub.spaces.workspaces import resolve_workspace
from memoryhub.memories.notebooks import export

from tests.answers import result


@pytest.fixture
def project(db, tmp_path):
    path = tmp_path / "proj"
    path.mkdir()
    return str(path)


def workspace_of(path):
    return Workspace.objects.get(slug=workspace_slug_for_path(path))


def exported(path):
    """The workspace of `path` with MEMORY.md export switched on, as a person does in the dashboard."""
    workspace = resolve_workspace(path)
    Workspace.objects.filter(pk=workspace.pk).update(export_memory_md=True)
    return workspace


def save(api, project, title, **extra):
    return result(api.tool("memory_save", workspace=project, **{"category": "progress", "title": title,
                                                                 "body": f"Body of {title}.", **extra}))


def test_render_is_newest_first_with_the_seed_format(api, project):
    first = save(api, project, "Plugin skeleton", at="2026-10-24T00:36:00+00:00", tags=["plugin", "memory-vault"])
    save(api, project, "Redaction landed", category="decision", at="2026-10-24T01:01:00+00:00", related=[first["id"]])
    api.turn("a plain conversation turn", workspace=project)
    text = export.render(workspace_of(project))
    blocks = text.split("\n## ")[1:]
    assert blocks[0].startswith("2026-10-24 01:01 · [decision] Redaction landed\n")
    assert f"- related: {first['id']}" in blocks[0] and "- session: s1" in blocks[0]
    assert blocks[1].startswith("2026-10-24 00:36 · [progress] Plugin skeleton\n")
    assert "- tags: #plugin #memory-vault" in blocks[1] and "Body of Plugin skeleton." in blocks[1]
    assert "plain conversation turn" not in text and len(blocks) == 2


def test_vault_spaces_are_left_out_unless_the_workspace_opts_in(api, project):
    save(api, project, "Open progress")
    workspace = workspace_of(project)
    MemorySpace.objects.create(slug="proj-vault", name="V", access="vault", workspace=workspace)
    result(api.tool("memory_save", category="companion", title="Private walk", body="x", space="proj-vault"))
    assert "Private walk" not in export.render(workspace)
    Workspace.objects.filter(pk=workspace.pk).update(export_vault=True)
    assert "Private walk" in export.render(workspace_of(project))


def test_writes_regenerate_the_file_atomically(api, project, django_capture_on_commit_callbacks):
    exported(project)
    with django_capture_on_commit_callbacks(execute=True):
        save(api, project, "First step")
    target = os.path.join(project, "MEMORY.md")
    assert "First step" in open(target, encoding="utf-8").read()
    with django_capture_on_commit_callbacks(execute=True):
        save(api, project, "Second step")
    assert open(target, encoding="utf-8").read().index("Second step") < open(target, encoding="utf-8").read().index(
        "First step")
    assert sorted(os.listdir(project)) == ["MEMORY.md"]
    assert Job.objects.filter(kind="memory_md", status="succeeded").count() == 2


def test_a_burst_of_writes_queues_one_regeneration(api, project, django_capture_on_commit_callbacks):
    save(api, project, "Before")
    workspace = exported(project)
    cache.add(export.pending_key(workspace.pk), 1, 60)  # a regeneration is already queued
    with django_capture_on_commit_callbacks(execute=True):
        for n in range(3):
            save(api, project, f"Burst {n}")
    target = os.path.join(project, "MEMORY.md")
    assert not os.path.exists(target)
    export.regenerate(workspace.pk)
    assert all(f"Burst {n}" in open(target, encoding="utf-8").read() for n in range(3))
    assert cache.get(export.pending_key(workspace.pk)) is None


def test_vault_writes_do_not_touch_the_file_when_vault_is_excluded(api, project, django_capture_on_commit_callbacks):
    exported(project)
    save(api, project, "Open")
    MemorySpace.objects.create(slug="proj-vault", name="V", access="vault", workspace=workspace_of(project))
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        result(api.tool("memory_save", category="companion", title="Private", body="x", space="proj-vault"))
    assert callbacks == [] and not os.path.exists(os.path.join(project, "MEMORY.md"))


def test_unwritable_or_missing_directory_is_skipped(db, tmp_path):
    gone = Workspace.objects.create(slug="gone", name="gone", path=str(tmp_path / "missing"), export_memory_md=True)
    with pytest.raises(export.NotWritten):
        export.write_file(gone)
    with pytest.raises(export.NotWritten):
        export.write_file(Workspace.objects.create(slug="nopath", name="nopath", export_memory_md=True))


def test_download_needs_staff_and_serves_markdown(client, api, project, staff):
    save(api, project, "Downloadable")
    slug = workspace_of(project).slug
    r = client.get(f"/vault/export/{slug}/MEMORY.md")
    assert r.status_code == 200 and r["Content-Type"].startswith("text/markdown")
    assert 'filename="MEMORY.md"' in r["Content-Disposition"] and "Downloadable" in r.content.decode()
    assert client.get("/vault/export/unknown/MEMORY.md").status_code == 404
    client.logout()
    assert client.get(f"/vault/export/{slug}/MEMORY.md").status_code == 302


def test_a_person_chooses_on_the_workspaces_page_whether_vault_spaces_go_in(
        api, project, client, staff, django_capture_on_commit_callbacks):
    workspace = exported(project)
    save(api, project, "Open progress")
    MemorySpace.objects.create(slug="proj-vault", name="V", access="vault", workspace=workspace)
    result(api.tool("memory_save", category="companion", title="Private walk", body="x", space="proj-vault"))
    page = client.get("/workspaces/").content.decode()
    assert "vault spaces left out" in page and "Include vault spaces" in page
    target = os.path.join(project, "MEMORY.md")
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(f"/workspaces/{workspace.slug}/export", {"vault": "1"}).status_code == 302
    assert Workspace.objects.get(pk=workspace.pk).export_vault
    assert "Private walk" in open(target, encoding="utf-8").read()
    assert AuditEvent.objects.filter(action="workspace.export_vault_on", target=workspace.slug).exists()
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/workspaces/{workspace.slug}/export", {"vault": "0"})
    assert "Private walk" not in open(target, encoding="utf-8").read()
    assert Workspace.objects.get(pk=workspace.pk).export_memory_md  # the export itself stays as it was
