#!/usr/bin/env bash
# `npm start`: the service on its embedded defaults, from compiled JavaScript (built when
# dist/ is missing or older than the sources). Installs what is missing, starts a local
# Redis when REDIS_URL is unset, and on first run creates a development workspace and
# prints its keys. `npm run dev` (AWP_DEV=1) runs the TypeScript sources instead and
# restarts on every change. Ports: PORT, DEV_PORT, LOCAL_REDIS_PORT, LOCAL_LIVEKIT_PORT,
# LOCAL_LIVEKIT_RTC_TCP_PORT, LOCAL_LIVEKIT_UDP_PORT, WORKER_HTTP_PORT. SIGTERM or SIGINT
# stops everything it started.
set -euo pipefail
cd "$(dirname "$0")/.."
# AWP_SKIP_SETUP=1: the machine is set up already (tests run this script on a checkout whose
# node_modules is shared, and must never reinstall packages).
if [ "${AWP_SKIP_SETUP:-}" != "1" ]; then bash scripts/setup.sh run; fi

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

# Live Agent sessions: without LIVEKIT_URL, a local livekit-server --dev on 127.0.0.1 (with
# this data folder's key pair) and one agent worker (stopped with the api).
livekit_pid=""
local_livekit=""
if [ -z "${LIVEKIT_URL:-}" ] && command -v livekit-server >/dev/null 2>&1; then
  # Signal port, ICE/TCP and ICE/UDP (LiveKit's dev defaults; overridable so several copies
  # can run side by side, as the tests do).
  lk_port="${LOCAL_LIVEKIT_PORT:-7880}"
  lk_tcp_port="${LOCAL_LIVEKIT_RTC_TCP_PORT:-7881}"
  lk_udp_port="${LOCAL_LIVEKIT_UDP_PORT:-7882}"
  mkdir -p "$DATA_DIR/livekit"
  # This data folder's own key pair (created on first start, mode 0600), never LiveKit's
  # public devkey/secret: anyone on the machine could mint room tokens with those.
  lk_key_file="$DATA_DIR/livekit/keys.yaml"
  read -r lk_api_key lk_api_secret < <(node scripts/lib/livekit-keys.mjs "$lk_key_file")
  echo "[start] starting a local livekit-server --dev on 127.0.0.1:$lk_port (log: $DATA_DIR/livekit/livekit.log)" >&2
  livekit-server --dev --key-file "$lk_key_file" --bind 127.0.0.1 --port "$lk_port" \
    --node-ip 127.0.0.1 --rtc.tcp_port "$lk_tcp_port" --udp-port "$lk_udp_port" \
    >"$DATA_DIR/livekit/livekit.log" 2>&1 &
  livekit_pid=$!
  export LIVEKIT_URL="ws://127.0.0.1:$lk_port" LIVEKIT_API_KEY="$lk_api_key" LIVEKIT_API_SECRET="$lk_api_secret"
  local_livekit=1
elif [ -z "${LIVEKIT_URL:-}" ]; then
  echo "[start] livekit-server is not installed (scripts/install-livekit.sh): live Agent sessions answer 503" >&2
fi

# The compiled api, restarted when it exits with 70: its failure policy drains and exits
# with 70 after an unhandled error (docs/decisions.md, "Reliability"). Any other exit ends
# npm start with that status.
supervise_api() {
  local child=""
  trap 'if [ -n "$child" ]; then kill -TERM "$child" 2>/dev/null || true; wait "$child" 2>/dev/null || true; fi; exit 0' TERM INT
  while true; do
    node --enable-source-maps dist/src/main.js &
    child=$!
    local code=0
    wait "$child" || code=$?
    if [ "$code" -ne 70 ]; then exit "$code"; fi
    echo "[start] the api stopped after a fatal error; restarting it" >&2
    sleep 1
  done
}

if [ "${AWP_DEV:-}" = "1" ]; then
  export NODE_ENV="${NODE_ENV:-development}"
  node --watch --import tsx src/main.ts &
else
  node -e "import('./scripts/lib/build.mjs').then((b) => b.ensureBuilt())"
  supervise_api &
fi
api_pid=$!
worker_pid=""
if [ -n "$local_livekit" ]; then
  export AWP_API_URL="${AWP_API_URL:-http://127.0.0.1:${PORT:-8080}}"
  export AWP_API_DEV_URL="${AWP_API_DEV_URL:-http://127.0.0.1:${DEV_PORT:-8081}}"
  if [ "${AWP_DEV:-}" = "1" ]; then
    node --import tsx worker/main.ts &
  else
    node --enable-source-maps dist/worker/main.js &
  fi
  worker_pid=$!
fi
stop_local_livekit() {
  if [ -n "$worker_pid" ]; then kill -TERM "$worker_pid" 2>/dev/null || true; wait "$worker_pid" 2>/dev/null || true; fi
  if [ -n "$livekit_pid" ]; then kill -TERM "$livekit_pid" 2>/dev/null || true; wait "$livekit_pid" 2>/dev/null || true; fi
}
stop() {
  kill -TERM "$api_pid" 2>/dev/null || true
  wait "$api_pid" 2>/dev/null || true
  stop_local_livekit
  if [ -n "$redis_pid" ]; then kill -TERM "$redis_pid" 2>/dev/null || true; wait "$redis_pid" 2>/dev/null || true; fi
}
trap stop INT TERM
status=0
wait "$api_pid" || status=$?
stop_local_livekit
if [ -n "$redis_pid" ]; then kill -TERM "$redis_pid" 2>/dev/null || true; wait "$redis_pid" 2>/dev/null || true; fi
exit "$status"
