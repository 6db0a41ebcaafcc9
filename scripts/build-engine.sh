#!/usr/bin/env bash
# Compiles the long-lived espeak-ng engine (native/espeak-engine/awp-espeak-engine.c) with
# the system compiler against libespeak-ng and libsoxr (its resampler), into .cache/native/.
# It stays a separate program (espeak-ng is GPL); the service talks to it over stdin/stdout.
# Beside it goes libpcaudio.so.0 built from native/espeak-engine/no-audio.c, an audio-device
# library with no device: the engine loads it (RUNPATH $ORIGIN) instead of the system's,
# which brings PulseAudio and ALSA along into every utterance's fork (see no-audio.c).
# Skips the build when both files are newer than the sources.
set -euo pipefail
cd "$(dirname "$0")/.."
src=native/espeak-engine/awp-espeak-engine.c
stub_src=native/espeak-engine/no-audio.c
out=.cache/native/awp-espeak-engine
stub=.cache/native/libpcaudio.so.0
if [ -x "$out" ] && [ -f "$stub" ] && [ "$out" -nt "$src" ] && [ "$out" -nt "$stub_src" ] &&
  [ "$stub" -nt "$stub_src" ]; then exit 0; fi
mkdir -p "$(dirname "$out")"
cc="${CC:-gcc}"
"$cc" -O2 -Wall -Wextra -Werror -shared -fPIC -Wl,-soname,libpcaudio.so.0 -o "$stub.tmp" "$stub_src"
mv "$stub.tmp" "$stub"
# The stub is linked first and kept (--no-as-needed: the engine calls none of it), so it is
# loaded before libespeak-ng asks for a library of that name.
"$cc" -O2 -Wall -Wextra -Werror -o "$out.tmp" "$src" -Wl,--no-as-needed "$stub" -Wl,--as-needed \
  -lespeak-ng -lsoxr -Wl,-rpath,'$ORIGIN'
mv "$out.tmp" "$out"
printf '[setup] built %s\n' "$out" >&2
