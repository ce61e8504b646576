"""The vault's agent side: write-only spaces, memory_request / memory_status / memory_read and grant lifetimes."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from memoryhub.agents.models import AgentSession
from memoryhub.audit.models import AuditEvent
from memoryhub.memories.models import Entry
from memoryhub.memories.write.gateway import forget
from memoryhub.spaces.models import MemorySpace, Workspace, workspace_slug_for_path
from memoryhub.vault import grants
from memoryhub.vault.models import AccessRequest

from tests.answers import result


def error(response, status, code="forbidden"):
    assert response.status_code == status, response.content
    assert response.json()["error"]["code"] == code
    return response.json()["error"]


@pytest.fixture
def diary(db):
    return MemorySpace.objects.create(slug="diary", name="Diary", access="vault")


@pytest.fixture
def person(db):
    return get_user_model().objects.create_user("bob", password="pw", is_staff=True)


def save(api, title, body="body text", category="progress", space="diary", **extra):
    return result(api.tool("memory_save", category=category, title=title, body=body, space=space, **extra))["id"]


def request(api, session_id="s1", **criteria):
    return result(api.tool("memory_request", session_id=session_id, **criteria))


def matched(answer) -> int:
    """How many entries a request caught, as the person deciding it sees (the agent is told no count: #31)."""
    assert answer["matched"] == 0
    return AccessRequest.objects.get(pk=answer["request_id"]).matched


def approve(request_id, ids, user):
    return grants.approve(AccessRequest.objects.get(pk=request_id), ids, user)


def test_vault_entries_never_reach_search_recall_or_context(api, diary):
    entry_id = save(api, "lighthouse keeper", body="the hidden lighthouse")
    api.turn("a turn about the lighthouse too", space="diary")
    assert result(api.tool("memory_search", query="lighthouse"))["results"] == []
    assert result(api.tool("memory_search", query="lighthouse", space="diary"))["results"] == []
    assert api.tool("memory_recall", id=entry_id).status_code == 404
    assert "lighthouse" not in api.post("context", {"session_id": "s1", "query": "lighthouse"}).json()["text"]


def test_request_answers_only_an_id(api, diary):
    save(api, "Deployed v2", body="secret body")
    save(api, "Fell into a pit", category="pitfall")
    answer = request(api, category="progress")
    assert set(answer) == {"request_id", "matched"} and matched(answer) == 1
    assert "Deployed" not in str(answer) and "secret" not in str(answer)
    req = AccessRequest.objects.get(pk=answer["request_id"])
    assert req.session_id == "s1" and req.token == api.token and req.status == "pending"


def test_request_filters_by_category_period_keyword_project_and_limit(api, diary):
    workspace = Workspace.objects.create(slug=workspace_slug_for_path("/home/w/proj"), name="proj", path="/home/w/proj")
    other = MemorySpace.objects.create(slug="proj-vault", name="P", access="vault", workspace=workspace)
    save(api, "Old decision", category="decision", at="2026-01-05T10:00:00+00:00")
    new = save(api, "New decision about 数据库", category="decision", at="2026-03-01T23:30:00+00:00")
    save(api, "Tagged one", category="experience", tags=["Kites", "风筝"])
    save(api, "Project note", category="decision", space=other.slug)
    assert matched(request(api, category="decision")) == 3
    assert matched(request(api, category="decision", **{"from": "2026-02-01", "to": "2026-03-01"})) == 1
    assert matched(request(api, **{"to": "2026-02-01"})) == 1
    assert matched(request(api, query="数据库 DECISION")) == 1
    assert matched(request(api, query="kites")) == 1 and matched(request(api, query="风筝")) == 1
    assert matched(request(api, project="/home/w/proj")) == 1
    assert matched(request(api, project=workspace.slug, space="diary")) == 0
    narrowed = request(api, category="decision", space="diary", limit=1)
    assert list(AccessRequest.objects.get(pk=narrowed["request_id"]).entries.values_list("pk", flat=True)) == [int(new)]


def test_request_refuses_bad_criteria(api, diary):
    MemorySpace.objects.create(slug="open", name="Open")
    error(api.tool("memory_request", category="nonsense"), 400, "bad_request")
    error(api.tool("memory_request", **{"from": "yesterday"}), 400, "bad_request")
    error(api.tool("memory_request", space="open"), 400, "bad_request")
    error(api.tool("memory_request", project="/nowhere/at/all"), 404, "not_found")
    error(api.tool("memory_request", limit=0), 400, "bad_request")


def test_request_covers_only_spaces_and_origins_the_token_may_see(api_factory, diary):
    hidden = MemorySpace.objects.create(slug="hidden", name="Hidden", access="vault")
    local = api_factory(name="local")
    local.tool("memory_save", category="progress", title="in hidden", body="x", space="hidden")
    save(local, "local thing")
    bot = api_factory(name="bot", origin="qq", spaces=[diary])
    save(bot, "qq thing")
    assert matched(request(bot)) == 1
    error(bot.tool("memory_request", space=hidden.slug), 403)
    assert matched(request(local)) == 3


def test_a_request_matching_nothing_still_reaches_a_person(api, diary):
    """Closing it at once (or a count that moved with the words) would tell the agent that nothing in the vault
    has those words."""
    save(api, "Deployed v2", body="the boiler code is 4711")
    empty, full = request(api, query="absent"), request(api, query="4711")
    assert empty.keys() == full.keys() and empty["matched"] == full["matched"] == 0
    assert set(AccessRequest.objects.values_list("status", flat=True)) == {"pending"}
    assert [p["matched"] for p in result(api.tool("memory_status"))["pending"]] == [0, 0]
    assert sorted(AccessRequest.objects.values_list("matched", flat=True)) == [0, 1]  # what the person sees


def test_a_session_files_a_limited_number_of_requests(api, diary, settings):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "VAULT_REQUESTS_PER_SESSION": 3}
    for word in ("a", "b", "c"):
        request(api, query=word)
    assert error(api.tool("memory_request", query="d"), 429, "rate_limited")
    assert AccessRequest.objects.count() == 3
    request(api, session_id="another", query="d")


def test_status_lists_this_sessions_pending_requests_and_grants(api, diary, person):
    first = save(api, "one")
    save(api, "two")
    waiting = request(api, query="one")
    granted = request(api)
    request(api, session_id="other")
    approve(granted["request_id"], [int(first)], person)
    status = result(api.tool("memory_status"))
    assert status == {"pending": [{"request_id": waiting["request_id"], "matched": 0,
                                   "criteria": {"query": "one", "limit": 50}}],
                      "grants": [{"request_id": granted["request_id"], "entries": 1}]}


def test_read_returns_exactly_the_approved_entries(api, diary, person):
    a = save(api, "alpha", tags=["x"])
    save(api, "beta")
    answer = request(api)
    error(api.tool("memory_read", request_id=answer["request_id"]), 403)
    approve(answer["request_id"], [int(a)], person)
    save(api, "gamma, written after the approval")
    entries = result(api.tool("memory_read", request_id=answer["request_id"]))["entries"]
    assert [(e["id"], e["title"], e["body"], e["tags"], e["category"]) for e in entries] == [
        (a, "alpha", "body text", ["x"], "progress")]
    assert set(entries[0]) == {"id", "at", "category", "title", "body", "tags"}
    assert AuditEvent.objects.filter(action="vault.read", target=answer["request_id"],
                                     detail__entries=[int(a)]).exists()


def test_approval_never_reaches_beyond_the_snapshot(api, diary, person):
    save(api, "alpha")
    answer = request(api)
    later = save(api, "alpha two")
    with pytest.raises(grants.OutsideRequest):
        approve(answer["request_id"], [int(later)], person)
    grant = approve(answer["request_id"], None, person)
    assert [e.title for e in grant.entries.all()] == ["alpha"]


def test_entries_deleted_after_approval_are_not_returned(api, diary, person):
    a, b = save(api, "alpha"), save(api, "beta")
    answer = request(api)
    approve(answer["request_id"], None, person)
    forget(Entry.objects.get(pk=a))
    assert [e["id"] for e in result(api.tool("memory_read", request_id=answer["request_id"]))["entries"]] == [b]


def test_read_is_refused_to_other_sessions_tokens_and_unknown_ids(api, api_factory, diary, person):
    save(api, "alpha")
    answer = request(api)
    approve(answer["request_id"], None, person)
    error(api.tool("memory_read", session_id="s2", request_id=answer["request_id"]), 403)
    other = api_factory(name="other")
    error(other.tool("memory_read", request_id=answer["request_id"]), 403)
    error(api.tool("memory_read", request_id="req_0000000000000000"), 404, "not_found")
    error(api.tool("memory_read"), 400, "bad_request")


def test_denied_request_is_refused(api, diary, person):
    save(api, "alpha")
    answer = request(api)
    grants.deny(AccessRequest.objects.get(pk=answer["request_id"]), person)
    assert "denied" in error(api.tool("memory_read", request_id=answer["request_id"]), 403)["message"]
    assert AuditEvent.objects.filter(action="vault.deny", target=answer["request_id"]).exists()


def test_revoked_grant_is_refused(api, diary, person):
    save(api, "alpha")
    answer = request(api)
    grant = approve(answer["request_id"], None, person)
    grants.revoke(grant, person)
    assert "revoked" in error(api.tool("memory_read", request_id=answer["request_id"]), 403)["message"]
    assert result(api.tool("memory_status"))["grants"] == []


def test_ending_the_session_ends_its_grants_and_closes_its_requests(api, diary, person):
    save(api, "alpha")
    granted, waiting = request(api), request(api)
    approve(granted["request_id"], None, person)
    assert result(api.tool("memory_read", request_id=granted["request_id"]))["entries"]
    assert api.post("sessions/s1/end").json() == {"expired_grants": 1}
    error(api.tool("memory_read", request_id=granted["request_id"]), 403)
    assert AccessRequest.objects.get(pk=waiting["request_id"]).status == "closed"


def test_ending_a_session_the_hub_never_saw_is_final(api, diary):
    """Before, ending an id with no row wrote nothing, and a later call with that id opened it afresh."""
    assert api.post("sessions/s9/end").json() == {"expired_grants": 0}
    refused = error(api.tool("memory_request", space="diary", session_id="s9"), 403)
    assert "ended" in refused["message"] and not AccessRequest.objects.exists()
    assert api.post("sessions/s9/end").json() == {"expired_grants": 0}  # ending it again changes nothing
    assert AgentSession.objects.filter(session_id="s9", ended_at__isnull=False).count() == 1


def test_an_idle_session_loses_its_grants(api, diary, person, settings):
    save(api, "alpha")
    answer = request(api)
    approve(answer["request_id"], None, person)
    idle = settings.MEMORYHUB["SESSION_IDLE_MINUTES"]
    AgentSession.objects.filter(session_id="s1").update(last_seen_at=timezone.now() - timedelta(minutes=idle + 1))
    assert "ended" in error(api.tool("memory_read", request_id=answer["request_id"]), 403)["message"]
    assert AuditEvent.objects.filter(action="vault.session_end", detail__reason="idle").exists()


def test_idle_sweep_closes_requests_of_silent_sessions(api, diary, settings):
    save(api, "alpha")
    answer = request(api)
    idle = timedelta(minutes=settings.MEMORYHUB["SESSION_IDLE_MINUTES"] + 1)
    AgentSession.objects.update(last_seen_at=timezone.now() - idle)
    grants.expire_idle()
    assert AccessRequest.objects.get(pk=answer["request_id"]).status == "closed"


def test_vault_tools_are_listed_with_schemas(api):
    tools = {t["function"]["name"]: t["function"] for t in api.get("tools").json()["tools"]}
    assert {"memory_request", "memory_status", "memory_read"} <= set(tools)
    assert tools["memory_read"]["parameters"]["required"] == ["request_id"]
