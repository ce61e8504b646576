"""The access matrix (#21): every operation of the registry × {local, qq, space-restricted token} × {open, vault,
third-party space} × {read, change}, checked against the rules of docs/api.md, not against the policy code.
Each operation is called through the face an agent uses for it: a tool at POST /api/v1/tools/{name}, the others
(memory_turn, memory_context, spaces, providers, session end) at their own endpoint.

Each space holds a record of each origin carrying a marker word (`mk<origin><space>`): a fact, a profile
and an entry natively, a record in the third-party store. After every call, (1) the answer may show only
markers the caller may see, (2) no state the caller may not change has changed, (3) refusals are the
documented ones. An operation added to the registry without a row in CALLS fails here, so it is covered the
day it lands.
"""

from __future__ import annotations

import json

import pytest

from memoryhub.agents.models import ApiToken
from memoryhub.memories.models import Entry, Fact, Persona
from memoryhub.spaces.models import MemorySpace
from memoryhub.spaces.provider_services import provider_for, save_service
from memoryhub.operations import registry
from memoryhub.vault.models import AccessRequest
from tests.conftest import Api

pytestmark = pytest.mark.django_db

SPACES = ("open", "vault", "third")
TOKENS = ("local", "qq", "restricted")
ORIGIN = {"local": "local", "qq": "qq", "restricted": "local"}


def marker(origin: str, space: str) -> str:
    return f"mk{origin}{space}"


# How each tool is called to read and to change, given the space and the ids of its records by origin.
# None: the tool has no such mode. Rows are (arguments, the marker a permitted call must show, if any).
CALLS = {
    "memory_save": {"change": lambda s, ids: ({"category": "fact", "title": "new", "body": "mknewsave", "space": s},
                                              None)},
    "memory_note": {"change": lambda s, ids: ({"text": "mknewnote", "space": s}, None)},
    "memory_note_batch": {"change": lambda s, ids: ({"notes": ["mknewbatch one", "mknewbatch two"], "space": s}, None)},
    "memory_search": {"read": lambda s, ids: ({"query": "zebulon", "space": s, "limit": 50}, "own")},
    "memory_recall": {"read": lambda s, ids: ({"id": ids["local"]}, "local")},
    "memory_forget": {"change": lambda s, ids: ({"id": ids["local"]}, None)},
    "memory_profile": {"read": lambda s, ids: ({"action": "get", "space": s}, "own"),
                       "change": lambda s, ids: ({"action": "set", "profile": "mknewprofile", "space": s}, None)},
    "memory_facts": {"read": lambda s, ids: ({"action": "list", "space": s, "all": True}, "own"),
                     "change": lambda s, ids: ({"action": "invalidate", "predicate": "nickname", "space": s}, None)},
    "memory_link": {"change": lambda s, ids: ({"from": ids["local"], "to": ids["qq"], "kind": "causal"}, None)},
    "memory_feedback": {"change": lambda s, ids: ({"id": ids["local"], "verdict": "wrong"}, None)},
    "memory_request": {"read": lambda s, ids: ({"query": "zebulon", "space": s}, None)},
    "memory_status": {"read": lambda s, ids: ({}, None)},
    "memory_read": {"read": lambda s, ids: ({"request_id": "REQUEST"}, None)},
    "memory": {"change": lambda s, ids: ({"action": "add", "target": "memory", "content": "mknewnotebook"}, None)},
    "memory_turn": {"change": lambda s, ids: ({"session_id": "matrix", "user": "mknewturn said", "assistant": "ok",
                                               "space": s}, None)},
    "memory_context": {"read": lambda s, ids: ({"session_id": "matrix", "query": "zebulon", "space": s}, "own")},
    "spaces_list": {"read": lambda s, ids: ({}, None)},
    "providers_list": {"read": lambda s, ids: ({}, None)},
    "space_create": {"change": lambda s, ids: ({"slug": f"new-{s}", "name": "New"}, None)},
    "session_end": {"change": lambda s, ids: ({}, None)},
}


def test_every_registered_operation_has_a_row_in_the_matrix():
    assert set(CALLS) == set(registry.OPERATIONS), "add the new operation's read and change calls to CALLS"


def call(api: Api, name: str, session_id: str, arguments: dict):
    """The operation as an agent calls it: a tool, else its own endpoint (`POST /api/v1/turns`)."""
    operation = registry.get(name)
    if operation.tool:
        return api.tool(name, session_id=session_id, **arguments)
    method, path = operation.endpoint.split(" ", 1)
    path = path.removeprefix("/api/v1/").replace("{session_id}", session_id)
    return api.get(path) if method == "GET" else api.post(path, arguments)


@pytest.fixture
def world(client, tmp_path):
    """Three spaces with one record of each origin in each, and the three tokens."""
    save_service("holographic", {"dataPath": str(tmp_path)})
    spaces = {"open": MemorySpace.objects.create(slug="open", name="Open"),
              "vault": MemorySpace.objects.create(slug="vault", name="Vault", access="vault"),
              "third": MemorySpace.objects.create(slug="third", name="Third", provider="holographic")}
    tokens = {}
    for name, origin, allowed in (("local", "local", []), ("qq", "qq", []), ("restricted", "local", [spaces["open"]])):
        token, raw = ApiToken.issue(name=name, origin=origin, spaces=allowed)
        tokens[name] = Api(client, raw, token)
    ids = {}
    for origin, token in (("local", tokens["local"]), ("qq", tokens["qq"])):
        for slug in SPACES:
            mark = marker(origin, slug)
            saved = token.tool("memory_save", category="fact", title=f"zebulon {mark}", body=f"zebulon {mark} body",
                               space=slug)
            assert saved.status_code == 200, saved.content
            ids[(origin, slug)] = saved.json()["result"]["id"]
            if slug != "third":
                token.turn(f"Call me {mark.capitalize()}", "ok", space=slug, session_id=f"seed-{origin}")
                Persona.objects.update_or_create(space=spaces[slug], origin=origin, defaults={"profile": mark})
    assert Fact.objects.filter(space__slug="vault").exists() and Fact.objects.filter(origin="qq").exists()
    other = tokens["local"].tool("memory_request", session_id="someone-else", space="vault", query="zebulon")
    return {"spaces": spaces, "tokens": tokens, "ids": ids, "request": other.json()["result"]["request_id"]}


def visible(token: str, origin: str, space: str) -> bool:
    """Rules 2 and 3 and token restrictions: who may see a record of (origin, space) through a plain read."""
    if space == "vault":
        return False
    if token == "restricted" and space != "open":
        return False
    return ORIGIN[token] == "local" or origin == ORIGIN[token]


def changeable(token: str, origin: str, space: str, kind: str) -> bool:
    """Who may change a record of (origin, space): facts and persona never in a vault; one-way origins."""
    if kind in ("fact", "persona") and space == "vault":
        return False
    if kind == "entry-forget" and space == "vault":
        return False  # a vault entry is invisible: nobody forgets it by id
    if token == "restricted" and space != "open":
        return False
    return ORIGIN[token] == "local" or origin == ORIGIN[token]


def state(world) -> dict:
    """What the matrix watches, keyed by (kind, space, origin, id)."""
    rows = {}
    for e in Entry.objects.select_related("space"):
        rows[("entry", e.space.slug, e.origin, e.pk)] = (e.body, e.deleted_at is not None)
    for f in Fact.objects.select_related("space"):
        rows[("fact", f.space.slug, f.origin, f.pk)] = (f.value, f.status)
    for p in Persona.objects.select_related("space"):
        rows[("persona", p.space.slug, p.origin, p.pk)] = p.profile
    provider = provider_for(world["spaces"]["third"])
    written = {r.id: r.text for r in provider.browse(limit=100)}
    for (origin, slug), rid in world["ids"].items():
        if slug == "third":
            remote_id = rid.split(":", 1)[1]
            rows[("entry", "third", origin, rid)] = (written.get(remote_id), remote_id not in written)
    return rows


def allowed_change(token: str, key: tuple, before, after) -> bool:
    kind, space, origin, _ = key
    if kind == "entry" and before is None:  # a new entry: the writer's own origin, in a space it may write
        return origin == ORIGIN[token] and (token != "restricted" or space == "open")
    if kind in ("fact", "persona") and before is None:
        return origin == ORIGIN[token] and changeable(token, origin, space, kind)
    if kind == "entry":
        return changeable(token, origin, space, "entry-forget")
    return changeable(token, origin, space, kind)


def markers_in(text: str) -> set[tuple[str, str]]:
    text = text.casefold()
    return {(o, s) for o in ("local", "qq") for s in SPACES if marker(o, s) in text}


# Every registered operation with each mode it has; one missing from CALLS is listed with both, and fails.
MODES = [(tool, mode) for tool in sorted(registry.OPERATIONS) for mode in ("read", "change")
         if tool not in CALLS or mode in CALLS[tool]]


@pytest.mark.parametrize("space", SPACES)
@pytest.mark.parametrize("token", TOKENS)
@pytest.mark.parametrize("tool, mode", MODES)
def test_the_rules_hold_for_every_tool_token_space_and_mode(world, tool, mode, token, space):
    assert tool in CALLS, f"{tool} has no row in CALLS: say how it reads and changes"
    ids = {origin: world["ids"][(origin, space)] for origin in ("local", "qq")}
    arguments, must_show = CALLS[tool][mode](space, ids)
    if arguments.get("request_id") == "REQUEST":
        arguments["request_id"] = world["request"]
    before = state(world)
    response = call(world["tokens"][token], tool, f"matrix-{token}", arguments)
    text = response.content.decode()

    # Never a crash, always the API's shape.
    assert response.status_code in (200, 201, 400, 403, 404, 422, 429), text
    if response.status_code >= 300:
        assert set(response.json()) == {"error"}

    # (1) Nothing the caller may not see comes back (vault contents only through an approved memory_read).
    leaked = {m for m in markers_in(text) if not visible(token, *m)}
    assert not leaked, f"{tool} showed {leaked} to {token}: {text[:300]}"

    # (2) Nothing the caller may not change has changed.
    after = state(world)
    for key in set(before) | set(after):
        if before.get(key) != after.get(key):
            assert allowed_change(token, key, before.get(key), after.get(key)), \
                f"{tool} by {token} changed {key}: {before.get(key)} -> {after.get(key)}"

    # (3) The documented refusals.
    code = response.json()["error"]["code"] if response.status_code >= 300 else None
    if tool in ("memory_facts", "memory_profile") and space == "vault" and token != "restricted":
        assert code == "forbidden"
    if token == "restricted" and space != "open" and "space" in arguments:
        assert code == "forbidden"
    if tool in ("memory_recall", "memory_forget", "memory_link", "memory_feedback") \
            and not visible(token, "local", space):
        assert code in ("not_found", "forbidden")
    if tool == "memory_read":
        assert code == "forbidden"  # another session's request, and nothing approved
    if tool == "memory_request":
        assert response.status_code != 200 or isinstance(json.loads(text)["result"]["matched"], int)
    if tool == "space_create":
        assert (code == "forbidden") == (token != "local")  # only an unrestricted local token makes spaces
    if tool == "spaces_list":
        listed = {s["slug"] for s in response.json()["spaces"]}
        assert listed == {"open"} if token == "restricted" else set(SPACES) <= listed

    # The matrix is not vacuous: a permitted read shows what the caller may see.
    if mode == "read" and must_show and response.status_code == 200:
        origin = "local" if must_show == "local" else ORIGIN[token]
        if visible(token, origin, space) and not (tool != "memory_search" and space == "third"):
            assert (origin, space) in markers_in(text), f"{tool} hid {marker(origin, space)} from {token}: {text}"


def test_the_matrix_has_permitted_and_refused_calls_for_each_token(world):
    """A sanity check of the fixture: each token gets at least one answer and one refusal."""
    statuses = {}
    for token in TOKENS:
        for space in SPACES:
            answer = world["tokens"][token].tool("memory_search", query="zebulon", space=space)
            statuses.setdefault(token, set()).add(answer.status_code)
    assert statuses["restricted"] == {200, 403} and statuses["local"] == {200} and statuses["qq"] == {200}
    assert AccessRequest.objects.filter(pk=world["request"]).exists()


# --- every provider's spaces own their records underneath (#31) -------------------------------------------
# How to stand two spaces of each kind on one running service, generated over providers/registry: a kind added
# there without a row here fails, so its spaces are tried the day it lands. `distinct`: the space configs two
# spaces get when a person gives each its own identity (a local provider: none, the hub makes a folder each);
# `same`: two configs reaching one store (None where a person cannot point two spaces at one store).

class Stand:
    def __init__(self, service=None, distinct=({}, {}), same=None, settle=lambda: None, stop=lambda: None):
        self.service, self.distinct, self.same, self.settle, self.stop = service, distinct, same, settle, stop


def _fake_stand(fake_class, service, distinct, same, settle=None):
    def stand(tmp_path):
        fake = fake_class()
        return Stand(service(fake), distinct, same, (lambda: settle(fake)) if settle else (lambda: None), fake.stop)
    return stand


def _byterover(tmp_path):
    import os

    (tmp_path / "shared-tree").mkdir()
    brv = os.path.join(os.path.dirname(__file__), "providers", "fakes", "brv")
    named = {"workingDirectory": str(tmp_path / "shared-tree")}
    return Stand({"cliPath": brv}, same=(named, named))


def _stands():
    from tests.providers.fakes.hindsight import FakeHindsight
    from tests.providers.fakes.honcho import HonchoFake
    from tests.providers.fakes.mem0 import Mem0Fake
    from tests.providers.fakes.openviking import FakeOpenViking
    from tests.providers.fakes.retaindb import RetainDBFake
    from tests.providers.fakes.supermemory import SupermemoryFake

    peer = "viking://user/alice/peers/{}/memories"
    return {
        "native": lambda tmp_path: Stand(),
        "holographic": lambda tmp_path: Stand(),
        "byterover": _byterover,
        "openviking": _fake_stand(
            FakeOpenViking, lambda f: {"endpoint": f.url, "apiKey": "key-alice", "account": "acme",
                                       "discoveryUser": "alice"},
            ({"targetUri": peer.format("one")}, {"targetUri": peer.format("two")}),
            ({"targetUri": peer.format("one")}, {"targetUri": peer.format("one")})),
        "honcho": _fake_stand(HonchoFake, lambda f: {"endpoint": f.url, "apiKey": f.api_key},
                              ({"workspace": "hub", "userId": "alice"}, {"workspace": "hub", "userId": "bob"}),
                              ({"workspace": "hub", "userId": "alice"}, {"workspace": "hub", "userId": "alice"})),
        "mem0": _fake_stand(Mem0Fake, lambda f: {"endpoint": f.url, "apiKey": f.api_key, "mode": "platform"},
                            ({"userId": "alice"}, {"userId": "bob"}), ({"userId": "alice"}, {"userId": "alice"})),
        "hindsight": _fake_stand(FakeHindsight, lambda f: {"endpoint": f.url, "apiKey": f.api_key},
                                 ({"bankId": "one"}, {"bankId": "two"}), ({"bankId": "one"}, {"bankId": "one"})),
        "retaindb": _fake_stand(RetainDBFake, lambda f: {"endpoint": f.url, "apiKey": f.api_key},
                                ({"project": "one"}, {"project": "two"}), ({"project": "one"}, {"project": "one"})),
        "supermemory": _fake_stand(SupermemoryFake, lambda f: {"endpoint": f.url, "apiKey": f.api_key},
                                   ({"containerTag": "one"}, {"containerTag": "two"}),
                                   ({"containerTag": "one"}, {"containerTag": "one"}), settle=lambda f: f.extract_pending()),
    }


def test_every_registered_provider_has_a_stand():
    from providers.registry import provider_kinds

    assert set(_stands()) == set(provider_kinds()), "say how two spaces of the new provider stand on one service"


@pytest.fixture
def stand(request, tmp_path, settings):
    settings.DATA_DIR = tmp_path / "data"
    settings.MEMORYHUB = {**settings.MEMORYHUB, "SECRETS_FILE": tmp_path / "data" / "state" / "secrets.json"}
    made = _stands()[request.param](tmp_path)
    if made.service is not None:
        save_service(request.param, made.service)
    yield request.param, made
    made.stop()


def _two(kind, configs, accesses=("open", "open")):
    return [MemorySpace.objects.create(slug=f"{kind}-{n}", name=f"{kind} {n}", provider=kind, access=access,
                                       config=config) for n, (config, access) in enumerate(zip(configs, accesses))]


def _held(space, marker) -> bool:
    """The store underneath holds the marker (read with the hub's adapter, as no agent may for a vault)."""
    if space.is_native:
        return Entry.objects.filter(space=space, body__contains=marker).exists()
    return any(marker in r.text for r in provider_for(space).search(f"{marker} zebulon", limit=50))


KINDS = sorted(__import__("providers.registry", fromlist=["PROVIDERS"]).PROVIDERS)


@pytest.mark.parametrize("stand", KINDS, indirect=True)
def test_two_spaces_of_every_provider_keep_their_records_apart(stand, api):
    kind, made = stand
    first, second = _two(kind, made.distinct)
    written = api.tool("memory_note", text="zebulon mkfirstspace", space=first.slug)
    assert written.status_code == 200, written.content
    made.settle()
    assert _held(first, "mkfirstspace")  # the row is not vacuous: the record is there
    assert not _held(second, "mkfirstspace")
    found = api.tool("memory_search", query="zebulon mkfirstspace", space=second.slug)
    assert "mkfirstspace" not in found.content.decode()
    own_id = written.json()["result"]["id"]
    if ":" in own_id:  # the same engine id through the other space
        twin = api.tool("memory_recall", id=f"{second.slug}:{own_id.split(':', 1)[1]}")
        assert "mkfirstspace" not in twin.content.decode()


@pytest.mark.parametrize("stand", KINDS, indirect=True)
def test_a_vault_of_every_provider_never_shows_through_an_open_space(stand, api):
    kind, made = stand
    vault, open_space = _two(kind, made.distinct, ("vault", "open"))
    assert api.tool("memory_note", text="zebulon mkvaultonly", space=vault.slug).status_code == 200
    made.settle()
    assert _held(vault, "mkvaultonly")
    for answer in (api.tool("memory_search", query="zebulon mkvaultonly", space=open_space.slug),
                   api.tool("memory_search", query="zebulon mkvaultonly"),
                   api.post("context", {"session_id": "s1", "query": "zebulon mkvaultonly"})):
        assert "mkvaultonly" not in answer.content.decode()
    assert not _held(open_space, "mkvaultonly")


@pytest.mark.parametrize("stand", KINDS, indirect=True)
def test_a_vault_of_every_provider_never_shares_its_store(stand, api):
    from memoryhub.spaces.provider_services import store_of

    kind, made = stand
    if made.same is None:  # a person cannot point two spaces at one store: by default they never share one
        first, second = _two(kind, made.distinct, ("vault", "open"))
        assert kind == "native" or store_of(first).key != store_of(second).key
        return
    open_space, vault = _two(kind, made.same, ("open", "vault"))
    assert store_of(open_space).shared_with == (vault.slug,)
    for space in (vault, open_space):
        refused = api.tool("memory_note", text="zebulon mkshared", space=space.slug)
        assert refused.status_code == 502 and "never shares" in refused.json()["error"]["message"]
