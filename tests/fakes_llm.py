"""Tiny OpenAI-compatible servers on 127.0.0.1:0: a chat model that plays back scripted answers, and the
JSON server under it (tests/fakes_embeddings.py builds on it too)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeJsonServer:
    """Context manager: every POST's JSON body goes to `respond`, whose (status, JSON body) is sent back."""

    def __init__(self):
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with fake._lock:
                    fake.requests.append({"path": self.path, "body": body, "auth": self.headers.get("authorization", "")})
                status, payload = fake.respond(body)
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out and left, as the timeout tests intend

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def respond(self, body: dict) -> tuple[int, dict]:
        raise NotImplementedError

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def chat_answer(content: str) -> tuple[int, dict]:
    """A 200 chat-completions body whose first choice says `content`."""
    return 200, {"id": "fake", "object": "chat.completion",
                 "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}


class FakeLLM(FakeJsonServer):
    """`script` is a list of (status, json body) or ("sleep", seconds) steps; the last repeats."""

    def __init__(self, script: list[tuple]):
        super().__init__()
        self.script = list(script)

    def respond(self, body: dict) -> tuple[int, dict]:
        with self._lock:
            step = self.script.pop(0) if len(self.script) > 1 else self.script[0]
        if step[0] == "sleep":
            time.sleep(step[1])
            step = chat_answer("{}")
        return step
