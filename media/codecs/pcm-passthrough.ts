import type { AudioEncoder, AudioEncoderOptions } from '../encoder.ts';
import { SyncAudioEncoder } from '../sync-encoder.ts';

const EMPTY = Buffer.alloc(0);

/**
 * The "encoder" of the raw PCM formats: output is the input, unchanged (s16le mono, no
 * header), with the same backpressure and abort behaviour as the real codecs.
 */
export function createPcmEncoder(
  sampleRateHz: number,
  options: AudioEncoderOptions = {},
): AudioEncoder {
  return new SyncAudioEncoder({ push: (pcm) => pcm, end: () => EMPTY }, sampleRateHz, options);
}
