"""The dashboard as a list of things to walk, for the people matrix and the audit walk.

`routes()` reads every pattern from the URL conf (memoryhub.urls and what it includes), so a view added
there is walked the day it lands. `ROWS` says, per URL name, which methods the view takes, which spaces
it is asked about, its URL arguments and query, and the form a POST sends to really change something
(`changes`), the way the agent matrix says how each tool is called. `build()` makes the world they run
against: an open and a vault space whose every kind of record (entries, facts, a topic, a persona, the op
log) carries a marker word (`mkopen`, `mkvault`), a third-party space, a workspace, jobs, tokens, vault
requests, a notebook and the files the imports read.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Callable

from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone

from memoryhub.agents.models import ApiToken
from memoryhub.audit.models import AuditEvent
from memoryhub.jobs.models import Job
from memoryhub.memories.facts import slots
from memoryhub.memories.maintenance import packs
from memoryhub.memories.models import ConsolidationRun, Entry, Fact, Kind, Persona, RemoteWrite, Topic
from memoryhub.memories.notebooks import hot
from memoryhub.memories.write import gateway
from memoryhub.spaces import space_settings
from memoryhub.spaces.models import MemorySpace, Workspace
from memoryhub.spaces.provider_services import save_service
from memoryhub.vault import grants
from memoryhub.vault.models import AccessRequest

STAFF, SIGNED_IN = "root", "guest"
NATIVE = ("open", "vault")  # the spaces every native space page is asked about
VAULT_MARK = "mkvault"


@dataclass(frozen=True)
class Route:
    name: str  # "dashboard:space", or the pattern itself for a route without a name
    pattern: str
    callback: Callable


def routes() -> list[Route]:
    """Every URL pattern of the URL conf, with its full pattern and its namespaced name."""
    found: list[Route] = []

    def walk(patterns, prefix: str, namespace: str) -> None:
        for p in patterns:
            if isinstance(p, URLResolver):
                inner = f"{namespace}{p.namespace}:" if p.namespace else namespace
                walk(p.url_patterns, prefix + str(p.pattern), inner)
            elif isinstance(p, URLPattern):
                full = prefix + str(p.pattern)
                found.append(Route(f"{namespace}{p.name}" if p.name else full, full, p.callback))

    walk(get_resolver().url_patterns, "", "")
    return found


def dashboard_routes() -> dict[str, Route]:
    return {r.name.split(":", 1)[1]: r for r in routes() if r.name.startswith("dashboard:")}


# --- the rows ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Row:
    methods: tuple[str, ...] = ("GET",)
    spaces: tuple[str, ...] = (None,)  # which world spaces the URL is asked about (None: it names no space)
    args: Callable[[dict, str], dict] = lambda w, s: {"slug": s}
    query: Callable[[dict, str], dict] = lambda w, s: {}
    post: Callable[[dict, str], dict] = lambda w, s: {}
    changes: bool = True  # a staff POST with this form changes something (and must be audited)
    outside: bool = False  # what it changes is kept outside the database (a provider's own store)
    shows: bool = False  # a staff GET shows the space's marker (the walk is not blind)
    embeddings: bool = False  # needs an embeddings service


def space_row(**kw) -> Row:
    return Row(spaces=NATIVE, **kw)


def none(w, s) -> dict:
    return {}


def settings_form(**changes) -> dict:
    values = {**space_settings.defaults(), **changes}
    return {k: ("on" if v is True else str(v)) for k, v in values.items() if v is not False}


ROWS: dict[str, Row] = {
    # spaces overview and a space's tabs
    "home": Row(args=none),
    "search": Row(args=none, query=lambda w, s: {"q": "zebulon"}),
    "space_create": Row(methods=("GET", "POST"), args=none, post=lambda w, s: {
        "slug": "made", "name": "Made", "provider": "native", "access": "open", "active": "on"}),
    "choose": Row(methods=("GET", "POST"), args=none, changes=False, post=lambda w, s: {
        "candidates": ["native"], "boundary": "any", "preference": "balanced"}),
    "space": space_row(shows=True),
    "space_edit": space_row(methods=("GET", "POST"), post=lambda w, s: {
        "name": "Renamed", "access": w["spaces"][s].access, "active": "on", "description": "edited"}),
    "space_toggle": space_row(methods=("POST",)),
    "space_delete": space_row(methods=("GET", "POST")),
    "note": space_row(methods=("POST",), post=lambda w, s: {"text": "a note a person wrote", "category": ""}),
    "bulk": space_row(methods=("POST",), post=lambda w, s: {
        "action": "archive", "ids": [w["entries"][s][1]], "confirm": "1"}),
    "entry": space_row(shows=True, args=lambda w, s: {"slug": s, "pk": w["entries"][s][0]}),
    "entry_edit": space_row(methods=("GET", "POST"), shows=True,
                            args=lambda w, s: {"slug": s, "pk": w["entries"][s][0]},
                            post=lambda w, s: {"title": "corrected", "body": "corrected body", "category": "general",
                                               "tags": "kept"}),
    "entry_forget": space_row(methods=("POST",), args=lambda w, s: {"slug": s, "pk": w["entries"][s][1]}),
    "record_forget": Row(methods=("POST",), spaces=("third",), outside=True,
                         post=lambda w, s: {"id": w["remote"][1]}),
    "activity": space_row(shows=True),
    "space_settings": space_row(methods=("GET", "POST"), post=lambda w, s: settings_form(maxRecall=3)),
    "persona": space_row(methods=("GET", "POST"), shows=True, post=lambda w, s: {"profile": "a new profile"}),
    "persona_rebuild": space_row(methods=("POST",)),
    "persona_job": space_row(args=lambda w, s: {"slug": s, "job_id": w["persona_jobs"][s]}),
    "facts": space_row(methods=("GET", "POST"), shows=True, post=lambda w, s: {
        "subject": "user", "predicate": "name", "value": "Zed"}),
    "fact_history": space_row(shows=True, query=lambda w, s: {"subject": "user", "predicate": "nickname"}),
    "fact_invalidate": space_row(methods=("POST",), args=lambda w, s: {"slug": s, "pk": w["facts"][s]}),
    "topics": space_row(shows=True),
    "topic": space_row(shows=True, args=lambda w, s: {"slug": s, "pk": w["topics"][s]}),
    "recall": space_row(query=lambda w, s: {"q": "zebulon"}),
    "graph": space_row(),
    "graph_data": space_row(shows=True),
    "entities": Row(spaces=("open", "third")),  # a vault space has no entity pages (404 for everyone)
    "memory_related": Row(spaces=("open", "third"),
                          query=lambda w, s: {"id": w["remote"][0] if s == "third" else w["entries"][s][0]}),
    "memory_link": Row(methods=("POST",), spaces=("open",), post=lambda w, s: {
        "from": w["entries"][s][0], "to": w["entries"][s][1], "kind": "causal"}),
    "memory_link_candidates": Row(spaces=("open",), query=lambda w, s: {"q": "zebulon", "from": w["entries"][s][0]},
                                  shows=True),
    "memory_feedback": Row(methods=("POST",), spaces=("third",), outside=True,
                           post=lambda w, s: {"id": w["remote"][0], "verdict": "wrong"}),
    "charts": space_row(),
    # space maintenance
    "maintenance": space_row(),
    "maintenance_job": space_row(args=lambda w, s: {"slug": s, "job_id": w["persona_jobs"][s]}),
    "consolidate": space_row(methods=("POST",)),
    "consolidate_undo": space_row(methods=("POST",), args=lambda w, s: {"slug": s, "run_id": w["runs"][s]}),
    "gc_keep": space_row(methods=("POST",), args=lambda w, s: {"slug": s, "entry_id": w["entries"][s][0]}),
    "compact": space_row(methods=("POST",)),
    "embed": Row(methods=("POST",), spaces=("open",), embeddings=True),  # a vault space is never embedded
    "import_history": space_row(methods=("POST",), post=lambda w, s: {
        "path": w["files"]["history"], "format": "auto", "action": "import"}),
    "retag_origin": space_row(methods=("POST",), post=lambda w, s: {
        "path": w["files"]["sessions"], "origin": "qq", "action": "apply"}),
    "space_export": space_row(methods=("POST",), changes=False, post=lambda w, s: {
        "format": "jsonl", "confirm_vault": "1"}),
    "export_all": Row(methods=("GET", "POST"), args=none, changes=False, post=lambda w, s: {
        "format": "markdown", "include_vault": "1"}),
    "space_copy": Row(spaces=("open", "vault", "third"), query=lambda w, s: {"to": "open" if s == "third" else ""}),
    "copy_start": Row(methods=("POST",), spaces=("open",), outside=True, post=lambda w, s: {"to": "third"}),
    "copy_forget": Row(methods=("POST",), spaces=("open",), post=lambda w, s: {"to": "third", "confirm": "1"}),
    "copy_job": space_row(args=lambda w, s: {"slug": s, "job_id": w["persona_jobs"][s]}),
    "pack_export": space_row(),
    "pack_import": Row(methods=("POST",), args=none, post=lambda w, s: {
        "pack": SimpleUploadedFile("open.tar.gz", w["pack"]), "slug": "copied"}),
    # provider services, jobs, API tokens, audit
    "providers": Row(args=none),
    "provider_save": Row(methods=("POST",), args=lambda w, s: {"kind": "holographic"},
                         post=lambda w, s: {"dataPath": w["files"]["holo2"]}),
    "provider_test": Row(methods=("POST",), args=lambda w, s: {"kind": "holographic"}, changes=False),
    "provider_discover": Row(methods=("POST",), args=lambda w, s: {"kind": "openviking"}, changes=False),
    "jobs": Row(args=none),
    "job_selftest": Row(methods=("POST",), args=none),
    "job": Row(args=lambda w, s: {"job_id": w["jobs"]["failed"]}),
    "job_retry": Row(methods=("POST",), args=lambda w, s: {"job_id": w["jobs"]["failed"]}),
    "job_cancel": Row(methods=("POST",), args=lambda w, s: {"job_id": w["jobs"]["queued"]}),
    "tokens": Row(methods=("GET", "POST"), args=none, post=lambda w, s: {"name": "laptop", "origin": "local",
                                                                        "scope": "all"}),
    "token_revoke": Row(methods=("GET", "POST"), args=lambda w, s: {"token_id": w["tokens"]["spare"]}),
    "token_pause": Row(methods=("POST",), args=lambda w, s: {"token_id": w["tokens"]["spare"]}),
    "audit": Row(args=none),
    "connect": Row(methods=("GET", "POST"), args=none, post=lambda w, s: {
        "name": "first-agent", "space": "open", "origin": "local"}),
    "connect_status": Row(args=lambda w, s: {"token_id": w["tokens"]["spare"]}),
    # notebooks, remote writes, workspaces
    "notebook": Row(args=lambda w, s: {"scope": "global"}),
    "notebook_download": Row(args=lambda w, s: {"scope": "global", "target": "memory"}),
    "notebook_import": Row(methods=("POST",), args=lambda w, s: {"scope": "global", "target": "user"},
                           post=lambda w, s: {"file": SimpleUploadedFile("USER.md", "Prefers tea.".encode())}),
    "notebook_change": Row(methods=("POST",), args=lambda w, s: {"scope": "global", "target": "memory",
                                                                 "action": "add"},
                           post=lambda w, s: {"content": "Deploys go through make release."}),
    "writes": Row(args=none),
    "write_recheck": Row(methods=("POST",), args=lambda w, s: {"write_id": w["write"]}),
    "workspaces": Row(args=none),
    "workspace_export": Row(methods=("POST",), args=lambda w, s: {"slug": "ws"}, post=lambda w, s: {"export": "1"}),
    # the vault
    "vault_entries": Row(args=none),
    "vault_companion": Row(args=none),
    "vault_entry": Row(args=lambda w, s: {"entry_id": w["entries"]["vault"][0]}),
    "vault_requests": Row(args=none),
    "vault_approve": Row(methods=("POST",), args=lambda w, s: {"request_id": w["requests"]["approve"]},
                         post=lambda w, s: {"all": "1"}),
    "vault_deny": Row(methods=("POST",), args=lambda w, s: {"request_id": w["requests"]["deny"]}),
    "vault_grants": Row(args=none),
    "vault_revoke": Row(methods=("POST",), args=lambda w, s: {"request_id": w["requests"]["granted"]}),
    "vault_export": Row(args=lambda w, s: {"slug": "ws"}),
}


# --- the world -----------------------------------------------------------------------------

def marker(slug: str) -> str:
    return f"mk{slug}"


def build(tmp_path, django_user_model) -> dict[str, Any]:
    """The world every row runs against (see the module's docstring)."""
    staff = django_user_model.objects.create_superuser(STAFF, password=None)  # no hashing: sessions are forced
    guest = django_user_model.objects.create_user(SIGNED_IN, password=None)
    save_service("holographic", {"dataPath": str(tmp_path / "holo")})
    ws_dir = tmp_path / "ws"
    ws_dir.mkdir()
    workspace = Workspace.objects.create(slug="ws", name="Project", path=str(ws_dir))
    spaces = {"open": MemorySpace.objects.create(slug="open", name="Open", workspace=workspace),
              "vault": MemorySpace.objects.create(slug="vault", name="Vault", access=MemorySpace.Access.VAULT,
                                                  workspace=workspace),
              "third": MemorySpace.objects.create(slug="third", name="Third", provider="holographic")}
    agent = ApiToken.issue("agent", "local", [])[0]
    world: dict[str, Any] = {"staff": staff, "guest": guest, "spaces": spaces, "entries": {}, "facts": {},
                             "topics": {}, "persona_jobs": {}, "runs": {}}
    now = timezone.now()
    for slug in NATIVE:
        space, mark = spaces[slug], marker(slug)
        entries = [gateway.write(space, gateway.Draft(title=f"zebulon {mark} {n}", body=f"zebulon {mark} body {n}",
                                                      session_id="s1"), actor="token:agent").entry
                   for n in ("one", "two")]
        turn = gateway.write(space, gateway.Draft(kind=Kind.TURN, user=f"Call me {mark.capitalize()}", assistant="ok",
                                                  session_id="s1"), actor="token:agent").entry
        world["entries"][slug] = [e.pk for e in (*entries, turn)]
        slots.assert_fact(space, "user", "nickname", mark.capitalize())
        world["facts"][slug] = Fact.objects.filter(space=space, status=Fact.Status.ACTIVE).first().pk
        topic = Topic.objects.create(space=space, session_id="s1", title=f"zebulon {mark} topic", started_at=now,
                                     ended_at=now, turn_count=1)
        Entry.objects.filter(pk=turn.pk).update(topic=topic)
        world["topics"][slug] = topic.pk
        Persona.objects.update_or_create(space=space, origin="local", defaults={"profile": f"{mark} profile"})
        world["persona_jobs"][slug] = Job.objects.create(kind="persona_rebuild", space=space,
                                                         status=Job.Status.SUCCEEDED, finished_at=now).pk
        world["runs"][slug] = ConsolidationRun.objects.create(space=space, status=ConsolidationRun.Status.APPLIED).pk
    saved = [gateway.write(spaces["third"], gateway.Draft(title=f"zebulon third {n}", body=f"zebulon third {n}"),
                           actor=agent.actor) for n in ("one", "two")]
    world["remote"] = [w.id.split(":", 1)[1] for w in saved]
    world["write"] = RemoteWrite.objects.create(space=spaces["third"], state=RemoteWrite.State.PENDING_VERIFICATION,
                                                body="zebulon third pending").pk
    vault_entries = world["entries"]["vault"]
    world["requests"] = {name: grants.file_request(agent, f"ask-{name}", {"query": "zebulon"}, [spaces["vault"]],
                                                   vault_entries).pk
                         for name in ("approve", "deny", "granted")}
    grants.approve(AccessRequest.objects.get(pk=world["requests"]["granted"]), None, staff)
    world["jobs"] = {"failed": Job.objects.create(kind="selftest", status=Job.Status.FAILED, error="boom",
                                                  finished_at=now).pk,
                     "queued": Job.objects.create(kind="selftest", status=Job.Status.QUEUED).pk}
    world["tokens"] = {"spare": ApiToken.issue("spare", "local", [])[0].pk}
    hot.apply(None, [hot.Op("add", "memory", "The repo uses uv.")], actor="token:agent")
    history = tmp_path / "history.jsonl"
    history.write_text("\n".join(json.dumps(x) for x in [
        {"role": "user", "content": "how do I rotate alerts.log?", "session_id": "u1"},
        {"role": "assistant", "content": "use logrotate", "session_id": "u1"}]))
    sessions = tmp_path / "sessions.json"
    sessions.write_text(json.dumps({"group:1": {"sessionId": "s1", "chatType": "group", "senderId": "7"}}))
    world["files"] = {"history": str(history), "sessions": str(sessions), "holo2": str(tmp_path / "holo2")}
    world["pack"] = packs.export(spaces["open"])
    return world


# --- what changed --------------------------------------------------------------------------

# Columns the hub itself keeps up to date while it serves (clocks, counters of use, the last error seen): a
# connection test or a page view moves them without anyone having changed anything.
BOOKKEEPING = {
    ("spaces", "providerservice"): {"last_checked", "last_error", "enabled"},
    ("spaces", "memoryspace"): {"last_error", "last_seen_at"},
    ("agents", "apitoken"): {"last_used_at"},
}


def db_state() -> str:
    """A digest of every row the hub keeps (but the audit log and the bookkeeping columns)."""
    digest = hashlib.sha256()
    for model in apps.get_models():
        if not model.__module__.startswith("memoryhub.") or model is AuditEvent:
            continue
        skip = BOOKKEEPING.get((model._meta.app_label, model._meta.model_name), set())
        names = [f.attname for f in model._meta.concrete_fields if f.name not in skip]
        for row in model.objects.order_by("pk").values_list(*names):
            digest.update(repr((model._meta.label, row)).encode())
        for m2m in model._meta.many_to_many:
            through = m2m.remote_field.through
            digest.update(repr(list(through.objects.order_by("pk").values_list())).encode())
    return digest.hexdigest()

