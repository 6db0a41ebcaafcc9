import type { DurationCounter } from '../duration.ts';
import { OGG_FLAG_BOS } from './ogg.ts';
import { OggPageReader, oggPagePackets } from './ogg-reader.ts';

/** Ogg Opus granule positions always count 48 kHz samples, whatever the input rate. */
const OPUS_GRANULE_RATE_HZ = 48000;

/**
 * Duration of an Ogg Opus stream: the granule position of the latest page minus the
 * pre-skip from OpusHead, at 48 kHz (RFC 7845). After the final page this is exactly the
 * audio the encoder was given; mid-stream it is what has been delivered so far.
 */
export class OggOpusDurationCounter implements DurationCounter {
  readonly #reader = new OggPageReader();
  #preSkip = 0;
  #granule = 0n;

  push(encoded: Buffer): void {
    for (const page of this.#reader.push(encoded)) {
      if (page.headerType & OGG_FLAG_BOS) {
        const head = oggPagePackets(page)[0];
        if (head && head.byteLength >= 19 && head.toString('ascii', 0, 8) === 'OpusHead') {
          this.#preSkip = head.readUInt16LE(10);
        }
        continue;
      }
      // -1 marks a page on which no packet ends; it carries no position.
      if (page.granulePosition >= 0n) this.#granule = page.granulePosition;
    }
  }

  get durationMs(): number {
    const samples = Number(this.#granule) - this.#preSkip;
    return samples <= 0 ? 0 : Math.round((samples * 1000) / OPUS_GRANULE_RATE_HZ);
  }
}
