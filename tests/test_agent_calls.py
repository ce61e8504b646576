"""Agent identity and the one tool-call path: the models' move keeps users' data, MCP and the API act alike."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memoryhub.access import policy
from memoryhub.access.call import Call
from memoryhub.agents import auth, sessions
from memoryhub.agents.models import AgentSession, ApiToken, hash_token
from memoryhub.spaces.models import MemorySpace
from memoryhub.vault.models import AccessRequest, Grant

BEFORE_THE_MOVE = [("agents", None), ("api", "0003_rate_window"), ("vault", "0002_request_entries")]


@pytest.mark.django_db(transaction=True)
def test_tokens_sessions_and_grants_made_before_the_move_still_work_after_it():
    """A hub migrated from the api-app models: the same rows, the token still authenticates."""
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE_THE_MOVE)
    try:
        old = executor.loader.project_state(BEFORE_THE_MOVE[1:]).apps
        OldToken, OldSession = old.get_model("api", "ApiToken"), old.get_model("api", "AgentSession")
        OldRequest, OldGrant = old.get_model("vault", "AccessRequest"), old.get_model("vault", "Grant")
        space = MemorySpace.objects.create(slug="diary", name="Diary", access="vault")  # its table never changed
        token = OldToken.objects.create(name="old agent", prefix="mh_old", token_hash=hash_token("mh_old-secret"))
        token.spaces.set([space.pk])
        OldSession.objects.create(token=token, session_id="s1")
        req = OldRequest.objects.create(id="req_old", token=token, session_id="s1", status="approved")
        OldGrant.objects.create(request=req, session_id="s1")
    finally:
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())

    found = auth.authenticate("Bearer mh_old-secret")
    assert found.name == "old agent" and [s.slug for s in found.spaces.all()] == ["diary"]
    assert AgentSession.objects.get(session_id="s1").token == found
    assert AccessRequest.objects.get(pk="req_old").token == found
    assert sessions.end(found, "s1") == 1  # the vault heard the end: its one live grant ended
    assert Grant.objects.get(request_id="req_old").ended_at is not None


def test_a_session_idle_too_long_ends_its_grants_when_the_agent_comes_back(db, settings):
    token, _ = ApiToken.issue(name="agent")
    session = sessions.see(token, "s1")
    req = AccessRequest.objects.create(token=token, session_id="s1", status=AccessRequest.Status.APPROVED)
    grant = Grant.objects.create(request=req, session_id="s1")
    idle = timezone.timedelta(minutes=settings.MEMORYHUB["SESSION_IDLE_MINUTES"] + 1)
    AgentSession.objects.filter(pk=session.pk).update(last_seen_at=timezone.now() - idle)
    assert sessions.is_over(token.pk, "s1")
    sessions.see(token, "s1")
    grant.refresh_from_db()
    assert grant.ended_at is not None and not sessions.is_over(token.pk, "s1")


def test_a_call_resolves_its_workspace_once(db):
    token, _ = ApiToken.issue(name="agent")
    call = Call(token)
    first = policy.workspace_arg(call, {"workspace": "/srv/projects/aquarium"})
    with CaptureQueriesContext(connection) as queries:
        again = policy.workspace_arg(call, {"workspace": "/srv/projects/aquarium"})
    assert again == first and len(queries) == 0
