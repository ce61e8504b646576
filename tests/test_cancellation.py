"""Cancellation (seed 000): a CancelScope cancels every HTTP client made inside it, so a call waiting on a provider
or a model is released at once; a person cancels a queued or running job and it stops, saying so."""

import threading

import pytest

from memoryhub.core import llm
from memoryhub.core.http import CancelScope, HttpClient, UpstreamError
from tests.fakes_llm import FakeJsonServer, chat_answer


class Stalling(FakeJsonServer):
    """Answers only once `release` is set (or after 10 s): a provider or model that hangs."""

    def __init__(self):
        super().__init__()
        self.release = threading.Event()
        self.arrived = threading.Event()

    def respond(self, body):
        self.arrived.set()
        self.release.wait(10)
        return chat_answer("too late")


def cancel_when_it_waits(server: Stalling, scope: CancelScope) -> threading.Thread:
    """Cancel the scope once the request has reached the server (from another thread, as a job's watcher does)."""
    thread = threading.Thread(target=lambda: server.arrived.wait(10) and scope.cancel(), daemon=True)
    thread.start()
    return thread


def test_cancelling_a_scope_releases_a_request_waiting_on_a_provider():
    with Stalling() as server, CancelScope() as scope:
        client = HttpClient(server.base_url, timeout=8)
        watcher = cancel_when_it_waits(server, scope)
        with pytest.raises(UpstreamError, match="cancelled"):
            client.post("/anything", {"q": 1})
        server.release.set()
        watcher.join()
        with pytest.raises(UpstreamError, match="cancelled"):  # and it takes no new ones
            client.get("/again")


def test_a_client_made_after_the_cancel_is_born_cancelled():
    with CancelScope() as scope:
        scope.cancel()
        client = HttpClient("http://127.0.0.1:9")
        assert client.cancelled
    assert not HttpClient("http://127.0.0.1:9").cancelled  # outside the scope: a client of its own


def test_a_model_call_waiting_in_a_cancelled_scope_stops_retrying():
    with Stalling() as server, CancelScope() as scope:
        client = llm.LLMClient(server.base_url, "m", timeout=8, backoff=0)
        watcher = cancel_when_it_waits(server, scope)
        with pytest.raises(llm.LLMError, match="cancelled"):
            client.complete([{"role": "user", "content": "hi"}])
        server.release.set()
        watcher.join()
    assert len(server.requests) == 1  # cancelled, not retried five times
