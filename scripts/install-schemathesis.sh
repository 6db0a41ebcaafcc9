#!/usr/bin/env bash
# Installs schemathesis (PyPI) into a cached virtual environment for the test suite's
# API fuzzing test. It only ever talks to the service on loopback.
set -euo pipefail
VERSION="4.32.5"
venv="${XDG_CACHE_HOME:-$HOME/.cache}/awp/schemathesis-venv"
bin="$venv/bin/schemathesis"
if [ -x "$bin" ] && "$bin" --version 2>/dev/null | grep -q "$VERSION"; then exit 0; fi
echo "[setup] installing schemathesis $VERSION into $venv" >&2
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$VERSION"
"$bin" --version >/dev/null
