"""Access: every page needs a login, every API call a token; tokens stay inside their spaces and origins."""

import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from memoryhub.spaces.models import MemorySpace

pytestmark = pytest.mark.django_db

OPEN_PREFIXES = ("login/", "logout/", "i18n/", "static/", "api/", "admin/")
DUMMY = {"int": "1", "slug": "x", "str": "x", "path": "x", "uuid": "00000000-0000-0000-0000-000000000001"}
PARAM = re.compile(r"<(?:(?P<conv>\w+):)?(?P<name>\w+)>")


def routes(patterns, prefix: str = "", skip: tuple[str, ...] = ()):
    """Every concrete URL of a URL conf but those under `skip`, its parameters filled with dummy values."""
    for p in patterns:
        route = str(p.pattern)
        if (prefix + route).startswith(skip):
            continue
        assert not route.startswith("^"), f"regex URL {route!r}: give it a path() route so this walk covers it"
        if isinstance(p, URLResolver):
            yield from routes(p.url_patterns, prefix + route, skip)
        elif isinstance(p, URLPattern):
            yield "/" + PARAM.sub(lambda m: DUMMY[m["conv"] or "str"], prefix + route)


def dashboard_urls() -> list[str]:
    return list(routes(get_resolver().url_patterns, skip=OPEN_PREFIXES))


def api_urls() -> list[str]:
    return [u for u in routes(get_resolver("memoryhub.api.urls").url_patterns, "api/v1/") if u != "/api/v1/health"]


def test_the_walk_finds_the_dashboard_and_the_api():
    assert "/" in dashboard_urls()
    assert "/api/v1/tools/x" in api_urls()


@pytest.mark.parametrize("url", dashboard_urls())
def test_every_dashboard_page_sends_anonymous_visitors_to_login(client, url):
    response = client.get(url)
    assert response.status_code in (302, 405), f"{url} answered {response.status_code} without a login"
    if response.status_code == 302:
        assert response["Location"].startswith("/login/")


@pytest.mark.parametrize("url", api_urls())
@pytest.mark.parametrize("method", ["get", "post"])
def test_every_api_url_refuses_callers_without_a_valid_token(client, url, method):
    for headers in ({}, {"HTTP_AUTHORIZATION": "Bearer mh_not-a-real-token"}, {"HTTP_AUTHORIZATION": "Basic x"}):
        if method == "get":
            response = client.get(url, **headers)
        else:
            response = client.post(url, "{}", content_type="application/json", **headers)
        assert response.status_code in (401, 405), (url, method, response.status_code)
        if response.status_code == 405:  # the wrong method is refused before anything else happens
            assert "not allowed" in response.json()["error"]["message"] and response["Allow"]


@pytest.fixture
def two_spaces(api):
    for slug in ("mine", "theirs"):
        assert api.post("spaces", {"slug": slug, "name": slug}).status_code == 201
    secret = api.tool("memory_save", category="fact", title="the vault code", body="launch code zebra-42",
                      space="theirs").json()["result"]["id"]
    return secret


def test_a_token_restricted_to_some_spaces_cannot_touch_others(api_factory, two_spaces):
    narrow = api_factory(name="narrow", spaces=[MemorySpace.objects.get(slug="mine")])
    refused = [
        narrow.tool("memory_search", query="launch code", space="theirs"),
        narrow.tool("memory_save", category="fact", title="t", body="b", space="theirs"),
        narrow.tool("memory_note", text="sneaky", space="theirs"),
        narrow.post("context", {"session_id": "s", "query": "launch code", "space": "theirs"}),
        narrow.post("turns", {"session_id": "s", "user": "hi", "assistant": "ok", "space": "theirs"}),
        narrow.post("spaces", {"slug": "new", "name": "new"}),
    ]
    assert [r.status_code for r in refused] == [403] * len(refused)
    assert narrow.tool("memory_recall", id=two_spaces).status_code in (403, 404)
    assert narrow.tool("memory_forget", id=two_spaces).status_code in (403, 404)
    found = narrow.tool("memory_search", query="launch code zebra").json()["result"]["results"]
    assert found == []
    context = narrow.post("context", {"session_id": "s", "query": "launch code zebra"}).json()
    assert "zebra" not in context["text"]
    assert [s["slug"] for s in narrow.get("spaces").json()["spaces"]] == ["mine"]


def test_a_non_local_origin_never_sees_local_data(api, api_factory):
    local = api.turn("my bank PIN hint is the name of my first cat, Whiskers", session_id="private")
    local_id = local.json()["entry"]["id"]
    api.tool("memory_note", text="Whiskers was adopted in 2015")
    qq = api_factory(name="qq-bridge", origin="qq")
    qq.turn("group chat: what's for lunch", session_id="group")
    found = qq.tool("memory_search", query="Whiskers cat PIN", session_id="group").json()["result"]["results"]
    assert all(r["origin"] == "qq" for r in found) and not any("Whiskers" in r["summary"] for r in found)
    scoped = qq.tool("memory_search", query="Whiskers", scope="all", session_id="group").json()["result"]
    assert scoped["results"] == []
    asked = qq.tool("memory_search", query="Whiskers", scope="local", session_id="group")  # refused by name (#31)
    assert asked.status_code == 403 and "Whiskers" not in asked.content.decode()
    assert qq.tool("memory_recall", id=local_id, session_id="group").status_code == 404
    context = qq.post("context", {"session_id": "group", "query": "Whiskers cat PIN"}).json()
    assert "Whiskers" not in context["text"]
    facts = qq.tool("memory_facts", action="list", session_id="group").json()["result"]["facts"]
    assert not any("Whiskers" in str(f) for f in facts)


def test_rate_limit_is_per_token(api, api_factory, settings):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "RATE_LIMIT_PER_MINUTE": 3}
    other = api_factory(name="other")
    statuses = [api.get("tools").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    limited = api.get("tools")
    assert limited.status_code == 429 and limited.json()["error"]["code"] == "rate_limited"
    assert 0 < int(limited["Retry-After"]) <= 60
    assert other.get("tools").status_code == 200


def test_inactive_spaces_are_never_read(api):
    api.post("spaces", {"slug": "old", "name": "old"})
    api.tool("memory_save", category="fact", title="retired", body="an archived decision", space="old")
    MemorySpace.objects.filter(slug="old").update(active=False)
    assert api.tool("memory_search", query="archived decision", space="old").status_code == 403
    found = api.tool("memory_search", query="archived decision").json()["result"]["results"]
    assert not any(r["space"] == "old" for r in found)
