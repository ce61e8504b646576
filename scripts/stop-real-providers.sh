#!/usr/bin/env bash
# Stop what scripts/start-real-providers.sh started in $WD: each server by its recorded pid (with its
# process group, so brv's agent processes go too), then Postgres through pg_ctl. Safe to run twice.
set -uo pipefail
WD=${1:-/tmp/memoryhub-real}
HS_VENV=${HS_VENV:-/tmp/hs-venv}

DAEMON_JSON="$WD/brv-home/.local/share/brv/daemon.json"
if [ -f "$DAEMON_JSON" ]; then  # the daemon may have restarted under a new pid since the start
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pid"])' "$DAEMON_JSON" \
    > "$WD/brv-daemon.pid" 2>/dev/null || true
fi
pids=()
for file in "$WD"/*.pid; do
  [ -f "$file" ] || continue
  pid=$(cat "$file"); rm -f "$file"
  case "$pid" in ''|*[!0-9]*) continue ;; esac
  if [ "$(ps -o pgid= -p "$pid" | tr -d ' ')" = "$pid" ]; then
    kill -TERM -- "-$pid" 2>/dev/null
  else
    kill -TERM "$pid" 2>/dev/null
  fi && pids+=("$pid")
done
for _ in $(seq 1 20); do
  alive=0
  for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
  [ "$alive" = 0 ] && break
  sleep 0.5
done
for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && kill -KILL -- "-$pid" "$pid" 2>/dev/null; done

if [ -f "$WD/pg/data/postmaster.pid" ]; then
  PGBIN="$HS_VENV/lib/python3.11/site-packages/pgserver/pginstall/bin"
  AS_PG=()
  [ "$(id -u)" = 0 ] && AS_PG=(runuser -u pgserver --)
  "${AS_PG[@]}" "$PGBIN/pg_ctl" -D "$WD/pg/data" -m fast -w stop > /dev/null
fi
exit 0
