#!/usr/bin/env bash
# Make SeaweedFS's `weed` (pinned version) available as ${XDG_CACHE_HOME:-~/.cache}/awp/weed-VERSION:
# the S3-compatible object store the storage tests run against. `weed` is a Go module whose
# go.mod has replace directives, so `go install` refuses it: download the module, copy it
# somewhere writable and build it there. Prints the binary's path on stdout.
set -euo pipefail

WEED_VERSION="v0.0.0-20261109003541-7506e5f91cd6"
WEED_MODULE="github.com/seaweedfs/seaweedfs"

log() { printf 'install-seaweedfs: %s\n' "$*" >&2; }
export PATH="/usr/local/go/bin:${HOME}/go/bin:${PATH}"

cache_dir="${XDG_CACHE_HOME:-$HOME/.cache}/awp"
cached_bin="${cache_dir}/weed-${WEED_VERSION}"
if [ -x "$cached_bin" ] && "$cached_bin" version >/dev/null 2>&1; then
  printf '%s\n' "$cached_bin"
  exit 0
fi

command -v go >/dev/null || { log "error: Go is needed to build weed"; exit 1; }
mkdir -p "$cache_dir"
started=$(date +%s)
log "downloading ${WEED_MODULE}@${WEED_VERSION}"
module_dir="$(GOFLAGS=-mod=mod go mod download -json "${WEED_MODULE}@${WEED_VERSION}" |
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
[ -d "$module_dir" ] || { log "error: module folder not found"; exit 1; }
work="$(mktemp -d)"
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
cp -r "$module_dir/." "$work/"
chmod -R u+w "$work"
log "building weed (several minutes on two cores)"
(cd "$work" && GOFLAGS=-mod=mod go build -o "$work/weed.bin" ./weed)
mv -f "$work/weed.bin" "$cached_bin.tmp"
mv -f "$cached_bin.tmp" "$cached_bin"
log "built ${cached_bin} in $(($(date +%s) - started)) s"
printf '%s\n' "$cached_bin"
