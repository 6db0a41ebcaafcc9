import { createResampler, type Resampler } from '../../media/resample.ts';
import { STT_SAMPLE_RATE_HZ } from '../stt/provider.ts';

/**
 * A session's audio as it arrives (raw s16le mono at the session's rate, in frames of any
 * length, even odd ones) turned into 16 kHz samples for the recognizer, and counted: the
 * audio received is what a session is charged for.
 */
export class PcmInput {
  /** A byte left over from an odd-length frame, completed by the next frame. */
  #carry: number | undefined;
  #receivedSamples = 0;

  private constructor(
    readonly rateHz: number,
    private readonly resampler: Resampler,
  ) {}

  static async create(rateHz: number): Promise<PcmInput> {
    return new PcmInput(rateHz, await createResampler(rateHz, STT_SAMPLE_RATE_HZ));
  }

  /** Milliseconds of audio received so far. */
  get receivedMs(): number {
    return Math.round((this.#receivedSamples * 1000) / this.rateHz);
  }

  /** Milliseconds of audio received once `bytes` more bytes are taken. */
  receivedMsAfter(bytes: number): number {
    const whole = Math.floor(((this.#carry === undefined ? 0 : 1) + bytes) / 2);
    return Math.round(((this.#receivedSamples + whole) * 1000) / this.rateHz);
  }

  /** Takes one frame; returns the 16 kHz samples ready now (possibly none). */
  push(frame: Buffer): Int16Array {
    let bytes = frame;
    if (this.#carry !== undefined) {
      bytes = Buffer.concat([Buffer.of(this.#carry), frame]);
      this.#carry = undefined;
    }
    if (bytes.byteLength % 2 === 1) {
      this.#carry = bytes[bytes.byteLength - 1];
      bytes = bytes.subarray(0, bytes.byteLength - 1);
    }
    this.#receivedSamples += bytes.byteLength / 2;
    return toSamples(this.resampler.push(bytes));
  }

  /**
   * The resampler's held-back tail (a few milliseconds), at a flush or the end: so the
   * engine has every sample received so far. The resampler starts afresh after it.
   */
  finish(): Int16Array {
    return toSamples(this.resampler.flush());
  }

  destroy(): void {
    this.resampler.destroy();
  }
}

/** s16le bytes as samples (copied when the bytes are not 2-byte aligned). */
function toSamples(pcm: Buffer): Int16Array {
  if (pcm.byteOffset % 2 === 0)
    return new Int16Array(pcm.buffer, pcm.byteOffset, pcm.byteLength / 2);
  const copy = new Uint8Array(pcm.byteLength);
  copy.set(pcm);
  return new Int16Array(copy.buffer);
}
