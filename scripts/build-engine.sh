#!/usr/bin/env bash
# Compiles the long-lived espeak-ng engine (native/espeak-engine/awp-espeak-engine.c) with
# the system compiler against libespeak-ng and libsoxr (its resampler), into .cache/native/.
# It stays a separate program (espeak-ng is GPL); the service talks to it over stdin/stdout.
# Skips the build when the binary is newer than its source.
set -euo pipefail
cd "$(dirname "$0")/.."
src=native/espeak-engine/awp-espeak-engine.c
out=.cache/native/awp-espeak-engine
if [ -x "$out" ] && [ "$out" -nt "$src" ]; then exit 0; fi
mkdir -p "$(dirname "$out")"
"${CC:-gcc}" -O2 -Wall -Wextra -Werror -o "$out.tmp" "$src" -lespeak-ng -lsoxr
mv "$out.tmp" "$out"
printf '[setup] built %s\n' "$out" >&2
