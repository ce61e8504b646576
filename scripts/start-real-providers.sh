#!/usr/bin/env bash
# Start a real OpenViking server (PyPI openviking==0.5.2) on 127.0.0.1 with a stub embedder, for
# `pytest -m integration tests/integration`. Writes the variables the tests read to $WD/env; source it.
#   OV_VENV=/tmp/ov-venv   (python3 -m venv $OV_VENV && $OV_VENV/bin/pip install openviking==0.5.2)
#   stop: kill $(cat $WD/*.pid)
set -euo pipefail
WD=${1:-/tmp/memoryhub-real}
OV_VENV=${OV_VENV:-/tmp/ov-venv}
mkdir -p "$WD/home" "$WD/data"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
EMBED_PORT=$(free_port); OV_PORT=$(free_port)
ROOT_KEY="ovk-root-$(python3 -c 'import secrets; print(secrets.token_hex(16))')"

# An OpenAI-compatible embedder: hashed bag of words, L2-normalised, 384 dims.
cat > "$WD/embedder.py" <<'PY'
import hashlib, json, math, re, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
def vec(text):
    v = [0.0] * 384
    for w in re.findall(r"\w+", text.lower()):
        v[int(hashlib.md5(w.encode()).hexdigest(), 16) % 384] += 1.0
    n = math.sqrt(sum(x * x for x in v)) or 1.0
    return [x / n for x in v]
class H(BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        out = json.dumps({"object": "list", "model": body.get("model"), "usage": {"prompt_tokens": 1, "total_tokens": 1},
                          "data": [{"object": "embedding", "index": i, "embedding": vec(t)} for i, t in enumerate(inputs)]}).encode()
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out))); self.end_headers(); self.wfile.write(out)
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
python3 "$WD/embedder.py" "$EMBED_PORT" > "$WD/embedder.log" 2>&1 & echo $! > "$WD/embedder.pid"

cat > "$WD/ov.conf" <<JSON
{"embedding": {"dense": {"provider": "openai", "model": "fake-embed", "api_base": "http://127.0.0.1:$EMBED_PORT/v1",
                         "api_key": "sk-fake", "dimension": 384, "input": "text"}},
 "storage": {"workspace": "$WD/data"},
 "server": {"host": "127.0.0.1", "port": $OV_PORT, "auth_mode": "api_key", "root_api_key": "$ROOT_KEY"},
 "log": {"level": "INFO"}}
JSON
HOME="$WD/home" OPENVIKING_CONFIG_FILE="$WD/ov.conf" LITELLM_LOCAL_MODEL_COST_MAP=True HF_HUB_OFFLINE=1 \
  setsid "$OV_VENV/bin/openviking-server" --config "$WD/ov.conf" --host 127.0.0.1 --port "$OV_PORT" \
  > "$WD/server.log" 2>&1 & echo $! > "$WD/openviking.pid"

URL="http://127.0.0.1:$OV_PORT"
for _ in $(seq 1 120); do
  curl -fsS "$URL/ready" >/dev/null 2>&1 && break
  sleep 1
done
curl -fsS "$URL/ready" >/dev/null
KEY=$(curl -fsS -X POST "$URL/api/v1/admin/accounts" -H "X-API-Key: $ROOT_KEY" -H "Authorization: Bearer $ROOT_KEY" \
  -H 'Content-Type: application/json' -d '{"account_id":"acme","admin_user_id":"alice"}' \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["result"]["user_key"])')
curl -fsS -X POST "$URL/api/v1/system/wait" -H "X-API-Key: $KEY" -H "Authorization: Bearer $KEY" >/dev/null || true
cat > "$WD/env" <<ENV
export MEMORYHUB_IT_OPENVIKING_URL=$URL
export MEMORYHUB_IT_OPENVIKING_KEY=$KEY
export MEMORYHUB_IT_OPENVIKING_ACCOUNT=acme
export MEMORYHUB_IT_OPENVIKING_USER=alice
ENV
echo "OpenViking ready at $URL; source $WD/env"
