"""A loopback stand-in for the model APIs the real providers call, for `make test-integration`.

- POST /v1/embeddings: hashed bag of words, L2-normalised, 384 dims (shared words give similar vectors).
- POST /v1/chat/completions: a scripted agent for `brv`. ByteRover's agent asks its LLM to write
  JavaScript for its sandbox; for a curate task the stub answers with one `code_exec` call that files
  the whole curate context as a single UPSERT, for a query task with one that answers with the
  excerpts brv's own search put in the sandbox (or "not covered" when it found nothing). Any other
  chat gets a short text answer. Streams (SSE) when asked, as brv always does.
- GET anything: 200 `{}`, so brv's cloud discovery (pointed here) fails soft instead of hanging.
- GET /_log: the chat requests seen, each with the brv task it served ("curate", "query" or ""),
  for tests that assert whether the model was asked.

Stdlib only; run as `python3 model_stub.py PORT`.
"""

import hashlib
import json
import math
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DIMS = 384
CURATE_CTX = re.compile(r"Context variable: (__curate_ctx_\w+)")
QUERY_RESULTS = re.compile(r"`(__query_results_\w+)`")
CURATE_CODE = """// Curate the note to memoryhub/notes
(async () => {
  const text = String(%(ctx)s);
  const result = await tools.curate([{
    type: 'UPSERT', path: 'memoryhub/notes', title: %(title)s,
    reason: 'Scripted test curator', summary: text.slice(0, 200),
    content: { narrative: { highlights: text } },
  }]);
  setFinalResult('Curation complete: ' + JSON.stringify(result.summary));
})()"""
QUERY_CODE = """// Answer from the pre-loaded search results
(() => {
  const hits = (%(results)s || []).slice(0, 3);
  if (!hits.length) { setFinalResult('This topic is not covered in the knowledge base.'); return; }
  setFinalResult('**Summary**: Found in the context tree.\\n\\n**Details**:\\n\\n'
    + hits.map(h => h.excerpt).join('\\n\\n---\\n\\n') + '\\n\\n**Sources**:\\n'
    + hits.map(h => '- `.brv/context-tree/' + h.path + '`').join('\\n'));
})()"""
chats = []
chats_lock = threading.Lock()


def embed(text):
    v = [0.0] * DIMS
    for w in re.findall(r"\w+", text.lower()):
        v[int(hashlib.md5(w.encode()).hexdigest(), 16) % DIMS] += 1.0
    n = math.sqrt(sum(x * x for x in v)) or 1.0
    return [x / n for x in v]


def reply(body):
    """The brv task a chat serves and the assistant's next message: a `code_exec` call that starts the
    task, else plain text."""
    messages = body.get("messages") or []
    asked = "\n".join(str(m.get("content")) for m in messages if m.get("role") == "user")
    tools = {t.get("function", {}).get("name") for t in body.get("tools") or []}
    curate, query = CURATE_CTX.search(asked), QUERY_RESULTS.search(asked)
    task = "curate" if curate else "query" if query else ""
    if "code_exec" not in tools or any(m.get("role") == "tool" for m in messages) or not task:
        return task, {"role": "assistant", "content": "Done."}
    if curate:
        title = "note " + hashlib.sha1(asked.encode()).hexdigest()[:8]
        code = CURATE_CODE % {"ctx": curate.group(1), "title": json.dumps(title)}
    else:
        code = QUERY_CODE % {"results": query.group(1)}
    return task, {"role": "assistant", "content": None, "tool_calls": [{
        "id": "call_1", "type": "function",
        "function": {"name": "code_exec", "arguments": json.dumps({"code": code})}}]}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def _json(self, obj):
        out = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def do_GET(self):
        with chats_lock:
            self._json(list(chats) if self.path == "/_log" else {})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        if self.path.endswith("/embeddings"):
            inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
            return self._json({"object": "list", "model": body.get("model"),
                               "usage": {"prompt_tokens": 1, "total_tokens": 1},
                               "data": [{"object": "embedding", "index": i, "embedding": embed(t)}
                                        for i, t in enumerate(inputs)]})
        task, message = reply(body)
        with chats_lock:
            chats.append({"path": self.path, "task": task, "tool_calls": bool(message.get("tool_calls"))})
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        base = {"id": "stub", "created": int(time.time()), "model": body.get("model", "stub")}
        if not body.get("stream"):
            return self._json({**base, "object": "chat.completion",
                               "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                               "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        delta = dict(message)
        if delta.get("tool_calls"):
            delta["tool_calls"] = [{"index": 0, **call} for call in delta["tool_calls"]]
        for choice in ({"index": 0, "delta": delta, "finish_reason": None},
                       {"index": 0, "delta": {}, "finish_reason": finish}):
            chunk = {**base, "object": "chat.completion.chunk", "choices": [choice]}
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
