"""Believable demo data: `populate` for the screenshots (spaces with memories, tokens, a configured provider,
jobs), and `every_page` for the page walks, which puts something on every dashboard page, in English and Chinese,
and answers the URL arguments of each (tests/browser/walk.py)."""

from __future__ import annotations

from datetime import timedelta

from django.core.cache import cache
from django.utils import timezone

from memoryhub.agents.models import ApiToken
from memoryhub.audit.models import record
from memoryhub.jobs import runner
from memoryhub.jobs.models import Job
from memoryhub.memories.models import Edge, Entry, Fact, RemoteWrite, Topic
from memoryhub.memories.notebooks import export, hot
from memoryhub.spaces.models import MemorySpace, ProviderService, Workspace
from memoryhub.spaces.provider_services import save_service
from memoryhub.spaces.workspaces import default_space
from memoryhub.vault import grants
from memoryhub.vault.models import AccessRequest
from tests.conftest import make_api

LONG = "https://example.com/" + "a-very-long-path-segment-without-spaces-" * 8


def populate(client) -> None:
    api = make_api(client, name="laptop-agent")
    api.turn("以后叫我老王", "好的，老王")
    api.turn("We decided to keep SQLite in WAL mode for the hub.", "Noted: SQLite (WAL) stays.")
    api.turn("The deploy script lives in scripts/deploy.sh", "ok", workspace="/home/wang/proj")
    api.tool("memory_note", text="Pitfall: never run migrations while the worker is busy.", category="pitfall",
             workspace="/home/wang/proj")
    ApiToken.issue("qq-bridge", origin="qq")
    save_service("honcho", {"endpoint": "http://127.0.0.1:8010", "apiKey": "demo-key"})
    save_service("mem0", {"endpoint": "https://api.mem0.ai", "apiKey": "demo-key", "mode": "platform"})
    ProviderService.objects.filter(kind="mem0").update(
        enabled=False, last_error="401 Unauthorized: Invalid API key", last_checked=timezone.now())
    runner.enqueue("selftest")
    now = timezone.now()
    Job.objects.create(kind="persona_rebuild", label="Persona rebuild", space=default_space(), status="failed",
                       progress=40,
                       started_at=now - timedelta(seconds=12), finished_at=now - timedelta(seconds=4),
                       error="ProviderError: the LLM endpoint did not answer within 25 s")
    Job.objects.create(kind="selftest", label="Self test", status="running", progress=60, message="step 3 of 5",
                       started_at=now - timedelta(seconds=2), heartbeat_at=now)


def every_page(client, tmp_path) -> dict:
    """The screenshot data and more: every kind of object a page can be about (facts and their history, a
    negation, topics, typed links, entities, a vault request and grant, notebooks, a remote write, audit events),
    some long unbroken text; answers the URL arguments each page needs."""
    populate(client)
    api = make_api(client, name="phone-agent")
    api.turn(f"Our deploy notes live at {LONG} and nowhere else", "ok")
    api.tool("memory_save", category="progress", title=LONG, body=LONG, tags=["a-rather-long-tag-name-for-layout"])
    api.turn("别叫我老王了，叫我小王", "好的，小王")
    api.turn("我不喜欢香菜", "记住了：不放香菜")
    api.tool("memory_save", category="decision", title="Postgres for production",
             body="Production runs on PostgreSQL 16; SQLite (WAL) stays the default for one machine.")
    api.post("context", {"session_id": "s3", "query": "do we keep SQLite in WAL mode?"})  # recalls with their ids
    space = default_space()
    first, second = Entry.objects.filter(space=space).order_by("id")[:2]
    Edge.objects.get_or_create(source=first, target=second, edge_type="causal")
    MemorySpace.objects.create(slug="diary", name="Diary", access="vault")
    vault_entry = api.tool("memory_save", category="companion", title="Evening walk", body=LONG, space="diary")
    api.tool("memory_save", category="experience", title="Climbing", body="Saturday climbing with Anna.",
             space="diary")
    request_id = api.tool("memory_request", space="diary", query="walk").json()["result"]["request_id"]
    granted = api.tool("memory_request", space="diary", session_id="s2").json()["result"]["request_id"]
    grants.approve(AccessRequest.objects.get(pk=granted), None, staff())
    consolidation = runner.enqueue("consolidate", space=space)
    workspace = Workspace.objects.first()
    exports(workspace, tmp_path)
    hot.apply(None, [hot.Op("add", "memory", "The repo uses uv; run tests with make test.")], actor="token:phone-agent")
    hot.apply(workspace, [hot.Op("add", "user", "老王 prefers short answers.")], actor="token:phone-agent")
    write = RemoteWrite.objects.create(space=honcho_space(), state=RemoteWrite.State.PENDING_VERIFICATION,
                                       title="Trip to Kyoto", body="The user plans a trip to Kyoto in April.",
                                       error="")
    record("admin", "space.create", "diary", after={"slug": "diary", "access": "vault"})
    record("admin", "space.settings", "default", before={"maxRecall": 8}, after={"maxRecall": 5})
    topic = Topic.objects.filter(space=space).first()
    fact = Fact.objects.filter(space=space, status=Fact.Status.ACTIVE).first()
    return {
        "slug": "default", "pk": Entry.objects.filter(space=space).latest("id").pk,
        "job_id": Job.objects.filter(space=space, kind="persona_rebuild").first().pk,
        "run_id": consolidation.pk, "entry_id": int(vault_entry.json()["result"]["id"]),
        "request_id": request_id, "kind": "honcho", "scope": "global", "target": "memory", "action": "add",
        "token_id": api.token.pk, "write_id": write.pk,
        "by_name": {"dashboard:topic": {"pk": topic.pk},
                    "dashboard:fact_invalidate": {"pk": fact.pk},
                    "dashboard:notebook": {"scope": workspace.slug},
                    "dashboard:vault_export": {"slug": workspace.slug}},
        "queries": {"dashboard:memory_related": f"?id={first.pk}",
                    "dashboard:fact_history": "?subject=user&predicate=nickname",
                    "dashboard:recall": "?q=what+do+you+call+me",
                    "dashboard:entities": "?entity=sqlite"},
        "extra_pages": ["/search/?q=deploy", f"/spaces/default/entries/{first.pk}/"],
    }


def staff():
    from django.contrib.auth import get_user_model

    return get_user_model().objects.filter(is_staff=True).first()


def exports(missing: Workspace, tmp_path) -> None:
    """MEMORY.md switched on twice: for a directory this machine lacks (its job fails, and says why) and for one
    that exists (written)."""
    notes = tmp_path / "notes"
    notes.mkdir(exist_ok=True)
    written = Workspace.objects.create(slug="notes", name="notes", path=str(notes), created_by="admin")
    for workspace in (missing, written):
        Workspace.objects.filter(pk=workspace.pk).update(export_memory_md=True)
        cache.delete(export.pending_key(workspace.pk))  # the cache outlives a test's database
        export.enqueue(Workspace.objects.get(pk=workspace.pk))


def honcho_space() -> MemorySpace:
    return MemorySpace.objects.get_or_create(slug="travel", defaults={
        "name": "Travel", "provider": "honcho", "config": {"workspace": "demo", "peer": "wang"}})[0]
