#!/usr/bin/env bash
# Make `oasdiff` (pinned version) available and print its path on stdout; logs go to stderr.
# The OpenAPI breaking-change gate (scripts/openapi-gate.ts) runs it.
#
# oasdiff is a Go module, not on npm nor Debian. Order of attempts, fastest first:
#   1. A cached binary in ${XDG_CACHE_HOME:-$HOME/.cache}/awp/: use it.
#   2. Build it with `go install` (about 40 s cold on 2 cores), cache it, use it.
# v1.37.0 is the newest release the Go module proxy serves that `go install` accepts here
# (no replace directives; its go line, 1.26.0, needs no newer toolchain).
set -euo pipefail

OASDIFF_VERSION="1.37.0"
OASDIFF_MODULE="github.com/oasdiff/oasdiff"

log() { printf 'install-oasdiff: %s\n' "$*" >&2; }
die() {
  log "error: $*"
  exit 1
}

export PATH="/usr/local/go/bin:${HOME}/go/bin:${PATH}"

cache_dir="${XDG_CACHE_HOME:-$HOME/.cache}/awp"
cached_bin="${cache_dir}/oasdiff-${OASDIFF_VERSION}"

# The binary answers `oasdiff --help`: a copy that is there but broken is rebuilt.
works() { [ -x "$1" ] && "$1" --help >/dev/null 2>&1; }

if works "$cached_bin"; then
  printf '%s\n' "$cached_bin"
  exit 0
fi

mkdir -p "$cache_dir"
# Serialize concurrent runs (parallel test files, CI jobs) so only one builds.
if command -v flock >/dev/null 2>&1; then
  exec 9>"${cache_dir}/.install-oasdiff.lock"
  flock 9
  if works "$cached_bin"; then
    printf '%s\n' "$cached_bin"
    exit 0
  fi
fi

command -v go >/dev/null 2>&1 ||
  die "'go' not found (looked in PATH, /usr/local/go/bin, \$HOME/go/bin).
  oasdiff ${OASDIFF_VERSION} is built from source and needs Go >= 1.26.
  Install Go from https://go.dev/dl/ into /usr/local/go, then run this script again."
log "building oasdiff ${OASDIFF_VERSION} with $(go version)"

gobin="$(mktemp -d "${TMPDIR:-/tmp}/oasdiff-gobin.XXXXXX")"
trap 'rm -rf "$gobin"' EXIT
start=$SECONDS
# Outside any Go module, with the local toolchain: the project cannot influence the build.
(cd "$gobin" && GOTOOLCHAIN=local GOBIN="$gobin" GOFLAGS=-mod=mod \
  go install "${OASDIFF_MODULE}@v${OASDIFF_VERSION}") >&2 ||
  die "go install ${OASDIFF_MODULE}@v${OASDIFF_VERSION} failed (see output above)"
works "${gobin}/oasdiff" || die "go install succeeded but ${gobin}/oasdiff does not run"
log "built in $((SECONDS - start))s"

tmp="${cached_bin}.$$"
cp "${gobin}/oasdiff" "$tmp"
chmod 0755 "$tmp"
mv -f "$tmp" "$cached_bin"
log "cached ${cached_bin}"
printf '%s\n' "$cached_bin"
