#!/usr/bin/env bash
# `npm start`: the service on its embedded defaults. Installs what is missing, starts a
# local Redis when REDIS_URL is unset, and on first run creates a development workspace
# and prints its keys.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh run

export DATA_DIR="${DATA_DIR:-./data}"
mkdir -p "$DATA_DIR"
redis_pid=""
if [ -z "${REDIS_URL:-}" ]; then
  port="${LOCAL_REDIS_PORT:-6379}"
  if redis-cli -p "$port" ping >/dev/null 2>&1; then
    echo "[start] using the Redis already on 127.0.0.1:$port" >&2
  else
    echo "[start] starting a local Redis on 127.0.0.1:$port (data in $DATA_DIR/redis)" >&2
    mkdir -p "$DATA_DIR/redis"
    redis-server --bind 127.0.0.1 --port "$port" --dir "$DATA_DIR/redis" --appendonly yes \
      --save '' --loglevel warning &
    redis_pid=$!
    for _ in $(seq 1 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
  fi
  export REDIS_URL="redis://127.0.0.1:$port"
fi
export BOOTSTRAP_WORKSPACE="${BOOTSTRAP_WORKSPACE:-true}"

node --import tsx src/main.ts &
api_pid=$!
stop() {
  kill -TERM "$api_pid" 2>/dev/null || true
  wait "$api_pid" 2>/dev/null || true
  if [ -n "$redis_pid" ]; then kill -TERM "$redis_pid" 2>/dev/null || true; wait "$redis_pid" 2>/dev/null || true; fi
}
trap stop INT TERM
status=0
wait "$api_pid" || status=$?
if [ -n "$redis_pid" ]; then kill -TERM "$redis_pid" 2>/dev/null || true; wait "$redis_pid" 2>/dev/null || true; fi
exit "$status"
