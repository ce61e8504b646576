"""Shared fixtures: an API client with a token, a logged-in staff user. Environment: tests/testenv.py."""

import json

import pytest


class Api:
    """A thin JSON client for the agent API with one token."""

    def __init__(self, client, raw_token: str, token):
        self.client = client
        self.raw = raw_token
        self.token = token
        self.headers = {"HTTP_AUTHORIZATION": f"Bearer {raw_token}"}

    def get(self, path: str):
        return self.client.get(f"/api/v1/{path}", **self.headers)

    def post(self, path: str, body=None, raw: bytes | str | None = None):
        data = raw if raw is not None else json.dumps(body or {})
        return self.client.post(f"/api/v1/{path}", data, content_type="application/json", **self.headers)

    def tool(self, name: str, session_id: str = "s1", **arguments):
        return self.post(f"tools/{name}", {"session_id": session_id, "arguments": arguments})

    def turn(self, user: str, assistant: str = "ok", session_id: str = "s1", **extra):
        return self.post("turns", {"session_id": session_id, "user": user, "assistant": assistant, **extra})


def make_api(client, name="agent", origin="local", spaces=()):
    from memoryhub.agents.models import ApiToken

    token, raw = ApiToken.issue(name=name, origin=origin, spaces=spaces)
    return Api(client, raw, token)


@pytest.fixture(autouse=True)
def _fresh_vector_cache():
    """Each test's database starts its row ids afresh; a process's vector matrices must not outlive it."""
    from memoryhub.memories.search import vectors

    vectors.clear_cache()


@pytest.fixture
def api(db, client):
    return make_api(client)


@pytest.fixture
def api_factory(db, client):
    return lambda **kw: make_api(client, **kw)


@pytest.fixture(scope="session")
def live_hub(tmp_path_factory):
    """One real served hub (tests/livehub.py) shared by the tests that speak to it over a socket."""
    from tests.livehub import LiveHub

    hub = LiveHub(tmp_path_factory.mktemp("live-hub"))
    yield hub
    hub.close()


@pytest.fixture
def hub(live_hub):
    live_hub.ensure_running()
    return live_hub


@pytest.fixture
def staff(db, client, django_user_model):
    user = django_user_model.objects.create_user("alice", password="password", is_staff=True)
    client.force_login(user)
    return user


@pytest.fixture
def redis_down(monkeypatch):
    """As served with REDIS_URL naming a Redis nobody answers: the broker refuses every task (django-q2's own
    Redis client, on a port nothing listens on). `redis_down.undo()` brings the broker back, running at once."""
    from django_q.conf import Conf

    from tests.livehub import free_port

    monkeypatch.setattr(Conf, "SYNC", False)
    monkeypatch.setattr(Conf, "ORM", None)
    monkeypatch.setattr(Conf, "REDIS", f"redis://127.0.0.1:{free_port()}/0?socket_connect_timeout=1")
    return monkeypatch
