import type { DurationCounter } from '../duration.ts';

/** Samples per AAC-LC raw data block. */
export const AAC_SAMPLES_PER_FRAME = 1024;

/** ADTS sampling_frequency_index to Hz (ISO/IEC 14496-3, table 1.18). */
const ADTS_SAMPLE_RATES_HZ = [
  96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350,
];

const ADTS_HEADER_BYTES = 7;

/** Fields of one ADTS frame header that duration and format checks need. */
export interface AdtsFrameHeader {
  readonly sampleRateHz: number;
  readonly channels: number;
  /** Whole frame length, header included. */
  readonly frameBytes: number;
  /** Raw data blocks in the frame, each {@link AAC_SAMPLES_PER_FRAME} samples. */
  readonly rawBlocks: number;
}

/** Parse the ADTS header at `offset`, or null when no valid header starts there. */
export function parseAdtsHeader(bytes: Buffer, offset: number): AdtsFrameHeader | null {
  if (offset + ADTS_HEADER_BYTES > bytes.byteLength) return null;
  const b1 = bytes[offset + 1]!;
  // 12-bit syncword 0xFFF and layer 00
  if (bytes[offset] !== 0xff || (b1 & 0xf6) !== 0xf0) return null;
  const b2 = bytes[offset + 2]!;
  const b3 = bytes[offset + 3]!;
  const sampleRateHz = ADTS_SAMPLE_RATES_HZ[(b2 >> 2) & 0x0f];
  if (sampleRateHz === undefined) return null;
  const frameBytes = ((b3 & 0x03) << 11) | (bytes[offset + 4]! << 3) | (bytes[offset + 5]! >> 5);
  if (frameBytes < ADTS_HEADER_BYTES) return null;
  return {
    sampleRateHz,
    channels: ((b2 & 0x01) << 2) | (b3 >> 6),
    frameBytes,
    rawBlocks: (bytes[offset + 6]! & 0x03) + 1,
  };
}

/**
 * Duration of an AAC ADTS stream: frames x 1024 samples at the rate in the headers. Only
 * headers are buffered (at most 6 bytes between pushes); frame bodies are skipped.
 * Encoder priming (about 1024 samples for ffmpeg's encoder) is included because ADTS cannot
 * signal it, so players play it too.
 */
export class AdtsDurationCounter implements DurationCounter {
  #pending: Buffer = Buffer.alloc(0);
  /** Body bytes of the current frame still to skip. */
  #skip = 0;
  #samples = 0;
  #sampleRateHz = 0;
  #frames = 0;

  /** ADTS frames seen so far. */
  get frames(): number {
    return this.#frames;
  }

  push(encoded: Buffer): void {
    let data = encoded;
    if (this.#skip > 0) {
      const skipped = Math.min(this.#skip, data.byteLength);
      this.#skip -= skipped;
      data = data.subarray(skipped);
    }
    if (this.#pending.byteLength > 0) data = Buffer.concat([this.#pending, data]);
    let offset = 0;
    while (offset + ADTS_HEADER_BYTES <= data.byteLength) {
      const header = parseAdtsHeader(data, offset);
      if (!header) {
        offset++; // resynchronize on the next syncword
        continue;
      }
      this.#frames++;
      this.#samples += header.rawBlocks * AAC_SAMPLES_PER_FRAME;
      this.#sampleRateHz = header.sampleRateHz;
      const available = data.byteLength - offset;
      if (available < header.frameBytes) {
        this.#skip = header.frameBytes - available;
        offset = data.byteLength;
        break;
      }
      offset += header.frameBytes;
    }
    this.#pending = Buffer.from(data.subarray(offset));
  }

  get durationMs(): number {
    return this.#sampleRateHz === 0 ? 0 : Math.round((this.#samples * 1000) / this.#sampleRateHz);
  }
}
