"""The shared HTTP helper: retries, timeouts, size cap, cancellation, key scrubbing and shape checks."""

import threading
import time

import httpx
import pytest

from providers.base import ProviderError
from providers.http import HttpClient, client_from_config, expect, failed_write, pick, text_id
from tests.providers.fakes.base import FakeServer, Req

KEY = "sk-live-abcdef123456"


class EchoFake(FakeServer):
    """Answers every GET/POST with a count of calls; a 401 echoes the presented credential, as some servers do."""

    routes = (("GET", r"/ok", "ok"), ("POST", r"/ok", "ok"))

    def __init__(self):
        self.calls = 0
        super().__init__()

    def authorized(self, req: Req) -> bool:
        return req.headers.get("authorization") == f"Bearer {self.api_key}"

    def error_body(self, status, message):
        presented = self.log[-1].headers.get("authorization", "") if self.log else ""
        return {"error": f"{message}: {presented} is not valid"}

    def ok(self, req):
        self.calls += 1
        return 200, {"calls": self.calls}


@pytest.fixture
def fake():
    server = EchoFake()
    yield server
    server.stop()


def client(fake, key=None, **kw):
    return HttpClient(fake.url, {"Authorization": f"Bearer {key or fake.api_key}"}, **kw)


def test_auth_failure_is_permanent_and_masks_the_echoed_key(fake):
    with pytest.raises(ProviderError) as caught:
        client(fake, key=KEY).get("/ok")
    assert caught.value.permanent and caught.value.status == 401
    assert KEY not in str(caught.value) and "***" in str(caught.value)
    assert len(fake.log) == 1, "auth failures are not retried"


def test_timeout_is_reported_once_without_retries(fake):
    fake.set_fault("slow")  # answers after 3 s: only a client that gave up at its 0.3 s says timeout
    with pytest.raises(ProviderError) as caught:
        client(fake, timeout=0.3).get("/ok")
    assert caught.value.timeout
    assert len(fake.log) == 1


def test_server_errors_are_retried_only_when_idempotent(fake):
    fake.set_fault("error500")
    with pytest.raises(ProviderError) as caught:
        client(fake, retries=1).get("/ok")
    assert not caught.value.permanent and len(fake.log) == 2
    with pytest.raises(ProviderError):
        client(fake, retries=1).post("/ok", {})
    assert len(fake.log) == 3


@pytest.mark.parametrize("declared", [True, False])
def test_body_over_the_cap_is_refused(declared):
    payload = b"x" * 5000
    headers = {"content-length": str(len(payload))} if declared else {}
    transport = httpx.MockTransport(lambda request: httpx.Response(200, headers=headers, content=payload))
    with pytest.raises(ProviderError, match="cap"):
        HttpClient("http://upstream.test", max_bytes=1000, transport=transport).get("/")


def test_a_trickling_body_is_cut_at_the_deadline():
    sent = []

    def trickle():
        for _ in range(50):  # a byte every 0.05 s: no single read waits long, only a deadline on the whole cuts it
            time.sleep(0.05)
            sent.append(1)
            yield b" "

    transport = httpx.MockTransport(lambda request: httpx.Response(200, content=trickle()))
    with pytest.raises(ProviderError) as caught:
        HttpClient("http://upstream.test", timeout=0.3, transport=transport).get("/")
    assert caught.value.timeout and len(sent) < 50  # cut before the body was all there


def test_cancel_aborts_an_in_flight_request_and_refuses_new_ones(fake):
    fake.set_fault("slow")
    http = client(fake, timeout=5)
    threading.Timer(0.3, http.cancel).start()
    with pytest.raises(ProviderError, match="cancelled"):
        http.get("/ok")
    # Released while the request was still in flight: its attempt still waits for the fake's answer.
    assert any(t.name == "http GET /ok" and t.is_alive() for t in threading.enumerate())
    fake.set_fault(None)
    with pytest.raises(ProviderError, match="cancelled"):
        http.get("/ok")


def test_malformed_json_is_a_provider_error(fake):
    fake.set_fault("malformed")
    with pytest.raises(ProviderError, match="malformed JSON"):
        client(fake).get("/ok")


def test_client_from_config_reads_the_hub_limits(fake):
    http = client_from_config({"endpoint": fake.url, "_timeout": "0.7", "_max_bytes": 2048}, {})
    assert (http.timeout, http.max_bytes) == (0.7, 2048)
    with pytest.raises(ProviderError) as caught:
        client_from_config({"endpoint": fake.url, "_timeout": "soon"}, {})
    assert caught.value.permanent


@pytest.mark.parametrize("endpoint", ["", "ftp://x", "localhost:8000"])
def test_bad_endpoints_are_permanent(endpoint):
    with pytest.raises(ProviderError) as caught:
        HttpClient(endpoint)
    assert caught.value.permanent


def test_shape_checks_raise_provider_errors_not_key_or_type_errors():
    assert pick({"a": [1]}, "a", list) == [1]
    assert pick({}, "a", str, default="") == ""
    assert text_id({"id": 7}) == "7"
    for bad in (lambda: pick({}, "a", str), lambda: pick([], "a", str), lambda: pick({"a": 1}, "a", str),
                lambda: expect(True, int, "flag"), lambda: text_id({"id": ""}), lambda: text_id({"id": None})):
        with pytest.raises(ProviderError, match="unexpected upstream data"):
            bad()


def test_failed_write_is_unknown_unless_the_upstream_refused_it():
    refused = ProviderError("POST /x answered 400", uri="http://u/x")
    refused.status = 400
    assert failed_write(refused).state == "failed"
    assert failed_write(ProviderError("timed out", timeout=True, uri="http://u/x")).state == "unknown"
    crashed = ProviderError("answered 502")
    crashed.status = 502
    assert failed_write(crashed).state == "unknown"
    with pytest.raises(ProviderError):
        failed_write(ProviderError("answered 401", permanent=True))
