#!/usr/bin/env bash
# `npm run soak`: builds the service and runs bench/soak.ts (10 minutes by default; set
# SOAK_MINUTES for a shorter run). Loopback only; it starts and restarts its own Redis.
# PostgreSQL is used when TEST_POSTGRES_URL is set. Not part of `npm test`: too long.
set -euo pipefail
cd "$(dirname "$0")/.."
node scripts/build.mjs >&2
exec node --import tsx bench/soak.ts "$@"
