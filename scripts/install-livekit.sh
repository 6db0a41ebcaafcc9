#!/usr/bin/env bash
# Make `livekit-server` (pinned version) available on PATH.
#
# Order of attempts, fastest first:
#   1. `livekit-server` already on PATH with the pinned version: nothing to do.
#   2. A cached binary in ${XDG_CACHE_HOME:-$HOME/.cache}/awp/: install it.
#   3. Build it with `go install` (LiveKit is a Go module, not on npm nor Debian),
#      cache the result, install it.
#
# The binary goes to /usr/local/bin when writable (root), else to $HOME/.local/bin.
# The Go module and build caches stay in their default places ($HOME/go/pkg/mod,
# $HOME/.cache/go-build) so a rebuild after a cache miss of the binary is fast.
set -euo pipefail

LIVEKIT_VERSION="1.13.5"
LIVEKIT_MODULE="github.com/livekit/livekit-server/cmd/server"

log() { printf 'install-livekit: %s\n' "$*" >&2; }
die() {
  log "error: $*"
  exit 1
}

export PATH="/usr/local/go/bin:${HOME}/go/bin:${PATH}"

cache_dir="${XDG_CACHE_HOME:-$HOME/.cache}/awp"
cached_bin="${cache_dir}/livekit-server-${LIVEKIT_VERSION}"

# Prints the version reported by a livekit-server binary ("livekit-server version X").
binary_version() {
  "$1" --version 2>/dev/null | awk '{print $NF}' | head -n 1 || true
}

if [ "$(id -u)" -eq 0 ] || [ -w /usr/local/bin ]; then
  install_dir="/usr/local/bin"
else
  install_dir="${HOME}/.local/bin"
fi

# Copies $1 to $install_dir/livekit-server atomically (never a half-written binary).
install_binary() {
  local src="$1"
  mkdir -p "$install_dir"
  local tmp="${install_dir}/.livekit-server.$$"
  cp "$src" "$tmp"
  chmod 0755 "$tmp"
  mv -f "$tmp" "${install_dir}/livekit-server"
  local got
  got="$(binary_version "${install_dir}/livekit-server")"
  [ "$got" = "$LIVEKIT_VERSION" ] ||
    die "installed ${install_dir}/livekit-server reports version '${got}', expected ${LIVEKIT_VERSION}"
  log "installed ${install_dir}/livekit-server (${LIVEKIT_VERSION})"
  case ":${PATH}:" in
  *":${install_dir}:"*) ;;
  *) log "note: ${install_dir} is not on PATH; add it (export PATH=\"${install_dir}:\$PATH\")" ;;
  esac
  if [ "$install_dir" != "/usr/local/bin" ]; then
    log "note: not root, so installed to ${install_dir} instead of /usr/local/bin"
  fi
}

# Copies $1 into the cache atomically.
cache_binary() {
  mkdir -p "$cache_dir"
  local tmp="${cached_bin}.$$"
  cp "$1" "$tmp"
  chmod 0755 "$tmp"
  mv -f "$tmp" "$cached_bin"
}

# 1. Already installed?
if current="$(command -v livekit-server 2>/dev/null)"; then
  version="$(binary_version "$current")"
  if [ "$version" = "$LIVEKIT_VERSION" ]; then
    log "livekit-server ${LIVEKIT_VERSION} already installed at ${current}"
    # Seed the cache so a fresh machine sharing $HOME/.cache skips the build.
    if [ ! -x "$cached_bin" ]; then
      cache_binary "$current" && log "cached ${cached_bin}"
    fi
    exit 0
  fi
  log "found ${current} with version '${version}', want ${LIVEKIT_VERSION}"
fi

mkdir -p "$cache_dir"
# Serialize concurrent runs (CI jobs, parallel setup) so only one builds.
if command -v flock >/dev/null 2>&1; then
  exec 9>"${cache_dir}/.install-livekit.lock"
  flock 9
fi

# 2. Cached binary?
if [ -x "$cached_bin" ] && [ "$(binary_version "$cached_bin")" = "$LIVEKIT_VERSION" ]; then
  log "using cached ${cached_bin}"
  install_binary "$cached_bin"
  exit 0
fi

# 3. Build from source.
if ! command -v go >/dev/null 2>&1; then
  die "'go' not found (looked in PATH, /usr/local/go/bin, \$HOME/go/bin).
  livekit-server ${LIVEKIT_VERSION} is built from source and its go.mod needs Go >= 1.26.
  Install Go from https://go.dev/dl/ into /usr/local/go, then run this script again."
fi
log "building livekit-server ${LIVEKIT_VERSION} with $(go version) (cold: a few minutes; warm: seconds)"

gobin="$(mktemp -d "${TMPDIR:-/tmp}/livekit-gobin.XXXXXX")"
trap 'rm -rf "$gobin"' EXIT
start=$SECONDS
# Run outside any Go module so the project directory cannot influence the build.
(cd "$gobin" && GOBIN="$gobin" GOFLAGS=-mod=mod go install "${LIVEKIT_MODULE}@v${LIVEKIT_VERSION}") ||
  die "go install ${LIVEKIT_MODULE}@v${LIVEKIT_VERSION} failed (see output above)"
[ -x "${gobin}/server" ] || die "go install succeeded but ${gobin}/server is missing"
log "built in $((SECONDS - start))s"

built_version="$(binary_version "${gobin}/server")"
[ "$built_version" = "$LIVEKIT_VERSION" ] ||
  die "built binary reports version '${built_version}', expected ${LIVEKIT_VERSION}"

cache_binary "${gobin}/server"
log "cached ${cached_bin}"
install_binary "$cached_bin"
