#!/usr/bin/env bash
# `npm run bench`: installs what is missing, starts a private Redis for the one-shot HTTP
# row, and runs bench/run.ts, bench/alignment.ts then bench/voice.ts (pass `-- --quick` for a short
# smoke run that leaves bench/README.md alone; `-- alignment [--quick]` runs only the alignment
# scenario; `-- fleet [--kills N]` only the fleet's crash gap and sessions per worker;
# `-- capacity [--quick]` only the simultaneous live conversations one machine holds).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh run >&2

port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no --loglevel warning \
  --daemonize yes --pidfile "/tmp/awp-bench-redis-$port.pid"
trap 'kill "$(cat /tmp/awp-bench-redis-'"$port"'.pid)" 2>/dev/null || true' EXIT
for _ in $(seq 1 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
export TEST_REDIS_URL="redis://127.0.0.1:$port"

node scripts/build.mjs >&2 # the bench drives the compiled service
if [ "${1:-}" = fleet ]; then
  shift
  # The fleet runs on PostgreSQL (a database of its own in the local cluster) and on
  # SeaweedFS and livekit-server as the tests install them.
  bash scripts/test-postgres.sh >&2
  export TEST_POSTGRES_URL="${TEST_POSTGRES_URL:-postgres://awp:awp@127.0.0.1:5432/postgres}"
  export PATH="$PWD/node_modules/.bin:/usr/local/go/bin:$HOME/go/bin:$PATH"
  node --import tsx bench/fleet.ts "$@"
  exit 0
fi
if [ "${1:-}" = capacity ]; then
  shift
  node --import tsx bench/capacity.ts "$@"
  exit 0
fi
if [ "${1:-}" = alignment ]; then
  shift
  node --import tsx bench/alignment.ts "$@"
  exit 0
fi
node --import tsx bench/run.ts "$@"
# CPU of word alignment on the stream path, with and without it side by side.
node --import tsx bench/alignment.ts "$@"
# Voice-to-voice latency of a live conversation (livekit-server, worker, Whisper).
node --import tsx bench/voice.ts "$@"
