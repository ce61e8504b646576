"""HTTP semantics of the agent faces (issue #30, #32): 405 with Allow on every endpoint, one error rendering,
chunked bodies read, oversized bodies answered 413 (over a real socket, never a reset), and a batch whose one
turn holds text the hub refuses answering that turn alone."""

from __future__ import annotations

import json
import re
import socket

import httpx
import pytest
from django.urls import get_resolver

from memoryhub.memories.models import Entry

pytestmark = pytest.mark.django_db
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


def api_endpoints() -> list[tuple[str, tuple[str, ...]]]:
    """Every /api/v1 path (parameters filled in) with the methods its view serves, from the URL conf."""
    found = []
    for pattern in get_resolver("memoryhub.api.urls").url_patterns:
        path = "/api/v1/" + re.sub(r"<(?:\w+:)?\w+>", "x", str(pattern.pattern))
        found.append((path, pattern.callback.methods))
    return found


@pytest.mark.parametrize("path, served", api_endpoints())
def test_a_method_an_endpoint_does_not_serve_is_405_with_allow(api, path, served):
    for method in METHODS:
        response = api.client.generic(method, path, **api.headers)
        if method in served:
            assert response.status_code != 405, (method, path)
            continue
        assert response.status_code == 405, (method, path, response.status_code)
        assert response["Allow"] == ", ".join(served)
        if method != "HEAD":  # a HEAD answer has no body
            error = response.json()["error"]
            assert error["code"] == "method_not_allowed" and method in error["message"]


@pytest.mark.parametrize("method", ["GET", "PUT", "PATCH", "OPTIONS"])
def test_mcp_serves_post_and_delete_only(hub, method):
    answer = httpx.request(method, f"{hub.url}/mcp", headers={"Authorization": f"Bearer {hub.token()}"}, timeout=30)
    assert answer.status_code == 405 and answer.headers["Allow"] == "POST, DELETE"
    assert answer.json()["error"]["code"] == "method_not_allowed"


def test_a_get_endpoint_answers_head(api):
    assert api.client.head("/api/v1/health").status_code == 200
    assert api.client.head("/api/v1/spaces", **api.headers).status_code == 200


def test_a_401_names_the_scheme_it_wants(client):
    response = client.post("/api/v1/turns", "{}", content_type="application/json")
    assert response.status_code == 401 and response["WWW-Authenticate"].startswith("Bearer")


def batch(*users: str) -> bytes:
    """A batch body written by hand, so a turn can carry what json.dumps would escape differently."""
    turns = [f'{{"session_id": "s", "user": "{user}", "assistant": "ok", "idempotency_key": "k{n}"}}'
             for n, user in enumerate(users)]
    return ('{"turns": [' + ", ".join(turns) + "]}").encode()


@pytest.mark.parametrize("bad", ["a\\u0000b", "\\ud800", "x\\ufffe"], ids=["NUL", "lone surrogate", "non-character"])
def test_one_turn_with_refused_text_answers_alone_and_the_others_are_written(api, bad):
    response = api.post("turns", raw=batch("the deploy failed", bad, "retrying the deploy"))
    assert response.status_code == 200, response.content
    results = response.json()["results"]
    assert [r["status"] for r in results] == [201, 400, 201]
    assert results[1]["error"]["code"] == "bad_request" and results[1]["error"]["field"] == "user"
    assert sorted(Entry.objects.values_list("idempotency_key", flat=True)) == ["k0", "k2"]


def test_refused_text_in_a_single_turn_still_refuses_it(api):
    response = api.post("turns", raw=b'{"session_id": "s", "user": "a\\u0000b", "assistant": "ok"}')
    assert response.status_code == 400 and response.json()["error"]["field"] == "user"
    assert not Entry.objects.exists()


def test_refused_text_beside_the_batch_refuses_it_whole(api):
    response = api.post("turns", raw=b'{"space": "d\\u0000", "turns": [{"session_id": "s", "user": "u", '
                                     b'"assistant": "a"}]}')
    assert response.status_code == 400 and response.json()["error"]["field"] == "space"
    assert not Entry.objects.exists()


# --- over a real socket: chunked bodies and the 1 MiB cap --------------------------------------

def chunks(body: bytes, size: int = 64 * 1024):
    for start in range(0, len(body), size):
        yield body[start:start + size]


def test_chunked_bodies_are_read(hub):
    headers = {"Authorization": f"Bearer {hub.token()}", "Content-Type": "application/json"}
    turn = json.dumps({"session_id": "chunked", "user": "a chunked vexillum", "assistant": "ok"}).encode()
    answer = httpx.post(f"{hub.url}/api/v1/turns", content=chunks(turn, 10), headers=headers, timeout=30)
    assert answer.status_code == 201, answer.text
    note = json.dumps({"session_id": "chunked", "arguments": {"text": "a chunked vexillum note"}}).encode()
    answer = httpx.post(f"{hub.url}/api/v1/tools/memory_note", content=chunks(note, 7), headers=headers, timeout=30)
    assert answer.status_code == 200 and answer.json()["result"]["id"], answer.text


def send_raw(hub, token: str, path: str, body: bytes, chunked: bool) -> tuple[str, bytes]:
    """POST `body` over a plain socket, as fast as the kernel takes it; (status line, the rest of the answer)."""
    with socket.create_connection(("127.0.0.1", hub.port), timeout=30) as sock:
        head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
                "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n")
        head += "Transfer-Encoding: chunked\r\n\r\n" if chunked else f"Content-Length: {len(body)}\r\n\r\n"
        sock.sendall(head.encode())
        for part in chunks(body):
            sock.sendall(f"{len(part):x}\r\n".encode() + part + b"\r\n" if chunked else part)
        if chunked:
            sock.sendall(b"0\r\n\r\n")
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
            data = sock.recv(65536)
            if not data:
                break
            answer += data
    status, _, rest = answer.partition(b"\r\n")
    return status.decode(), rest


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
@pytest.mark.parametrize("path", ["/api/v1/turns", "/mcp"])
def test_a_2_mib_body_is_answered_413_never_a_reset(hub, path, chunked):
    token = hub.token()
    body = json.dumps({"session_id": "s", "user": "x" * (2 * 1024 * 1024), "assistant": "a"}).encode()
    for _ in range(2):  # a reset came "sometimes": more than once
        status, rest = send_raw(hub, token, path, body, chunked)
        assert status.split(" ")[1] == "413", status
        assert b'"code": "too_large"' in rest
