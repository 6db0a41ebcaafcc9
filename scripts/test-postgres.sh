#!/usr/bin/env bash
# Makes sure a local PostgreSQL cluster runs and has a role `awp` (password `awp`) that may
# create databases: each test server gets a database of its own.
set -euo pipefail
version="$(ls /usr/lib/postgresql | sort -V | tail -n 1)"
if [ -z "$version" ]; then echo "[test] PostgreSQL is not installed" >&2; exit 1; fi
if ! pg_lsclusters -h | awk '{print $1" "$2}' | grep -q "^$version main$"; then
  pg_createcluster "$version" main >/dev/null
fi
if ! pg_lsclusters -h | awk -v v="$version" '$1==v && $2=="main" {print $4}' | grep -q online; then
  pg_ctlcluster "$version" main start
fi
for _ in $(seq 1 50); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 0.2; done
run_psql() { if [ "$(id -u)" -eq 0 ]; then su postgres -c "psql -qAt -c \"$1\""; else sudo -u postgres psql -qAt -c "$1"; fi; }
if [ "$(run_psql "select 1 from pg_roles where rolname='awp'")" != "1" ]; then
  run_psql "create role awp login createdb password 'awp'"
fi
