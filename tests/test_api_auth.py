"""Token auth, body limits and the error shape of docs/api.md."""

import json

import pytest


def error(response):
    return response.json()["error"]


def test_health_needs_no_token(client):
    r = client.get("/api/v1/health")
    assert r.status_code == 200
    assert r.json()["status"] == "ok" and r.json()["version"]


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["spaces", "providers", "tools"])
def test_missing_token_is_unauthorized(client, path):
    r = client.get(f"/api/v1/{path}")
    assert r.status_code == 401
    assert error(r)["code"] == "unauthorized"


@pytest.mark.django_db
def test_wrong_token_is_unauthorized(client):
    r = client.get("/api/v1/spaces", HTTP_AUTHORIZATION="Bearer mh_not-a-real-token")
    assert r.status_code == 401 and error(r)["code"] == "unauthorized"


def test_revoked_token_is_unauthorized(api):
    from django.utils import timezone

    api.token.revoked_at = timezone.now()
    api.token.save()
    assert api.get("spaces").status_code == 401


def test_a_paused_token_is_refused_with_paused_and_keeps_its_settings(api):
    from memoryhub.agents import auth

    api.post("spaces", {"slug": "mine", "name": "mine"})
    auth.pause(api.token)
    r = api.get("spaces")
    assert r.status_code == 403 and error(r)["code"] == "paused" and "resume" in error(r)["message"]
    auth.resume(api.token)
    assert [s["slug"] for s in api.get("spaces").json()["spaces"]] == ["default", "mine"]


def test_a_revoke_elsewhere_reaches_this_process_within_the_token_cache_time(api, settings):
    import time

    from django.utils import timezone

    from memoryhub.agents.models import ApiToken

    settings.MEMORYHUB = {**settings.MEMORYHUB, "TOKEN_CACHE_SECONDS": 0.3}
    assert api.get("spaces").status_code == 200
    # Another web process revokes it: a plain UPDATE, nothing tells this process.
    ApiToken.objects.filter(pk=api.token.pk).update(revoked_at=timezone.now())
    assert api.get("spaces").status_code == 200  # this process's copy is still fresh
    time.sleep(0.35)
    assert api.get("spaces").status_code == 401


def test_a_pause_elsewhere_reaches_this_process_within_the_token_cache_time(api, settings):
    import time

    from django.utils import timezone

    from memoryhub.agents.models import ApiToken

    settings.MEMORYHUB = {**settings.MEMORYHUB, "TOKEN_CACHE_SECONDS": 0.3}
    assert api.get("spaces").status_code == 200
    ApiToken.objects.filter(pk=api.token.pk).update(paused_at=timezone.now())
    time.sleep(0.35)
    assert error(api.get("spaces"))["code"] == "paused"


def test_a_call_writes_nothing_to_the_database(api, django_assert_max_num_queries):
    assert api.get("spaces").status_code == 200  # the token is read and cached, its last use stored
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as seen:
        assert api.get("spaces").status_code == 200
    writes = [q["sql"] for q in seen.captured_queries
              if q["sql"].lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE", "REPLACE"))]
    assert writes == []


def test_malformed_json_is_bad_request_and_writes_nothing(api):
    from memoryhub.memories.models import Entry

    r = api.post("turns", raw="{not json")
    assert r.status_code == 400 and error(r)["code"] == "bad_request"
    assert not Entry.objects.exists()


def test_json_that_is_not_an_object_is_bad_request(api):
    r = api.post("turns", raw="[1, 2]")
    assert r.status_code == 400


def test_body_over_one_mebibyte_is_too_large(api):
    from memoryhub.memories.models import Entry

    big = json.dumps({"session_id": "s", "user": "x" * (1024 * 1024 + 10), "assistant": "y"})
    r = api.post("turns", raw=big)
    assert r.status_code == 413 and error(r)["code"] == "too_large"
    assert not Entry.objects.exists()


def test_deeply_nested_body_is_bad_request(api):
    body = "[" * 5000 + "]" * 5000
    r = api.post("tools/memory_note", raw='{"session_id": "s", "arguments": {"text": ' + body + "}}")
    assert r.status_code == 400


def test_unknown_tool_is_not_found(api):
    r = api.tool("memory_teleport")
    assert r.status_code == 404 and error(r)["code"] == "not_found"


def test_wrong_method_is_405_naming_the_methods_it_serves(api):
    r = api.client.get("/api/v1/turns", **api.headers)
    assert r.status_code == 405 and error(r)["code"] == "method_not_allowed" and r["Allow"] == "POST"


def test_rate_limit_answers_429_with_retry_after(api, settings):
    settings.MEMORYHUB = {**settings.MEMORYHUB, "RATE_LIMIT_PER_MINUTE": 3}
    codes = [api.get("spaces").status_code for _ in range(4)]
    assert codes[:3] == [200, 200, 200]
    r = api.get("spaces")
    assert r.status_code == 429 and error(r)["code"] == "rate_limited"
    assert int(r["Retry-After"]) >= 0
