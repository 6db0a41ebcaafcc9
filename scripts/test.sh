#!/usr/bin/env bash
# `npm test`: installs what is missing, starts a private Redis and PostgreSQL (unless
# TEST_REDIS_URL / TEST_POSTGRES_URL point at running ones), checks formatting, types and
# import rules, then runs the whole suite (integration tests on SQLite and PostgreSQL).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
export PATH="$PWD/node_modules/.bin:$PATH"

cleanup_cmds=()
cleanup() { for c in "${cleanup_cmds[@]}"; do eval "$c" || true; done; }
trap cleanup EXIT

if [ -z "${TEST_REDIS_URL:-}" ]; then
  port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
  redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no --loglevel warning \
    --daemonize yes --pidfile "/tmp/awp-test-redis-$port.pid"
  cleanup_cmds+=("kill \$(cat /tmp/awp-test-redis-$port.pid)")
  for _ in $(seq 1 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
  export TEST_REDIS_URL="redis://127.0.0.1:$port"
fi

if [ -z "${TEST_POSTGRES_URL:-}" ]; then
  bash scripts/test-postgres.sh
  export TEST_POSTGRES_URL="postgres://awp:awp@127.0.0.1:5432/postgres"
fi

# The api servers the tests start keep their data under the temp folder and write no
# spool file that would leave its disk with less than 1 GiB free (AUDIO_SPOOL_MIN_FREE_BYTES):
# below that, tests that wait for persisted audio would only time out.
tmp="${TMPDIR:-/tmp}"
free_kib="$(df -Pk "$tmp" | awk 'NR==2 {print $4}')"
if [ "$free_kib" -lt $((1280 * 1024)) ]; then
  echo "[test] only $((free_kib / 1024)) MiB free in $tmp: the tests need at least 1280 MiB" \
    "(audio persistence stops at 1 GiB free); free some space or set TMPDIR" >&2
  exit 1
fi

echo "[test] format, lint, types, import rules (cycles, layers, worker boundary), no copied protocol constant" >&2
biome check .
tsc --noEmit -p tsconfig.json
npm run -s deps
npm run -s protocol:copies

# The committed OpenAPI document: generated from the code, lint-free, and no breaking change
# against the main branch without a new version (docs/api-changelog.md).
echo "[test] OpenAPI document: up to date, lint, breaking-change gate" >&2
npm run -s openapi:check
npm run -s openapi:lint
npm run -s openapi:gate

echo "[test] test suite" >&2
mkdir -p test-results
status=0
vitest run --reporter=default --reporter=json --outputFile.json=test-results/vitest.json "$@" || status=$?
node scripts/test-summary.mjs test-results/vitest.json || true
exit "$status"
