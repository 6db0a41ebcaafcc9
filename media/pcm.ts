/**
 * A block of mono PCM audio: signed 16-bit little-endian samples, no header.
 * `data.byteLength` is always even (whole samples only).
 */
export interface PcmChunk {
  readonly data: Buffer;
  readonly sampleRateHz: number;
}

/** Bytes per sample of 16-bit mono PCM. */
export const PCM_BYTES_PER_SAMPLE = 2;

/** Duration in milliseconds of `byteLength` bytes of 16-bit mono PCM at `sampleRateHz`. */
export function pcmDurationMs(byteLength: number, sampleRateHz: number): number {
  return (byteLength / PCM_BYTES_PER_SAMPLE / sampleRateHz) * 1000;
}

/** Number of whole samples in `byteLength` bytes of 16-bit mono PCM. */
export function pcmSampleCount(byteLength: number): number {
  return Math.floor(byteLength / PCM_BYTES_PER_SAMPLE);
}

/**
 * View `pcm` as 16-bit samples without copying when the buffer is 2-byte aligned.
 * Node's pooled small buffers can start at an odd offset, where a typed-array view is
 * illegal, so those are copied once.
 *
 * @example
 * const samples = pcmToInt16(chunk.data);
 * const first = samples[0];
 */
export function pcmToInt16(pcm: Buffer): Int16Array {
  const sampleCount = pcmSampleCount(pcm.byteLength);
  if (pcm.byteOffset % PCM_BYTES_PER_SAMPLE === 0) {
    return new Int16Array(pcm.buffer, pcm.byteOffset, sampleCount);
  }
  const copy = new Int16Array(sampleCount);
  new Uint8Array(copy.buffer).set(pcm.subarray(0, sampleCount * PCM_BYTES_PER_SAMPLE));
  return copy;
}

/** Wrap 16-bit samples as a PCM buffer sharing the same memory (no copy). */
export function int16ToPcm(samples: Int16Array): Buffer {
  return Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
}

/** Convert s16le PCM to floats in [-1, 1) (sample / 32768). */
export function pcmToFloat32(pcm: Buffer): Float32Array {
  const samples = pcmToInt16(pcm);
  const out = new Float32Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = samples[i]! / 32768;
  return out;
}

/**
 * Convert floats to s16le PCM. Values are scaled by 32768, rounded and clamped, so
 * out-of-range input (a resampler's overshoot, a gain stage) saturates instead of wrapping.
 */
export function float32ToPcm(samples: Float32Array): Buffer {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const scaled = Math.round(samples[i]! * 32768);
    out[i] = Math.min(32767, Math.max(-32768, scaled));
  }
  return int16ToPcm(out);
}

/** A buffer of `sampleCount` silent samples. */
export function pcmSilence(sampleCount: number): Buffer {
  return Buffer.alloc(sampleCount * PCM_BYTES_PER_SAMPLE);
}

/**
 * Concatenate PCM chunks of one sample rate into one chunk.
 * Throws a `RangeError` when the rates differ, because joining them would change pitch.
 */
export function concatPcm(chunks: readonly PcmChunk[], sampleRateHz: number): PcmChunk {
  for (const chunk of chunks) {
    if (chunk.sampleRateHz !== sampleRateHz) {
      throw new RangeError(
        `cannot concatenate PCM at ${chunk.sampleRateHz} Hz into a ${sampleRateHz} Hz chunk`,
      );
    }
  }
  return { data: Buffer.concat(chunks.map((chunk) => chunk.data)), sampleRateHz };
}

/**
 * Root-mean-square level of s16le PCM relative to full scale (0 = silence, ~0.707 = a
 * full-scale sine). Used to tell speech from silence.
 */
export function pcmRms(pcm: Buffer): number {
  const samples = pcmToInt16(pcm);
  if (samples.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < samples.length; i++) {
    const value = samples[i]! / 32768;
    sum += value * value;
  }
  return Math.sqrt(sum / samples.length);
}
