#!/usr/bin/env bash
# `npm start`: the service on its embedded defaults, from compiled JavaScript (built when
# dist/ is missing or older than the sources). Installs what is missing, starts a local
# Redis when REDIS_URL is unset, and on first run creates a development workspace and
# prints its keys. `npm run dev` (AWP_DEV=1) runs the TypeScript sources instead and
# restarts on every change.
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
    mkdir -p "$DATA_DIR/redis"
    echo "[start] starting a local Redis on 127.0.0.1:$port (log: $DATA_DIR/redis/redis.log)" >&2
    # Its own log file: Redis warns at every start about kernel settings a laptop lacks.
    redis-server --bind 127.0.0.1 --port "$port" --dir "$DATA_DIR/redis" --appendonly yes \
      --save '' --loglevel warning --logfile "$(cd "$DATA_DIR" && pwd)/redis/redis.log" &
    redis_pid=$!
    for _ in $(seq 1 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
  fi
  export REDIS_URL="redis://127.0.0.1:$port"
fi
export BOOTSTRAP_WORKSPACE="${BOOTSTRAP_WORKSPACE:-true}"
# The demo page at http://localhost:8081/demo (development listener, loopback only).
export DEMO_PAGE="${DEMO_PAGE:-true}"

if [ "${AWP_DEV:-}" = "1" ]; then
  export NODE_ENV="${NODE_ENV:-development}"
  node --watch --import tsx src/main.ts &
else
  node -e "import('./scripts/lib/build.mjs').then((b) => b.ensureBuilt())"
  node --enable-source-maps dist/src/main.js &
fi
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
