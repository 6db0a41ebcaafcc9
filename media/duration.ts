import { PCM_BYTES_PER_SAMPLE } from './pcm.ts';

/**
 * Measures the playback duration of an encoded stream from its bytes, fed in the order
 * and split they are delivered. Used for the `X-Audio-Duration-Ms` header: it reports what
 * a player will play, padding and codec framing included.
 *
 * @example
 * const counter = getOutputFormatInfo('opus_48000_64').createDurationCounter();
 * for await (const bytes of encoded) { counter.push(bytes); send(bytes); }
 * headers['X-Audio-Duration-Ms'] = String(counter.durationMs);
 */
export interface DurationCounter {
  /** Account for the next encoded bytes of the stream. */
  push(encoded: Buffer): void;
  /** Playback duration of everything pushed so far, in whole milliseconds (rounded). */
  readonly durationMs: number;
}

/** Duration of raw s16le mono PCM: bytes / 2 / rate. */
export class PcmDurationCounter implements DurationCounter {
  readonly sampleRateHz: number;
  #bytes = 0;

  constructor(sampleRateHz: number) {
    this.sampleRateHz = sampleRateHz;
  }

  push(encoded: Buffer): void {
    this.#bytes += encoded.byteLength;
  }

  get durationMs(): number {
    return Math.round((Math.floor(this.#bytes / PCM_BYTES_PER_SAMPLE) * 1000) / this.sampleRateHz);
  }
}
